#include "script/trace.h"

#include <pthread.h>

#include <algorithm>
#include <exception>
#include <iostream>

#include "lazy/lazybuffer.h"
#include "script/dict.h"
#include "script/interp.h"
#include "script/state_names.h"

namespace tg {

ScriptError::ScriptError(std::string file, int line, std::string kind, std::string message,
                         std::vector<TraceFrame> traceback)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + kind +
                         (message.empty() ? "" : ": " + message)),
      file_(std::move(file)), line_(line), kind_(std::move(kind)), message_(std::move(message)),
      traceback_(std::move(traceback)) {}

std::string ScriptError::traceback_text(const std::string& source) const {
  if (traceback_.size() < 2) return "";
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= source.size();) {
    size_t end = std::min(source.find('\n', at), source.size());
    lines.push_back(std::string_view(source).substr(at, end - at));
    at = end + 1;
  }
  std::string out = "Traceback (most recent call last):\n";
  auto frame_text = [&](const TraceFrame& f) {
    std::string t = "  File \"" + file_ + "\", line " + std::to_string(f.line) + ", in " + f.function + "\n";
    if (f.line >= 1 && size_t(f.line) <= lines.size()) {
      std::string_view code = lines[size_t(f.line) - 1];
      while (!code.empty() && (code.front() == ' ' || code.front() == '\t')) code.remove_prefix(1);
      if (!code.empty()) t += "    " + std::string(code) + "\n";
    }
    return t;
  };
  // a recursion's repeated frames collapse as Python's do
  for (size_t i = 0; i < traceback_.size();) {
    size_t j = i;
    while (j + 1 < traceback_.size() && traceback_[j + 1].line == traceback_[i].line &&
           traceback_[j + 1].function == traceback_[i].function)
      ++j;
    out += frame_text(traceback_[i]);
    if (j - i >= 3) {
      out += "  [Previous line repeated " + std::to_string(j - i) + " more times]\n";
    } else {
      for (size_t k = i + 1; k <= j; ++k) out += frame_text(traceback_[k]);
    }
    i = j + 1;
  }
  return out;
}

namespace {

using script::Interp;
using script::PyError;
using script::Value;
using script::VKind;

ScriptResult evaluate(const std::string& source, const std::string& filename, const ScriptOptions& options) {
  try {
    script::Program program = script::parse_program(source);
    // States and assigns belong to one script: forget a previous script's.
    lazy_graph().clear_effects();
    Tensor::begin_program();
    // (declared first, so it runs last: after the interpreter and its frames are gone)
    struct CycleBreaker {
      ~CycleBreaker() { script::break_container_cycles(); }
    } cycle_breaker;
    Interp in(options.print_stream ? *options.print_stream : std::cerr, options.recursion_limit);
    std::vector<std::pair<std::string, Value>> args;
    for (const auto& kv : options.args) {
      const auto& [k, v] = kv;
      auto it = std::find_if(args.begin(), args.end(), [&](auto& p) { return p.first == kv.first; });
      if (it != args.end())
        it->second = Value::str(v);
      else
        args.emplace_back(k, Value::str(v));
    }
    in.define_global("args", script::make_dict(std::move(args)));
    in.run(program);
    Tensor::end_program();
    ScriptResult result;
    std::set<std::string> input_names;
    for (auto& i : in.inputs) {
      result.inputs.push_back({i.name, i.tensor, i.requires_grad});
      input_names.insert(i.name);
    }
    result.state_names = script::automatic_state_names(in.module_variables(), input_names);
    if (!in.outputs.empty()) {
      result.outputs = std::move(in.outputs);
    } else {
      if (!in.last_expression)
        throw PyError("ValueError",
                      "the script has no output: call output(name, tensor) or end with an expression",
                      int(std::count(source.begin(), source.end(), '\n')) + 1);
      const Value& v = *in.last_expression;
      if (v.kind != VKind::Tensor && !v.is_number() && !v.is_seq())
        throw PyError("TypeError",
                      "the last expression (the output 'out') is a '" + script::type_name(v) +
                          "', not a Tensor, a number or a list",
                      0);
      Value t = v.kind == VKind::Tensor ? v : script::tensor_from_data(v, std::nullopt, std::nullopt);
      result.outputs.emplace_back("out", t.t());
    }
    return result;
  } catch (PyError& e) {
    if (e.calls.empty()) throw ScriptError(filename, e.line, e.kind(), e.what());
    std::vector<TraceFrame> traceback{{e.line, "<module>"}};
    for (auto it = e.calls.rbegin(); it != e.calls.rend(); ++it) // Python names a method by its own name
      traceback.push_back({it->second, it->first.substr(it->first.rfind('.') + 1)});
    int innermost = traceback.back().line;
    throw ScriptError(filename, innermost, e.kind(), e.what(), std::move(traceback));
  } catch (Error& e) {
    throw ScriptError(filename, 0, e.kind(), e.what());
  }
}

// The evaluator recurses on the C++ stack; give it room for Python's recursion limit.
struct Job {
  const std::string* source;
  const std::string* filename;
  const ScriptOptions* options;
  ScriptResult result;
  std::exception_ptr error;
};

void* run_job(void* p) {
  auto* job = static_cast<Job*>(p);
  try {
    job->result = evaluate(*job->source, *job->filename, *job->options);
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

} // namespace

ScriptResult run_script(const std::string& source, const std::string& filename,
                        const ScriptOptions& options) {
  Job job{&source, &filename, &options, {}, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(512) << 20);
  pthread_t thread;
  bool threaded = pthread_create(&thread, &attr, run_job, &job) == 0;
  pthread_attr_destroy(&attr);
  if (threaded)
    pthread_join(thread, nullptr);
  else
    run_job(&job);
  if (job.error) std::rethrow_exception(job.error);
  return std::move(job.result);
}

namespace {
bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = (unsigned char)s[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if (((unsigned char)s[i + k] >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

// A file that is not text at all gets one line naming what it looks like, not a syntax error
// that echoes its bytes.
void check_text(const std::string& source, const std::string& filename) {
  auto starts = [&](std::string_view magic) { return source.compare(0, magic.size(), magic) == 0; };
  if (starts("\x93NUMPY"))
    fail("ValueError",
         filename + ": a .npy array, not a .tg script (tg-run binds arrays: --in NAME=" + filename + ")");
  if (starts("TGART") || starts("{\"format\": \"tg-"))
    fail("ValueError", filename + ": a tg artifact, not a .tg script (pipe it to the next tool)");
  if (starts("PK\x03\x04")) fail("ValueError", filename + ": a zip archive (.npz?), not a .tg script");
  if (source.find('\0') != std::string::npos || !valid_utf8(source))
    fail("ValueError", filename + ": a binary file (an .onnx model? weights?), not a .tg script");
}
} // namespace

Graph trace_script(const std::string& source, const std::string& filename, const ScriptOptions& options) {
  check_text(source, filename);
  ScriptResult r = run_script(source, filename, options);
  std::vector<std::pair<std::string, LazyBuffer>> outputs;
  // a sharded tensor is read back gathered onto the default device, as numpy() does
  // (tinygrad's numpy() reads the base buffer: with one real shard, that shard alone)
  for (auto& [name, t] : r.outputs) {
    const LazyBuffer& lb = t.lazydata();
    size_t reals = lb.is_multi() ? size_t(std::count(lb.real().begin(), lb.real().end(), true)) : 0;
    if (reals == 1 && lb.multi_axis()) {
      size_t i = size_t(std::find(lb.real().begin(), lb.real().end(), true) - lb.real().begin());
      outputs.emplace_back(name, lb.lbs()[i].copy_to_device(""));
    } else {
      outputs.emplace_back(name, lb.copy_to_device(""));
    }
  }
  std::vector<GraphInput> inputs;
  for (auto& i : r.inputs) inputs.push_back(GraphInput{i.name, i.tensor.lazydata().id(), i.requires_grad});
  Graph g = extract_graph(outputs, inputs, /*effects=*/true);
  for (GraphState& st : g.states)
    if (auto it = r.state_names.find(st.name); it != r.state_names.end()) {
      st.name = it->second;
      g.nodes[st.node].name = it->second;
    }
  // The effects belong to this graph: a later graph built in this process starts without them.
  lazy_graph().clear_effects();
  clear_bound_vars();
  return g;
}

} // namespace tg
