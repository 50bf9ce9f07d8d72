#include "launch/profile_trace.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>

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
  return profile_trace_json(program, std::vector<std::vector<KernelEvent>>{events});
}

std::string profile_trace_json(const Program& program,
                               const std::vector<std::vector<KernelEvent>>& per_rank) {
  constexpr int kSteps = 1, kKernels = 2, kTransfers = 3; // track (thread) ids
  auto kernel_track = [](int lane) { return lane < 0 ? kKernels : kTransfers + 1 + lane; };
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  for (size_t rank = 0; rank < per_rank.size(); ++rank) {
    const std::vector<KernelEvent>& events = per_rank[rank];
    const std::string pid = std::to_string(rank + 1);
    auto meta = [&](const char* what, int tid, const std::string& name) {
      out += "{\"ph\": \"M\", \"pid\": " + pid + ", \"tid\": " + std::to_string(tid) + ", \"name\": \"" +
             what + "\", \"args\": {\"name\": " + json_string(name) + "}},\n";
    };
    meta("process_name", 0,
         "tg-run " + program.device + (per_rank.size() > 1 ? ", rank " + std::to_string(rank) : ""));
    meta("thread_name", kSteps, "steps");
    meta("thread_name", kKernels, program.device + " kernels");
    // a kernel track per lane, where the program's devices ran at once (lanes.h)
    std::map<int, std::set<std::string>> lanes; // lane -> its devices
    for (const KernelEvent& e : events)
      if (e.transfer.empty() && e.lane >= 0) lanes[e.lane].insert(program.kernels.at(e.kernel).device);
    for (const auto& [lane, devices] : lanes) {
      std::string names;
      for (const std::string& d : devices)
        names += (names.empty() ? "" : ", ") + (d.empty() ? program.device : d);
      meta("thread_name", kernel_track(lane), "kernels of " + names);
    }
    if (std::any_of(events.begin(), events.end(), [](const KernelEvent& e) { return !e.transfer.empty(); }))
      meta("thread_name", kTransfers, "transfers between processes");
    // a step spans its first launch's start to its last launch's end
    std::map<int64_t, std::pair<double, double>> steps;
    for (const KernelEvent& e : events) {
      auto [it, fresh] = steps.emplace(e.step, std::make_pair(e.start_us, e.start_us + e.duration_us));
      if (!fresh) it->second.second = std::max(it->second.second, e.start_us + e.duration_us);
    }
    for (const auto& [step, span] : steps)
      out += "{\"ph\": \"X\", \"pid\": " + pid + ", \"tid\": " + std::to_string(kSteps) +
             ", \"name\": \"step " + std::to_string(step + 1) + "\", \"ts\": " + number(span.first) +
             ", \"dur\": " + number(span.second - span.first) + "},\n";
    for (const KernelEvent& e : events) {
      if (!e.transfer.empty()) { // buffers moved before kernel e.kernel (tg-run --dist)
        out += "{\"ph\": \"X\", \"pid\": " + pid + ", \"tid\": " + std::to_string(kTransfers) +
               ", \"name\": " + json_string(e.transfer) + ", \"ts\": " + number(e.start_us) +
               ", \"dur\": " + number(e.duration_us) +
               ", \"args\": {\"before kernel\": " + std::to_string(e.kernel + 1) +
               ", \"step\": " + std::to_string(e.step + 1) + ", \"bytes\": " + std::to_string(e.bytes) +
               "}},\n";
        continue;
      }
      const ProgramKernel& k = program.kernels.at(e.kernel);
      double seconds = std::max(e.duration_us, 1e-3) * 1e-6;
      out += "{\"ph\": \"X\", \"pid\": " + pid + ", \"tid\": " + std::to_string(kernel_track(e.lane)) +
             ", \"name\": " + json_string(k.name) + ", \"ts\": " + number(e.start_us) +
             ", \"dur\": " + number(e.duration_us) +
             ", \"args\": {\"kernel\": " + std::to_string(e.kernel + 1) +
             ", \"step\": " + std::to_string(e.step + 1) +
             ", \"GFLOP/s\": " + number(double(k.op_estimate) / seconds * 1e-9) +
             ", \"GB/s\": " + number(double(k.mem_estimate) / seconds * 1e-9) +
             ", \"ops\": " + std::to_string(k.op_estimate) +
             ", \"bytes\": " + std::to_string(k.mem_estimate) + "}},\n";
    }
  }
  if (out.ends_with(",\n")) out.erase(out.size() - 2, 1);
  return out + "]}\n";
}

namespace {

// An event as it travels between processes: fixed size, the transfer's kind as an index.
struct PackedEvent {
  uint64_t kernel;
  int64_t step;
  double start_us, duration_us;
  uint64_t bytes;
  int64_t transfer;
};
constexpr const char* kTransferKinds[] = {"", "allgather", "point-to-point", "nccl"};

int64_t transfer_kind(const std::string& name) {
  for (size_t i = 0; i < std::size(kTransferKinds); ++i)
    if (name == kTransferKinds[i]) return int64_t(i);
  return 0;
}

} // namespace

std::vector<std::vector<KernelEvent>>
gather_events(Transport& transport, const std::vector<KernelEvent>& mine, double run_start_us) {
  const int ranks = transport.size(), rank = transport.rank();
  struct Header {
    uint64_t count;
    double start_us;
  } me{mine.size(), run_start_us};
  std::vector<Header> all(static_cast<size_t>(ranks));
  transport.allgather(&me, sizeof me, all.data());
  std::vector<PackedEvent> packed;
  for (const KernelEvent& e : mine)
    packed.push_back({e.kernel, e.step, e.start_us, e.duration_us, e.bytes, transfer_kind(e.transfer)});
  if (rank != 0) {
    if (!packed.empty()) transport.send(packed.data(), packed.size() * sizeof(PackedEvent), 0);
    return {};
  }
  std::vector<std::vector<KernelEvent>> out(static_cast<size_t>(ranks));
  out[0] = mine;
  for (int r = 1; r < ranks; ++r) {
    std::vector<PackedEvent> theirs(all[size_t(r)].count);
    if (!theirs.empty()) transport.recv(theirs.data(), theirs.size() * sizeof(PackedEvent), r);
    // on one machine the steady clocks agree: rank r's events on rank 0's time line (ranks on
    // other machines, whose clocks do not, keep their own run start as zero)
    double shift = all[size_t(r)].start_us - all[0].start_us;
    if (std::abs(shift) > 600e6) shift = 0;
    for (const PackedEvent& p : theirs)
      out[size_t(r)].push_back({size_t(p.kernel), p.step, p.start_us + shift, p.duration_us,
                                p.transfer > 0 && size_t(p.transfer) < std::size(kTransferKinds)
                                    ? kTransferKinds[size_t(p.transfer)]
                                    : "",
                                size_t(p.bytes)});
  }
  return out;
}

} // namespace tg
