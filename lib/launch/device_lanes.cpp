#include "launch/device_lanes.h"

#include <algorithm>
#include <map>

namespace tg {

LanePlan plan_lanes(const Program& p, bool init, int threads) {
  LanePlan plan;
  // Devices go to lanes the same way for the init kernels and the step's, the busiest first to
  // the least busy lane (by their estimated work over the whole program).
  std::vector<std::string> devices; // by first kernel
  std::map<std::string, double> work;
  for (const ProgramKernel& k : p.kernels) {
    if (!work.count(k.device)) devices.push_back(k.device);
    work[k.device] += double(k.op_estimate + k.mem_estimate);
  }
  const int lanes = int(std::min<size_t>(devices.size(), size_t(std::max(threads, 1))));
  if (lanes < 2) return plan;
  std::vector<std::string> busiest = devices;
  std::stable_sort(busiest.begin(), busiest.end(), [&](auto& a, auto& b) { return work[a] > work[b]; });
  std::vector<double> load(size_t(lanes), 0);
  std::map<std::string, int> lane_of;
  for (const std::string& d : busiest) {
    int l = int(std::min_element(load.begin(), load.end()) - load.begin());
    lane_of[d] = l;
    load[size_t(l)] += work[d];
  }
  std::vector<double> cost(size_t(lanes), 0); // this range's
  for (const ProgramKernel& k : p.kernels) {
    if (k.init != init) continue;
    if (!k.custom.empty()) return plan; // filled on the host, where a bad seed throws
    cost[size_t(lane_of[k.device])] += double(k.op_estimate + k.mem_estimate);
  }
  // a lane with under half the work of the busiest would leave its thread idle most of the time,
  // while the busiest lane's kernels lose the split over every thread
  if (*std::min_element(cost.begin(), cost.end()) < 0.5 * *std::max_element(cost.begin(), cost.end()))
    return plan;

  plan.lanes = lanes;
  plan.kernels.resize(size_t(lanes));
  plan.waits.resize(size_t(lanes));
  struct Place {
    int lane;
    size_t pos;
  };
  // buffer -> the kernel that touched it last (any access: a kernel may write any of its buffers)
  std::map<int, Place> last;
  std::map<int, bool> constant;
  for (const BufferInfo& b : p.buffers) constant[b.id] = b.role == BufferRole::Constant;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const ProgramKernel& k = p.kernels[i];
    if (k.init != init) continue;
    const int lane = lane_of[k.device];
    const size_t pos = plan.kernels[size_t(lane)].size();
    std::map<int, size_t> need; // other lane -> kernels it must have run
    for (int id : k.bufs) {
      if (constant[id]) continue; // read only, by everyone
      auto it = last.find(id);
      if (it != last.end() && it->second.lane != lane) {
        size_t& n = need[it->second.lane];
        n = std::max(n, it->second.pos + 1);
      }
      last[id] = {lane, pos};
    }
    plan.kernels[size_t(lane)].push_back(i);
    plan.waits[size_t(lane)].emplace_back(need.begin(), need.end());
  }
  return plan;
}

} // namespace tg
