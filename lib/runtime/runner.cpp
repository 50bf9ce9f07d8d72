#include "runtime/runner.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sstream>

#include "runtime/clang_compiler.h"
#include "runtime/thread_pool.h"
#include "util/error.h"

namespace tg {

namespace {

struct AlignedFree {
  void operator()(uint8_t* p) const { std::free(p); }
};
using DeviceMemory = std::unique_ptr<uint8_t, AlignedFree>;

DeviceMemory allocate(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
  if (!p) fail("RuntimeError", "out of memory allocating " + std::to_string(bytes) + " bytes");
  std::memset(p, 0, rounded);
  return DeviceMemory(p);
}

const BufferInfo& buffer_by_id(const Program& p, int id) {
  for (const BufferInfo& b : p.buffers)
    if (b.id == id) return b;
  fail("RuntimeError", "program refers to unknown buffer " + std::to_string(id));
}

} // namespace

std::optional<std::string> partial_kernel(const std::string& src, const std::string& name, int64_t extent) {
  const std::string head = "void " + name + "(";
  size_t at = src.find(head);
  if (at == std::string::npos) return std::nullopt;
  size_t params_end = src.find(") {", at);
  if (params_end == std::string::npos) return std::nullopt;
  size_t loop = src.find("for (int ", params_end);
  if (loop == std::string::npos) return std::nullopt;
  size_t var_end = src.find(' ', loop + 9);
  if (var_end == std::string::npos) return std::nullopt;
  std::string var = src.substr(loop + 9, var_end - loop - 9);
  std::string e = std::to_string(extent);
  std::string expect = "for (int " + var + " = 0; " + var + " < " + e + "; " + var + "++)";
  if (src.compare(loop, expect.size(), expect) != 0) return std::nullopt;
  std::string out = "void " + name + "_tgpart(" +
                    src.substr(at + head.size(), params_end - at - head.size()) +
                    ", int tg_start, int tg_end" + src.substr(params_end, loop - params_end);
  out += "for (int " + var + " = tg_start; " + var + " < tg_end; " + var + "++)";
  out += src.substr(loop + expect.size());
  return out;
}

namespace {

// Kernels [first, last) of a program with their launchers: one translation unit.
std::string translation_unit(const Program& p, size_t first, size_t last) {
  std::ostringstream os;
  std::vector<bool> split(last - first);
  for (size_t n = first; n < last; ++n) {
    const ProgramKernel& k = p.kernels[n];
    std::optional<std::string> part;
    if (k.parallel >= 2 && k.work >= kMinParallelWork) part = partial_kernel(k.src, k.name, k.parallel);
    split[n - first] = bool(part);
    // A split kernel is compiled once, as its range form: the whole kernel is the full range.
    if (part)
      os << k.src.substr(0, k.src.find("void " + k.name + "(")) << *part << "\n";
    else
      os << k.src << "\n";
  }
  for (size_t n = first; n < last; ++n) {
    const ProgramKernel& k = p.kernels[n];
    bool is_split = split[n - first];
    auto call = [&](const std::string& fn, const std::string& range) {
      os << fn << "(";
      for (size_t i = 0; i < k.bufs.size(); i++) os << (i ? ", " : "") << "args[" << i << "]";
      os << range << "); }\n";
    };
    os << "void tg_launch_" << k.name << "(void** args) { ";
    call(is_split ? k.name + "_tgpart" : k.name, is_split ? ", 0, " + std::to_string(k.parallel) : "");
    if (!is_split) continue;
    os << "void tg_launch_part_" << k.name << "(void** args, int s, int e) { ";
    call(k.name + "_tgpart", ", s, e");
  }
  return os.str();
}

} // namespace

std::string program_translation_unit(const Program& p) { return translation_unit(p, 0, p.kernels.size()); }

std::vector<std::string> program_translation_units(const Program& p, int most) {
  // About kMinUnitBytes of C per unit at least: below that, a second clang costs more than it saves.
  constexpr size_t kMinUnitBytes = 16 * 1024;
  size_t total = 0;
  for (const ProgramKernel& k : p.kernels) total += k.src.size();
  size_t units =
      std::min({size_t(std::max(most, 1)), p.kernels.size(), std::max<size_t>(1, total / kMinUnitBytes)});
  std::vector<std::string> out;
  size_t first = 0, done = 0;
  for (size_t u = 0; u < units; ++u) {
    // contiguous runs of kernels of about equal source size
    size_t last = first, goal = total * (u + 1) / units;
    while (last < p.kernels.size() && (u + 1 == units || done < goal)) done += p.kernels[last++].src.size();
    if (last == first && last < p.kernels.size()) done += p.kernels[last++].src.size();
    if (last > first) out.push_back(translation_unit(p, first, last));
    first = last;
  }
  return out;
}

LoadedProgram::LoadedProgram(const Program& p) {
  check(p.device == "CLANG", "RuntimeError", "unknown device '" + p.device + "' (known: CLANG)");
  if (p.kernels.empty()) return;
  ClangCompiler compiler;
  // Big programs are compiled as several units by as many clangs at once, then linked.
  ClangCompiler::Result r = compiler.compile(program_translation_units(p, kernel_threads()));
  library_ = r.library.string();
  cache_hit_ = r.cache_hit;
  handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) fail("RuntimeError", std::string("cannot load ") + library_ + ": " + dlerror());
  for (const ProgramKernel& k : p.kernels) {
    void* sym = dlsym(handle_, ("tg_launch_" + k.name).c_str());
    if (!sym) fail("RuntimeError", "kernel '" + k.name + "' missing from " + library_);
    launchers_.push_back(reinterpret_cast<void (*)(void**)>(sym));
    part_launchers_.push_back(
        reinterpret_cast<void (*)(void**, int, int)>(dlsym(handle_, ("tg_launch_part_" + k.name).c_str())));
  }
}

LoadedProgram::~LoadedProgram() {
  if (handle_) dlclose(handle_);
}

void LoadedProgram::launch(size_t i, void** args) const { launchers_.at(i)(args); }

void LoadedProgram::launch_part(size_t i, void** args, int64_t start, int64_t end) const {
  part_launchers_.at(i)(args, int(start), int(end));
}

namespace {

// The checks every named host buffer (an input, a loaded state) gets before it is copied in.
void check_binding(const char* what, const NamedBuffer& nb, const HostBuffer& hb) {
  std::string who = std::string(what) + " '" + nb.name + "'";
  if (hb.shape != nb.shape)
    fail("ValueError", who + ": expected shape " + shape_repr(nb.shape) + ", got " + shape_repr(hb.shape));
  if (hb.dtype != nb.dtype)
    fail("ValueError", who + ": expected dtype " + std::string(py_name(nb.dtype)) + ", got " +
                           std::string(py_name(hb.dtype)));
  size_t want = size_t(prod(nb.shape)) * size_t(itemsize(nb.dtype));
  if (hb.data.size() != want)
    fail("ValueError", who + ": expected " + std::to_string(want) + " bytes of data, got " +
                           std::to_string(hb.data.size()));
}

void check_names(const char* what, const std::vector<NamedBuffer>& declared,
                 const std::map<std::string, HostBuffer>& given, bool all_required) {
  for (const auto& [name, _] : given) {
    bool known = false;
    for (const NamedBuffer& nb : declared) known |= nb.name == name;
    if (!known) {
      std::string names;
      for (const NamedBuffer& nb : declared) names += (names.empty() ? "" : ", ") + nb.name;
      fail("ValueError", "unknown " + std::string(what) + " '" + name + "' (the program's " + what +
                             "s: " + (names.empty() ? "none" : names) + ")");
    }
  }
  if (all_required)
    for (const NamedBuffer& nb : declared)
      if (!given.count(nb.name)) fail("ValueError", "missing " + std::string(what) + " '" + nb.name + "'");
}

} // namespace

struct ProgramRun::Memory {
  std::map<int, DeviceMemory> buffers;
};

ProgramRun::ProgramRun(const Program& p, const std::map<std::string, HostBuffer>& inputs)
    : p_(p), mem_(std::make_unique<Memory>()) {
  check_names("input", p.inputs, inputs, true);
  for (const NamedBuffer& nb : p.inputs) check_binding("input", nb, inputs.at(nb.name));
  loaded_ = std::make_unique<LoadedProgram>(p);
  for (const BufferInfo& b : p.buffers) {
    size_t bytes = size_t(b.size) * size_t(itemsize(b.dtype));
    DeviceMemory m = allocate(bytes);
    if (b.role == BufferRole::Constant) {
      check(b.data.size() == bytes, "RuntimeError",
            "constant buffer " + std::to_string(b.id) + " carries " + std::to_string(b.data.size()) +
                " bytes, expected " + std::to_string(bytes));
      std::memcpy(m.get(), b.data.data(), bytes);
    }
    mem_->buffers[b.id] = std::move(m);
  }
  for (const NamedBuffer& nb : p.inputs) copy_in(nb, inputs.at(nb.name));
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    std::vector<void*> args;
    for (int id : p.kernels[i].bufs) {
      auto it = mem_->buffers.find(id);
      if (it == mem_->buffers.end())
        fail("RuntimeError", "kernel '" + p.kernels[i].name + "' uses unknown buffer " + std::to_string(id));
      args.push_back(it->second.get());
    }
    args_.push_back(std::move(args));
    // Split across threads: kernels with an independent outermost loop and enough work.
    bool split = loaded_->has_part(i) && p.kernels[i].work >= kMinParallelWork;
    split_.push_back(split);
    if (split && !pool_ && kernel_threads() > 1) pool_ = std::make_unique<ThreadPool>(kernel_threads());
    const BufferRole first =
        p.kernels[i].bufs.empty() ? BufferRole::Intermediate : buffer_by_id(p, p.kernels[i].bufs[0]).role;
    in_place_.push_back(first == BufferRole::State || first == BufferRole::Input);
  }
}

ProgramRun::~ProgramRun() = default;

void ProgramRun::copy_in(const NamedBuffer& nb, const HostBuffer& hb) {
  const BufferInfo& b = buffer_by_id(p_, nb.buffer);
  check(hb.data.size() <= size_t(b.size) * size_t(itemsize(b.dtype)), "RuntimeError",
        "'" + nb.name + "' does not fit its buffer");
  if (!hb.data.empty()) std::memcpy(mem_->buffers.at(nb.buffer).get(), hb.data.data(), hb.data.size());
}

HostBuffer ProgramRun::copy_out(const NamedBuffer& nb) const {
  const BufferInfo& b = buffer_by_id(p_, nb.buffer);
  size_t bytes = size_t(prod(nb.shape)) * size_t(itemsize(nb.dtype));
  check(bytes <= size_t(b.size) * size_t(itemsize(b.dtype)), "RuntimeError",
        "'" + nb.name + "' is larger than its buffer");
  HostBuffer hb{nb.dtype, nb.shape, std::vector<uint8_t>(bytes)};
  if (bytes) std::memcpy(hb.data.data(), mem_->buffers.at(nb.buffer).get(), bytes);
  return hb;
}

void ProgramRun::load_states(const std::map<std::string, HostBuffer>& states) {
  check_names("state", p_.states, states, true);
  for (const NamedBuffer& nb : p_.states) check_binding("state", nb, states.at(nb.name));
  for (const NamedBuffer& nb : p_.states) copy_in(nb, states.at(nb.name));
  states_ready_ = true;
}

void ProgramRun::launch(size_t i) {
  if (!pool_ || !split_[i]) return loaded_->launch(i, args_[i].data());
  int64_t extent = p_.kernels[i].parallel;
  int parts = int(std::min<int64_t>(pool_->size(), extent));
  void** args = args_[i].data();
  pool_->run(parts,
             [&](int k) { loaded_->launch_part(i, args, extent * k / parts, extent * (k + 1) / parts); });
}

void ProgramRun::launch_range(bool init, const RunOptions& options) {
  for (size_t i = 0; i < p_.kernels.size(); i++) {
    if (p_.kernels[i].init != init) continue;
    if (!options.kernel_seconds) {
      launch(i);
      continue;
    }
    // Timed: the best of `repeat` launches. A kernel that writes a buffer it reads (an assign
    // into a state or input) runs once: running it again would change the values.
    int repeat = in_place_[i] ? 1 : std::max(1, options.repeat);
    double best = 0;
    for (int r = 0; r < repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      launch(i);
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = r == 0 ? dt : std::min(best, dt);
    }
    options.kernel_seconds->resize(p_.kernels.size(), 0.0);
    (*options.kernel_seconds)[i] = best;
  }
}

void ProgramRun::step(const RunOptions& options) {
  if (!states_ready_) {
    launch_range(true, options);
    states_ready_ = true;
  }
  launch_range(false, options);
}

std::map<std::string, HostBuffer> ProgramRun::outputs() const {
  std::map<std::string, HostBuffer> out;
  for (const NamedBuffer& nb : p_.outputs) out[nb.name] = copy_out(nb);
  return out;
}

HostBuffer ProgramRun::output(const std::string& name) const {
  for (const NamedBuffer& nb : p_.outputs)
    if (nb.name == name) return copy_out(nb);
  fail("ValueError", "unknown output '" + name + "'");
}

std::vector<std::pair<std::string, HostBuffer>> ProgramRun::states() const {
  std::vector<std::pair<std::string, HostBuffer>> out;
  for (const NamedBuffer& nb : p_.states) out.emplace_back(nb.name, copy_out(nb));
  return out;
}

std::map<std::string, HostBuffer>
run_program(const Program& p, const std::map<std::string, HostBuffer>& inputs, const RunOptions& options) {
  ProgramRun run(p, inputs);
  if (options.kernel_seconds) options.kernel_seconds->assign(p.kernels.size(), 0.0);
  run.step(options);
  return run.outputs();
}

} // namespace tg
