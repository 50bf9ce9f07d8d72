#include "launch/runner.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <list>
#include <optional>
#include <set>
#include <thread>

#include "device/registry.h"
#include "dist/nccl.h"
#include "io/artifact.h"
#include "random/numpy_rng.h"
#include "util/error.h"
#include "util/parallel.h"

namespace tg {

namespace {

const BufferInfo& buffer_by_id(const Program& p, int id) {
  for (const BufferInfo& b : p.buffers)
    if (b.id == id) return b;
  fail("RuntimeError", "program refers to unknown buffer " + std::to_string(id));
}

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

LaunchDims launch_dims(const ProgramKernel& k, const std::vector<VarBinding>& vars) {
  LaunchDims d;
  for (size_t i = 0; i < 3; ++i) {
    d.global[i] = i < k.global_size.size() ? eval_dim(k.global_size[i], vars) : 1;
    d.local[i] = i < k.local_size.size() ? k.local_size[i] : 1;
  }
  return d;
}

// What the device compiles: the kernels with source (a random kernel runs on the host), and no
// buffer data, which no compiler reads.
Program device_part(const Program& p) {
  Program d;
  d.device = p.device;
  for (const ProgramKernel& k : p.kernels)
    if (k.custom.empty()) d.kernels.push_back(k);
  return d;
}

bool has_custom(const Program& p) {
  return std::any_of(p.kernels.begin(), p.kernels.end(),
                     [](const ProgramKernel& k) { return !k.custom.empty(); });
}

} // namespace

void set_program_vars(Program& p, const std::vector<std::string>& assignments) {
  for (const std::string& a : assignments) {
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) fail("ValueError", "--var " + a + ": expected NAME=VALUE");
    std::string name = a.substr(0, eq), text = a.substr(eq + 1);
    auto it = std::find_if(p.vars.begin(), p.vars.end(), [&](const VarBinding& v) { return v.name == name; });
    if (it == p.vars.end()) {
      std::string names;
      for (const VarBinding& v : p.vars) names += (names.empty() ? "" : ", ") + v.name;
      fail("ValueError", "--var " + a + ": the program has no variable '" + name + "'" +
                             (names.empty() ? " (it has none)" : " (it has: " + names + ")"));
    }
    size_t used = 0;
    int64_t value = 0;
    try {
      value = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size())
      fail("ValueError", "--var " + a + ": '" + text + "' is not an integer");
    if (value < it->min || value > it->max)
      fail("ValueError", "--var " + a + ": " + name + " must be in [" + std::to_string(it->min) + ", " +
                             std::to_string(it->max) + "]");
    it->value = value;
  }
  if (assignments.empty()) return;
  try {
    validate_program(p);
  } catch (const Error& e) { // e.g. a view of a concrete buffer that a larger value reads past
    std::string all;
    for (const std::string& a : assignments) all += (all.empty() ? "" : " ") + a;
    throw Error(e.kind(), "--var " + all + ": " + e.what());
  }
}

CompiledProgram compile_program(const Program& p) {
  return device(p.device).compiler().compile(has_custom(p) ? device_part(p) : p);
}

// Device memory of the program's buffers, freed through the device's allocator.
struct ProgramRun::Memory {
  explicit Memory(Allocator& a) : allocator(a) {}
  ~Memory() {
    for (auto& [id, handle] : buffers) allocator.free(handle);
  }
  Allocator& allocator;
  std::map<int, void*> buffers;
};

ProgramRun::ProgramRun(const Program& p, const std::map<std::string, HostBuffer>& inputs,
                       bool trusted_extents, const Distribution* dist)
    : p_(p), device_(device(p.device)), dist_(dist) {
  if (dist_) rank_ = dist_->transport->rank();
  for (const BufferInfo& b : p.buffers)
    layout_.owner[b.id] = b.role == BufferRole::Constant ? -1
                          : dist_                        ? dist_->placement.rank_of(b.device)
                                                         : 0;
  for (const ProgramKernel& k : p.kernels)
    layout_.kernel_rank.push_back(dist_ ? dist_->placement.rank_of(k.device) : 0);
  if (dist_) {
    layout_.ranks = dist_->transport->size();
    order_ = dist_launch_order(p, layout_);
  } else {
    order_.resize(p.kernels.size());
    for (size_t k = 0; k < order_.size(); ++k) order_[k] = k;
  }
  std::vector<NamedBuffer> mine;
  for (const NamedBuffer& nb : p.inputs)
    if (owns(nb.buffer)) mine.push_back(nb);
  check_names("input", mine, inputs, true);
  for (const NamedBuffer& nb : mine)
    check_binding("input", {nb.name, nb.buffer, shape_at(nb.shape, p.vars), nb.dtype}, inputs.at(nb.name));
  if (has_custom(p)) device_program_ = device_part(p);
  const char* lanes_env = std::getenv("TG_LANES"); // 0: one kernel at a time (to compare)
  if (!dist_ && !(lanes_env && std::string(lanes_env) == "0"))
    for (bool init : {false, true}) lanes_[init ? 1 : 0] = plan_lanes(p, init, host_threads());
  const Program& dp = device_program_ ? *device_program_ : p;
  compiled_ = device_.compiler().compile(dp);
  mem_ = std::make_unique<Memory>(device_.allocator());
  try {
    loaded_ = device_.load(dp, compiled_);
  } catch (const Error&) {
    if (!compiled_.cache_hit) throw;
    // A damaged cache entry (truncated by a full disk, or written by another version) would
    // fail every later run: rebuild it once.
    std::error_code ec;
    std::filesystem::remove(compiled_.file, ec);
    compiled_ = device_.compiler().compile(dp);
    loaded_ = device_.load(dp, compiled_);
  }
  // An intermediate of a trusted program gets the bytes its kernels touch (their extents at the
  // variables' values), not more: a table declaring gigabytes for a few used bytes costs nothing.
  std::map<int, int64_t> touched;
  for (const ProgramKernel& k : p.kernels)
    for (size_t j = 0; j < k.bufs.size() && j < k.extents.size(); ++j) {
      const BufferInfo& b = buffer_by_id(p, k.bufs[j]);
      int64_t bytes =
          k.custom.empty() ? eval_dim(k.extents[j], p.vars) : b.size * itemsize(b.dtype); // random: all
      touched[k.bufs[j]] = std::max(touched[k.bufs[j]], bytes);
    }
  // Distributed: the buffers of this process's devices, and those its kernels read from others.
  std::set<int> needed;
  for (size_t i = 0; i < p.kernels.size(); ++i)
    if (layout_.kernel_rank[i] == rank_) needed.insert(p.kernels[i].bufs.begin(), p.kernels[i].bufs.end());
  for (const BufferInfo& b : p.buffers) {
    size_t bytes = size_t(b.size) * size_t(itemsize(b.dtype));
    if (trusted_extents && b.role == BufferRole::Intermediate)
      bytes = std::min(bytes, size_t(std::max<int64_t>(touched[b.id], 0)));
    layout_.bytes[b.id] = bytes;
    if (dist_ && !owns(b.id) && !needed.count(b.id)) continue;
    void* m = mem_->allocator.alloc(bytes);
    mem_->buffers[b.id] = m;
    if (b.role == BufferRole::Constant) {
      check(b.data.size() == bytes, "RuntimeError",
            "constant buffer " + std::to_string(b.id) + " carries " + std::to_string(b.data.size()) +
                " bytes, expected " + std::to_string(bytes));
      mem_->allocator.copyin(m, b.data.data(), bytes);
    }
  }
  if (dist_) exchanges_ = plan_exchanges(p, layout_, order_);
  for (const NamedBuffer& nb : mine) copy_in(nb, inputs.at(nb.name));
  // A CUDA program's buffers move GPU to GPU through NCCL where every process can load it (they
  // agree first: a communicator is made by all or none); else through host memory and MPI.
  if (dist_ && p.device == "CUDA" && dist_->transport->size() > 1) {
    const char* off = std::getenv("TG_NCCL_OFF");
    uint8_t ok = 1;
    try {
      if (off && *off && std::string(off) != "0")
        ok = 0;
      else
        nccl_version();
    } catch (const Error&) {
      ok = 0;
    }
    std::vector<uint8_t> all(size_t(dist_->transport->size()));
    dist_->transport->allgather(&ok, 1, all.data());
    if (std::all_of(all.begin(), all.end(), [](uint8_t x) { return x == 1; })) {
      // (two processes on one GPU: NCCL refuses them all, and they go through MPI as before)
      try {
        nccl_ = std::make_unique<NcclComm>(*dist_->transport);
      } catch (const Error&) {
        ok = 0;
      }
      dist_->transport->allgather(&ok, 1, all.data());
      if (!std::all_of(all.begin(), all.end(), [](uint8_t x) { return x == 1; })) nccl_.reset();
    }
  }
  int device_index = 0;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const ProgramKernel& k = p.kernels[i];
    device_index_.push_back(k.custom.empty() ? device_index++ : -1);
    std::vector<void*> args;
    for (int id : k.bufs) {
      auto it = mem_->buffers.find(id);
      if (!layout_.owner.count(id))
        fail("RuntimeError", "kernel '" + k.name + "' uses unknown buffer " + std::to_string(id));
      args.push_back(it == mem_->buffers.end() ? nullptr : it->second); // (a kernel of another process)
    }
    args_.push_back(std::move(args));
    dims_.push_back(launch_dims(k, p.vars));
    // The split range's bounds default to the whole range (an open end: the kernel knows its
    // own); other int parameters are the program's symbolic variables.
    std::vector<int32_t> vars;
    for (const std::string& v : k.vars) {
      auto var = std::find_if(p.vars.begin(), p.vars.end(), [&](const VarBinding& b) { return b.name == v; });
      if (v == kSplitEndVar)
        vars.push_back(INT32_MAX);
      else if (v == kSplitStartVar)
        vars.push_back(0);
      else if (var != p.vars.end())
        vars.push_back(int32_t(var->value));
      else
        fail("RuntimeError", "kernel '" + k.name + "' needs a value for variable '" + v + "'");
    }
    vars_.push_back(std::move(vars));
    const BufferRole first = k.bufs.empty() ? BufferRole::Intermediate : buffer_by_id(p, k.bufs[0]).role;
    in_place_.push_back(first == BufferRole::State || first == BufferRole::Input);
  }
}

ProgramRun::~ProgramRun() {
  loaded_.reset(); // the program before the memory it ran on
}

void ProgramRun::copy_in(const NamedBuffer& nb, const HostBuffer& hb) {
  const BufferInfo& b = buffer_by_id(p_, nb.buffer);
  check(hb.data.size() <= size_t(b.size) * size_t(itemsize(b.dtype)), "RuntimeError",
        "'" + nb.name + "' does not fit its buffer");
  mem_->allocator.copyin(mem_->buffers.at(nb.buffer), hb.data.data(), hb.data.size());
}

HostBuffer ProgramRun::copy_out(const NamedBuffer& nb) const {
  const BufferInfo& b = buffer_by_id(p_, nb.buffer);
  Shape shape = shape_at(nb.shape, p_.vars);
  size_t bytes = size_t(prod(shape)) * size_t(itemsize(nb.dtype));
  check(bytes <= size_t(b.size) * size_t(itemsize(b.dtype)), "RuntimeError",
        "'" + nb.name + "' is larger than its buffer");
  HostBuffer hb{nb.dtype, shape, std::vector<uint8_t>(bytes)};
  loaded_->synchronize();
  mem_->allocator.copyout(hb.data.data(), mem_->buffers.at(nb.buffer), bytes);
  return hb;
}

void ProgramRun::load_states(const std::map<std::string, HostBuffer>& states) {
  check_names("state", p_.states, states, !dist_);
  for (const NamedBuffer& nb : p_.states) {
    if (!owns(nb.buffer)) continue;
    if (!states.count(nb.name)) fail("ValueError", "missing state '" + nb.name + "'");
    check_binding("state", nb, states.at(nb.name));
    copy_in(nb, states.at(nb.name));
  }
  states_ready_ = true;
}

bool ProgramRun::owns(int buffer) const {
  auto it = layout_.owner.find(buffer);
  return it != layout_.owner.end() && (it->second < 0 || it->second == rank_);
}
bool ProgramRun::owns_input(const std::string& name) const {
  for (const NamedBuffer& nb : p_.inputs)
    if (nb.name == name) return owns(nb.buffer);
  return true; // (an unknown name: the constructor names it)
}
bool ProgramRun::owns_state(const std::string& name) const {
  for (const NamedBuffer& nb : p_.states)
    if (nb.name == name) return owns(nb.buffer);
  return false;
}

// Before the kernel at order_[pos] runs on its process, the buffers it reads that other
// processes hold come from them, as planned (dist_plan.h).
void ProgramRun::exchange_reads(size_t pos, std::vector<KernelEvent>* events) {
  const Exchange& x = exchanges_[pos];
  if (x.empty()) return;
  const size_t i = order_[pos];
  auto t0 = std::chrono::steady_clock::now();
  auto record = [&](const char* what, size_t bytes) {
    if (!events) return;
    auto t1 = std::chrono::steady_clock::now();
    events->push_back({i, steps_run_, std::chrono::duration<double, std::micro>(t0 - start_).count(),
                       std::chrono::duration<double, std::micro>(t1 - t0).count(), what, bytes});
  };
  Transport& transport = *dist_->transport;
  if (nccl_) { // device to device, every move of this process in one NCCL group
    std::vector<Transport::Move> moves;
    size_t moved = 0;
    for (const BufferMove& r : x.every_move())
      if (rank_ == r.from || rank_ == r.to) {
        moves.push_back({mem_->buffers.at(r.id), layout_.bytes.at(r.id), rank_ == r.from ? r.to : r.from,
                         rank_ == r.from});
        moved += layout_.bytes.at(r.id);
      }
    if (moves.empty()) return;
    nccl_->exchange(moves);
    record("nccl", moved);
    return;
  }
  bool synced_for_allgather = false;
  for (const std::vector<int>& shards : x.allgathers) {
    if (!synced_for_allgather) loaded_->synchronize(); // this process's kernels still write its shard
    synced_for_allgather = true;
    const size_t bytes = layout_.bytes.at(shards[0]);
    const int ranks = transport.size();
    // Large shards in host memory move pairwise straight into their buffers (each rank sends
    // its shard to every other at once): an allgather would stage them all in one more buffer
    // and copy them out again, which costs more than the messages for a 16 MB shard.
    constexpr size_t kPairwiseBytes = size_t(1) << 20;
    if (bytes >= kPairwiseBytes && mem_->allocator.host_view(mem_->buffers.at(shards[0]))) {
      std::vector<Transport::Move> moves;
      for (int s = 0; s < ranks; ++s)
        if (s != rank_) {
          moves.push_back({mem_->buffers.at(shards[size_t(rank_)]), bytes, s, true});
          moves.push_back({mem_->buffers.at(shards[size_t(s)]), bytes, s, false});
        }
      transport.exchange(moves);
      record("allgather", bytes * size_t(ranks));
      t0 = std::chrono::steady_clock::now();
      continue;
    }
    std::vector<uint8_t> all(bytes * size_t(ranks)), staged;
    void* mine = mem_->allocator.host_view(mem_->buffers.at(shards[size_t(rank_)]));
    if (!mine) {
      staged.resize(bytes);
      mem_->allocator.copyout(staged.data(), mem_->buffers.at(shards[size_t(rank_)]), bytes);
      mine = staged.data();
    }
    transport.allgather(mine, bytes, all.data());
    for (int s = 0; s < ranks; ++s) {
      if (s == rank_) continue;
      void* buf = mem_->buffers.at(shards[size_t(s)]);
      if (void* view = mem_->allocator.host_view(buf))
        std::memcpy(view, all.data() + size_t(s) * bytes, bytes);
      else
        mem_->allocator.copyin(buf, all.data() + size_t(s) * bytes, bytes);
    }
    record("allgather", bytes * size_t(ranks));
    t0 = std::chrono::steady_clock::now();
  }
  std::vector<Transport::Move> moves;
  std::vector<std::pair<int, std::vector<uint8_t>>> staged_in; // device buffers: copied in after
  std::list<std::vector<uint8_t>> staged_out;
  bool synced = synced_for_allgather;
  size_t moved = 0;
  for (const BufferMove& r : x.moves) {
    if (rank_ != r.from && rank_ != r.to) continue;
    if (!synced) loaded_->synchronize(); // this process's kernels still read or write them
    synced = true;
    size_t bytes = layout_.bytes.at(r.id);
    void* view = mem_->allocator.host_view(mem_->buffers.at(r.id)); // host memory: no staging copy
    if (!view && rank_ == r.from) {
      view = staged_out.emplace_back(bytes).data();
      mem_->allocator.copyout(view, mem_->buffers.at(r.id), bytes);
    } else if (!view) {
      view = staged_in.emplace_back(r.id, std::vector<uint8_t>(bytes)).second.data();
    }
    moves.push_back({view, bytes, rank_ == r.from ? r.to : r.from, rank_ == r.from});
    moved += bytes;
  }
  if (moves.empty()) return;
  transport.exchange(moves);
  for (auto& [id, data] : staged_in) mem_->allocator.copyin(mem_->buffers.at(id), data.data(), data.size());
  record("point-to-point", moved);
}

HostBuffer ProgramRun::gather(const NamedBuffer& nb) const {
  if (!dist_) return copy_out(nb);
  int o = std::max(layout_.owner.at(nb.buffer), 0);
  if (o == 0) return rank_ == 0 ? copy_out(nb) : HostBuffer{};
  if (rank_ == o) {
    HostBuffer hb = copy_out(nb);
    dist_->transport->send(hb.data.data(), hb.data.size(), 0);
    return {};
  }
  if (rank_ != 0) return {};
  Shape shape = shape_at(nb.shape, p_.vars);
  HostBuffer hb{nb.dtype, shape, std::vector<uint8_t>(size_t(prod(shape)) * size_t(itemsize(nb.dtype)))};
  dist_->transport->recv(hb.data.data(), hb.data.size(), o);
  return hb;
}

void ProgramRun::set_input(const std::string& name, const HostBuffer& value) {
  for (const NamedBuffer& nb : p_.inputs) {
    if (nb.name != name) continue;
    if (!owns(nb.buffer)) return; // another process's
    check_binding("input", {nb.name, nb.buffer, shape_at(nb.shape, p_.vars), nb.dtype}, value);
    loaded_->synchronize(); // the last step's kernels may still read it
    copy_in(nb, value);
    return;
  }
  fail("ValueError", "the program has no input '" + name + "'");
}

void ProgramRun::launch(size_t i) {
  const LaunchDims& d = dims_[i];
  if (d.global[0] == 0 || d.global[1] == 0 || d.global[2] == 0) return; // a symbolic size of 0
  if (device_index_[i] >= 0)
    return loaded_->launch(size_t(device_index_[i]), args_[i].data(), vars_[i].data(), dims_[i]);
  fill_random(i);
}

// tinygrad's custom_random: the buffer gets numpy's default_rng(seed) numbers, made on the host
// and copied in (as Buffer.copyin does), the seed read from the device when it is a buffer.
void ProgramRun::fill_random(size_t i) {
  const ProgramKernel& k = p_.kernels[i];
  int64_t seed = k.seed;
  if (k.bufs.size() > 1) {
    int64_t base = 0;
    loaded_->synchronize();
    mem_->allocator.copyout(&base, args_[i][1], sizeof base);
    seed += base;
  }
  if (seed < 0) fail("ValueError", "expected non-negative integer");
  const BufferInfo& out = buffer_by_id(p_, k.bufs[0]);
  std::vector<uint8_t> data(size_t(out.size) * size_t(itemsize(out.dtype)));
  numpy_random_fill(uint64_t(seed), out.dtype, size_t(out.size), data.data());
  loaded_->synchronize();
  mem_->allocator.copyin(args_[i][0], data.data(), data.size());
}

// The lanes of a plan at once (lanes.h). Each thread runs its own lane's kernels in order and,
// while the next of them waits for another lane, that lane's next kernel if it is ready: a lane's
// kernel is claimed by one thread once the one before it has ended, so each lane still runs in
// order, and a thread the system has not scheduled holds nothing up (the other thread runs its
// lane). False where the device cannot run lanes.
bool ProgramRun::run_lanes(const LanePlan& plan, std::vector<KernelEvent>* events) {
  const size_t lanes = size_t(plan.lanes);
  struct Context {
    ProgramRun* run;
    const LanePlan* plan;
    std::unique_ptr<std::atomic<size_t>[]> done;    // per lane: kernels ended
    std::unique_ptr<std::atomic<size_t>[]> claimed; // per lane: kernels taken by a thread
    std::vector<std::vector<KernelEvent>> events;   // per thread
    bool timed;
  } c{this,
      &plan,
      std::make_unique<std::atomic<size_t>[]>(lanes),
      std::make_unique<std::atomic<size_t>[]>(lanes),
      std::vector<std::vector<KernelEvent>>(lanes),
      events != nullptr};
  for (size_t l = 0; l < lanes; ++l) c.done[l].store(0), c.claimed[l].store(0);
  auto thread = [](void* context, int me) {
    Context& c = *static_cast<Context*>(context);
    const size_t lanes = size_t(c.plan->lanes);
    // the next kernel of lane l, if it is ready and this thread takes it
    auto take = [&](size_t l, size_t& pos) {
      pos = c.done[l].load(std::memory_order_acquire);
      if (pos == c.plan->kernels[l].size()) return false;
      for (auto [other, need] : c.plan->waits[l][pos])
        if (c.done[size_t(other)].load(std::memory_order_acquire) < need) return false;
      size_t expected = pos;
      return c.claimed[l].compare_exchange_strong(expected, pos + 1);
    };
    for (int idle = 0;;) {
      bool ran = false, left = false;
      for (size_t o = 0; o < lanes && !ran; ++o) {
        const size_t l = (size_t(me) + o) % lanes;
        if (c.done[l].load(std::memory_order_acquire) < c.plan->kernels[l].size()) left = true;
        size_t pos = 0;
        if (!take(l, pos)) continue;
        const size_t i = c.plan->kernels[l][pos];
        auto t0 = std::chrono::steady_clock::now();
        c.run->launch(i);
        if (c.timed) {
          auto t1 = std::chrono::steady_clock::now();
          c.events[size_t(me)].push_back(
              {i, c.run->steps_run_, std::chrono::duration<double, std::micro>(t0 - c.run->start_).count(),
               std::chrono::duration<double, std::micro>(t1 - t0).count(), "", 0, int(l)});
        }
        c.done[l].store(pos + 1, std::memory_order_release);
        ran = true;
      }
      if (!left) return;
      if (ran)
        idle = 0;
      else if (++idle > 64)
        std::this_thread::yield();
    }
  };
  if (!loaded_->run_lanes(plan.lanes, thread, &c)) return false;
  if (events)
    for (auto& mine : c.events) events->insert(events->end(), mine.begin(), mine.end());
  return true;
}

void ProgramRun::launch_range(bool init, const RunOptions& options) {
  // devices at once, where the program has several of similar work (not when timing kernels)
  const LanePlan& lanes = lanes_[init ? 1 : 0];
  if (lanes.lanes > 1 && !options.kernel_seconds && run_lanes(lanes, options.events)) return;
  for (size_t pos = 0; pos < order_.size(); pos++) {
    const size_t i = order_[pos];
    if (p_.kernels[i].init != init) continue;
    if (dist_) {
      exchange_reads(pos, options.events);
      if (layout_.kernel_rank[i] != rank_) continue;
    }
    if (options.events) {
      auto t0 = std::chrono::steady_clock::now();
      launch(i);
      loaded_->synchronize();
      auto t1 = std::chrono::steady_clock::now();
      options.events->push_back({i, steps_run_,
                                 std::chrono::duration<double, std::micro>(t0 - start_).count(),
                                 std::chrono::duration<double, std::micro>(t1 - t0).count()});
      continue;
    }
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
      loaded_->synchronize();
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = r == 0 ? dt : std::min(best, dt);
      if (options.give_up > 0 && dt > options.give_up) break;
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
  ++steps_run_;
}

std::map<std::string, HostBuffer> ProgramRun::outputs() const {
  std::map<std::string, HostBuffer> out;
  for (const NamedBuffer& nb : p_.outputs) {
    HostBuffer hb = gather(nb);
    if (rank_ == 0) out[nb.name] = std::move(hb);
  }
  return out;
}

HostBuffer ProgramRun::output(const std::string& name) const {
  for (const NamedBuffer& nb : p_.outputs)
    if (nb.name == name) return gather(nb);
  fail("ValueError", "unknown output '" + name + "'");
}

std::vector<std::pair<std::string, HostBuffer>> ProgramRun::states() const {
  std::vector<std::pair<std::string, HostBuffer>> out;
  for (const NamedBuffer& nb : p_.states) {
    HostBuffer hb = gather(nb);
    if (rank_ == 0) out.emplace_back(nb.name, std::move(hb));
  }
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
