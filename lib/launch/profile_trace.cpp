#include "launch/profile_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tg {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return buf;
}

} // namespace

std::string profile_trace_json(const Program& program, const std::vector<KernelEvent>& events) {
  constexpr int kSteps = 1, kKernels = 2, kTransfers = 3; // track (thread) ids
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  auto meta = [&](const char* what, int tid, const std::string& name) {
    out += "{\"ph\": \"M\", \"pid\": 1, \"tid\": " + std::to_string(tid) + ", \"name\": \"" + what +
           "\", \"args\": {\"name\": " + json_string(name) + "}},\n";
  };
  meta("process_name", 0, "tg-run " + program.device);
  meta("thread_name", kSteps, "steps");
  meta("thread_name", kKernels, program.device + " kernels");
  if (std::any_of(events.begin(), events.end(), [](const KernelEvent& e) { return !e.transfer.empty(); }))
    meta("thread_name", kTransfers, "transfers between processes");
  // a step spans its first launch's start to its last launch's end
  std::map<int64_t, std::pair<double, double>> steps;
  for (const KernelEvent& e : events) {
    auto [it, fresh] = steps.emplace(e.step, std::make_pair(e.start_us, e.start_us + e.duration_us));
    if (!fresh) it->second.second = std::max(it->second.second, e.start_us + e.duration_us);
  }
  for (const auto& [step, span] : steps)
    out += "{\"ph\": \"X\", \"pid\": 1, \"tid\": " + std::to_string(kSteps) + ", \"name\": \"step " +
           std::to_string(step + 1) + "\", \"ts\": " + number(span.first) +
           ", \"dur\": " + number(span.second - span.first) + "},\n";
  for (const KernelEvent& e : events) {
    if (!e.transfer.empty()) { // buffers moved before kernel e.kernel (tg-run --dist)
      out += "{\"ph\": \"X\", \"pid\": 1, \"tid\": " + std::to_string(kTransfers) +
             ", \"name\": " + json_string(e.transfer) + ", \"ts\": " + number(e.start_us) +
             ", \"dur\": " + number(e.duration_us) +
             ", \"args\": {\"before kernel\": " + std::to_string(e.kernel + 1) +
             ", \"step\": " + std::to_string(e.step + 1) + ", \"bytes\": " + std::to_string(e.bytes) +
             "}},\n";
      continue;
    }
    const ProgramKernel& k = program.kernels.at(e.kernel);
    double seconds = std::max(e.duration_us, 1e-3) * 1e-6;
    out += "{\"ph\": \"X\", \"pid\": 1, \"tid\": " + std::to_string(kKernels) +
           ", \"name\": " + json_string(k.name) + ", \"ts\": " + number(e.start_us) +
           ", \"dur\": " + number(e.duration_us) +
           ", \"args\": {\"kernel\": " + std::to_string(e.kernel + 1) +
           ", \"step\": " + std::to_string(e.step + 1) +
           ", \"GFLOP/s\": " + number(double(k.op_estimate) / seconds * 1e-9) +
           ", \"GB/s\": " + number(double(k.mem_estimate) / seconds * 1e-9) +
           ", \"ops\": " + std::to_string(k.op_estimate) + ", \"bytes\": " + std::to_string(k.mem_estimate) +
           "}},\n";
  }
  if (out.ends_with(",\n")) out.erase(out.size() - 2, 1);
  return out + "]}\n";
}

} // namespace tg
