#include "launch/dist_plan.h"

#include <algorithm>
#include <set>

namespace tg {

bool DistLayout::reads_elsewhere(const ProgramKernel& k, size_t i) const {
  for (int id : k.bufs)
    if (owner.at(id) >= 0 && owner.at(id) != kernel_rank[i]) return true;
  return false;
}

std::vector<BufferMove> Exchange::every_move() const {
  std::vector<BufferMove> all;
  for (const std::vector<int>& shards : allgathers)
    for (size_t from = 0; from < shards.size(); ++from)
      for (size_t to = 0; to < shards.size(); ++to)
        if (to != from) all.push_back({shards[from], int(from), int(to)});
  all.insert(all.end(), moves.begin(), moves.end());
  return all;
}

// tinygrad's schedule copies each device's shard of an all-reduce as soon as it is computed, so
// the copies of one all-reduce are spread between the kernels that compute the other shards;
// sunk, they meet where every shard is ready and move as one allgather. A copy computes
// nothing: the results stay bit for bit.
std::vector<size_t> dist_launch_order(const Program& p, const DistLayout& layout) {
  const size_t n = p.kernels.size();
  std::vector<bool> copies(n);
  for (size_t k = 0; k < n; ++k) copies[k] = layout.reads_elsewhere(p.kernels[k], k);
  auto has = [](const ProgramKernel& x, int id) {
    return std::find(x.bufs.begin(), x.bufs.end(), id) != x.bufs.end();
  };
  std::vector<std::vector<size_t>> sunk(n + 1); // kernels to launch right before position j
  std::vector<bool> moved(n, false);
  for (size_t k = 0; k < n; ++k) {
    if (!copies[k]) continue;
    const ProgramKernel& c = p.kernels[k];
    size_t j = k + 1;
    for (; j < n && p.kernels[j].init == c.init; ++j) {
      const ProgramKernel& other = p.kernels[j];
      bool conflict = has(other, c.bufs[0]);
      if (copies[j]) // such a copy writes only its first buffer
        conflict |= has(c, other.bufs[0]);
      else
        for (int id : c.bufs) conflict |= has(other, id);
      if (conflict) break;
    }
    if (j == k + 1) continue;
    moved[k] = true;
    sunk[j].push_back(k);
  }
  std::vector<size_t> order;
  order.reserve(n);
  for (size_t j = 0; j <= n; ++j) {
    for (size_t k : sunk[j]) order.push_back(k);
    if (j < n && !moved[j]) order.push_back(j);
  }
  return order;
}

namespace {

// tinygrad's naive all-reduce with one device per process: every process's shard read by every
// other process. That is an allgather, one collective instead of N(N-1) messages; the shards
// land in the same buffers, so each device then adds them in device order as before. Takes
// such groups out of `reads` (N buffers of one size, one owned by each process, each read by
// all the others), in the order their buffers are first read; what is left moves point to point.
std::vector<std::vector<int>> take_allgathers(std::vector<BufferMove>& reads, int ranks,
                                              const std::map<int, size_t>& bytes) {
  std::vector<std::vector<int>> groups;
  if (ranks < 2) return groups;
  std::map<int, std::set<int>> readers; // buffer -> the processes that read it
  std::vector<int> order;               // buffers, by first read
  std::map<int, int> owner;
  for (const BufferMove& r : reads) {
    if (readers[r.id].empty()) order.push_back(r.id);
    readers[r.id].insert(r.to);
    owner[r.id] = r.from;
  }
  // (any N such buffers may travel together, whichever all-reduce each belongs to)
  struct Open {
    std::vector<int> shard;
    size_t bytes, filled;
  };
  std::vector<Open> open;
  std::set<int> grouped;
  for (int id : order) {
    if (readers[id].size() != size_t(ranks - 1)) continue;
    const size_t o = size_t(owner[id]), b = bytes.at(id);
    auto g =
        std::find_if(open.begin(), open.end(), [&](const Open& x) { return x.bytes == b && x.shard[o] < 0; });
    if (g == open.end()) g = open.insert(open.end(), Open{std::vector<int>(size_t(ranks), -1), b, 0});
    g->shard[o] = id;
    if (++g->filled < size_t(ranks)) continue;
    groups.push_back(g->shard);
    grouped.insert(g->shard.begin(), g->shard.end());
    open.erase(g);
  }
  std::erase_if(reads, [&](const BufferMove& r) { return grouped.count(r.id) != 0; });
  return groups;
}

struct Reader {
  size_t pos;
  std::vector<BufferMove> reads;
  std::set<int> passed; // the processes of the kernels looked past before it
};

Exchange exchange_of(const std::vector<Reader>& readers, size_t n, int ranks,
                     const std::map<int, size_t>& bytes) {
  Exchange x;
  std::set<std::pair<int, int>> listed; // (buffer, to)
  for (size_t r = 0; r < n; ++r)
    for (const BufferMove& m : readers[r].reads)
      if (listed.insert({m.id, m.to}).second) x.moves.push_back(m);
  x.allgathers = take_allgathers(x.moves, ranks, bytes);
  return x;
}

} // namespace

// Before the kernel at a position runs, the buffers it reads that other processes hold come from
// them. The reads of a run of such kernels move in one exchange (an all-reduce's copies both ways
// at once), as long as none reads what an earlier one of the run touches. Kernels that read
// nothing from elsewhere are looked past, up to a few: an all-reduce's adds on one device stand
// between its copies to the next. A read moves ahead of such kernels only where it completes an
// allgather, or where none of them runs on its two processes: a copy pulled ahead of its
// receiver's own kernels would make the receiver wait for the sender's work before doing its own.
std::vector<Exchange> plan_exchanges(const Program& p, const DistLayout& layout,
                                     const std::vector<size_t>& order) {
  std::vector<Exchange> plan(order.size());
  auto reads_of = [&](size_t k) {
    std::vector<BufferMove> out;
    for (int id : p.kernels[k].bufs) {
      int o = layout.owner.at(id);
      if (o >= 0 && o != layout.kernel_rank[k]) out.push_back({id, o, layout.kernel_rank[k]});
    }
    return out;
  };
  constexpr size_t kLookPast = 16;
  for (size_t pos = 0; pos < order.size();) {
    const size_t i = order[pos];
    std::vector<Reader> readers;
    std::set<int> touched; // what the kernels of the run before the reader may write
    std::set<int> passed;
    for (size_t q = pos, idle = 0; q < order.size() && p.kernels[order[q]].init == p.kernels[i].init; ++q) {
      const size_t k = order[q];
      std::vector<BufferMove> rk = reads_of(k);
      if (q == pos && rk.empty()) break;
      if (std::any_of(rk.begin(), rk.end(), [&](const BufferMove& r) { return touched.count(r.id); })) break;
      if (rk.empty()) {
        if (++idle > kLookPast) break;
        passed.insert(layout.kernel_rank[k]);
      } else {
        idle = 0;
        readers.push_back({q, rk, passed});
      }
      // a copy between devices writes its first buffer only; another kernel may write any of its
      if (!rk.empty())
        touched.insert(p.kernels[k].bufs[0]);
      else
        touched.insert(p.kernels[k].bufs.begin(), p.kernels[k].bufs.end());
    }
    if (readers.empty()) {
      ++pos;
      continue;
    }
    // Drop the readers from the first one with a point-to-point read that may not move ahead
    // (dropping may break a group that had one of them: check again).
    size_t n = readers.size();
    Exchange x = exchange_of(readers, n, layout.ranks, layout.bytes);
    for (bool cut = true; cut;) {
      cut = false;
      std::set<int> point_to_point;
      for (const BufferMove& m : x.moves) point_to_point.insert(m.id);
      for (size_t r = 1; r < n && !cut; ++r) {
        const std::set<int>& ranks = readers[r].passed;
        auto held_back = [&](const BufferMove& m) {
          return point_to_point.count(m.id) && (ranks.count(m.from) || ranks.count(m.to));
        };
        if (std::none_of(readers[r].reads.begin(), readers[r].reads.end(), held_back)) continue;
        n = r;
        x = exchange_of(readers, n, layout.ranks, layout.bytes);
        cut = true;
      }
    }
    plan[pos] = std::move(x);
    pos = readers[n - 1].pos + 1;
  }
  return plan;
}

} // namespace tg
