#include "launch/lanes.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "codegen/kernel_interface.h"
#include "codegen/renderer.h"
#include "device/host/host_program.h"

namespace tg {

namespace {

// Which of kernel k's buffers it writes: what its source declares writable (a random kernel: its
// first); all of them where the source cannot tell.
std::vector<bool> writes_of(const ProgramKernel& k) {
  std::vector<bool> all(k.bufs.size(), true);
  if (!k.custom.empty()) {
    for (size_t i = 1; i < all.size(); ++i) all[i] = false;
    return all;
  }
  std::string why;
  std::optional<KernelInterface> in = kernel_interface(k.src, k.name, why);
  return in && in->buffer_written.size() == k.bufs.size() ? in->buffer_written : all;
}

// For every kernel of the range, the earlier kernels it must run after: the last writer of each
// buffer it reads, and for a buffer it writes, also every reader since that writer. Constants
// are read only, by everyone.
std::vector<std::vector<size_t>> dependencies(const Program& p, bool init) {
  struct Access {
    std::optional<size_t> writer;
    std::vector<size_t> readers; // since the writer
  };
  std::map<int, Access> access;
  std::set<int> constant;
  for (const BufferInfo& b : p.buffers)
    if (b.role == BufferRole::Constant) constant.insert(b.id);
  std::vector<std::vector<size_t>> deps(p.kernels.size());
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const ProgramKernel& k = p.kernels[i];
    if (k.init != init) continue;
    const std::vector<bool> writes = writes_of(k);
    for (size_t j = 0; j < k.bufs.size(); ++j) {
      if (constant.count(k.bufs[j])) continue;
      Access& a = access[k.bufs[j]];
      if (a.writer) deps[i].push_back(*a.writer);
      if (writes[j]) {
        deps[i].insert(deps[i].end(), a.readers.begin(), a.readers.end());
        a.writer = i;
        a.readers.clear();
      } else {
        a.readers.push_back(i);
      }
    }
  }
  return deps;
}

// The kernels of the range on the lanes `lane_of` gives (by kernel index), in program order, each
// waiting for the kernels of other lanes it depends on.
LanePlan lanes_from(const Program& p, bool init, int lanes, const std::vector<int>& lane_of,
                    const std::vector<std::vector<size_t>>& deps) {
  LanePlan plan;
  plan.lanes = lanes;
  plan.kernels.resize(size_t(lanes));
  plan.waits.resize(size_t(lanes));
  std::vector<size_t> pos_of(p.kernels.size(), 0);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    if (p.kernels[i].init != init) continue;
    const int lane = lane_of[i];
    pos_of[i] = plan.kernels[size_t(lane)].size();
    std::map<int, size_t> need; // other lane -> kernels it must have run
    for (size_t d : deps[i])
      if (lane_of[d] != lane) {
        size_t& n = need[lane_of[d]];
        n = std::max(n, pos_of[d] + 1);
      }
    plan.kernels[size_t(lane)].push_back(i);
    plan.waits[size_t(lane)].emplace_back(need.begin(), need.end());
  }
  return plan;
}

double work_of(const ProgramKernel& k) { return double(k.op_estimate + k.mem_estimate); }

constexpr double kUnitsPerUs = 150e3; // ops + bytes a thread does per microsecond (host_program.h)
constexpr double kHandOffUs = 5;      // splitting a kernel over the threads (bench.py's figure)
constexpr double kCrossLaneUs = 0.5;  // a wait on another lane's progress
// Starting the lanes: waking a pool thread that slept since the last step. Measured: a sharded
// matmul of a few hundred floats took 0.001 ms a step one kernel at a time, 0.07 ms on lanes.
constexpr double kLanesStartUs = 20;

double alone_us(const ProgramKernel& k) { return work_of(k) / kUnitsPerUs + 0.1; }

// Devices go to lanes the same way for the init kernels and the step's, the busiest first to
// the least busy lane (by their estimated work over the whole program).
LanePlan device_lanes(const Program& p, bool init, int threads) {
  std::vector<std::string> devices; // by first kernel
  std::map<std::string, double> work;
  for (const ProgramKernel& k : p.kernels) {
    if (!work.count(k.device)) devices.push_back(k.device);
    work[k.device] += work_of(k);
  }
  const int lanes = int(std::min<size_t>(devices.size(), size_t(std::max(threads, 1))));
  if (lanes < 2) return {};
  std::vector<std::string> busiest = devices;
  std::stable_sort(busiest.begin(), busiest.end(), [&](auto& a, auto& b) { return work[a] > work[b]; });
  std::vector<double> load(size_t(lanes), 0);
  std::map<std::string, int> lane_of_device;
  for (const std::string& d : busiest) {
    int l = int(std::min_element(load.begin(), load.end()) - load.begin());
    lane_of_device[d] = l;
    load[size_t(l)] += work[d];
  }
  std::vector<double> cost(size_t(lanes), 0); // this range's
  std::vector<int> lane_of(p.kernels.size(), 0);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    lane_of[i] = lane_of_device[p.kernels[i].device];
    if (p.kernels[i].init == init) cost[size_t(lane_of[i])] += work_of(p.kernels[i]);
  }
  // a lane with under half the work of the busiest would leave its thread idle most of the time,
  // while the busiest lane's kernels lose the split over every thread
  if (*std::min_element(cost.begin(), cost.end()) < 0.5 * *std::max_element(cost.begin(), cost.end()))
    return {};
  // and a step too short pays more for starting the lanes than it gains
  double all_alone = 0;
  for (const ProgramKernel& k : p.kernels)
    if (k.init == init) all_alone += alone_us(k);
  if (all_alone < 5 * kLanesStartUs) return {};
  return lanes_from(p, init, lanes, lane_of, dependencies(p, init));
}

// One device: independent chains of kernels too small to split (a bidirectional LSTM's two
// directions, a step of ~6 us kernels each) run side by side. Kernels go to lanes in program
// order, each to the lane where it can start first given when the kernels it depends on end
// (estimated: work / kUnitsPerUs, plus the cost of waiting on another lane); the plan stands
// where its estimated end beats the program run one kernel at a time, big kernels split over
// every thread, by a margin.
constexpr double kMinSplitUnits = 2 * double(kMinPartCost); // (below it a kernel runs whole)

LanePlan stream_lanes(const Program& p, bool init, int threads) {
  const int lanes = std::min(threads, 2); // (two chains are what programs have; more would idle)
  if (lanes < 2) return {};
  const size_t n = p.kernels.size();
  double one_at_a_time = 0, all_alone = 0;
  size_t count = 0;
  for (const ProgramKernel& k : p.kernels) {
    if (k.init != init) continue;
    ++count;
    const bool splits =
        std::find(k.vars.begin(), k.vars.end(), std::string(kSplitStartVar)) != k.vars.end() &&
        work_of(k) >= kMinSplitUnits;
    one_at_a_time += splits ? alone_us(k) / threads + kHandOffUs : alone_us(k);
    all_alone += alone_us(k);
  }
  // no schedule on two lanes ends before half the work: where even that would not pay (the big
  // kernels already split), the kernels' sources are not read for their dependencies
  if (count < 2 || all_alone / lanes + kLanesStartUs > 0.75 * one_at_a_time) return {};
  std::vector<int> lane_of(n, 0);
  std::vector<double> end(n, 0), free(size_t(lanes), 0);
  const std::vector<std::vector<size_t>> deps = dependencies(p, init);
  for (size_t i = 0; i < n; ++i) {
    const ProgramKernel& k = p.kernels[i];
    if (k.init != init) continue;
    double best = 0;
    int best_lane = -1;
    for (int l = 0; l < lanes; ++l) {
      double start = free[size_t(l)];
      for (size_t d : deps[i]) start = std::max(start, end[d] + (lane_of[d] != l ? kCrossLaneUs : 0));
      if (best_lane < 0 || start < best) best = start, best_lane = l;
    }
    lane_of[i] = best_lane;
    end[i] = best + alone_us(k);
    free[size_t(best_lane)] = end[i];
  }
  const double makespan = *std::max_element(free.begin(), free.end());
  if (makespan + kLanesStartUs > 0.75 * one_at_a_time) return {};
  LanePlan plan = lanes_from(p, init, lanes, lane_of, deps);
  for (const auto& kernels : plan.kernels)
    if (kernels.empty()) return {};
  return plan;
}

} // namespace

LanePlan plan_lanes(const Program& p, bool init, int threads) {
  for (const ProgramKernel& k : p.kernels)
    if (k.init == init && !k.custom.empty()) return {}; // filled on the host, where a bad seed throws
  std::set<std::string> devices;
  for (const ProgramKernel& k : p.kernels) devices.insert(k.device);
  LanePlan plan = devices.size() > 1 ? device_lanes(p, init, threads) : LanePlan{};
  return plan.lanes > 1 ? plan : stream_lanes(p, init, threads);
}

} // namespace tg
