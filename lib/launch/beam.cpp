#include "launch/beam.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <unordered_set>

#include "codegen/ast_key.h"
#include "codegen/codegen.h"
#include "dtype/dtype_bytes.h"
#include "launch/runner.h"
#include "runtime/compile_cache.h"

namespace tg {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxRounds = 16;
constexpr int kRepeat = 3;
// Before a search's fastest kernel replaces tg's, both are timed again in turns, kConfirmRuns
// times each (the best of kRepeat launches every time), and the fastest must beat tg's best by
// kMargin: a kernel the search calls faster is then faster when tg-run times it (issue 28: a
// 1024 matmul's BEAM kernel ran 30% slower than tg's under tg-run --time).
constexpr int kConfirmRuns = 5;
constexpr double kMargin = 0.05;

// tinygrad 0.9.1's search.py action space (TC and the GPU-only ones are refused by apply_opt
// on targets without them; NOLOCALS, which tinygrad adds under NOLOCALS=1, is always in).
const std::vector<Opt>& actions() {
  static const std::vector<Opt> all = [] {
    std::vector<Opt> a;
    for (int64_t amt : {0, 2, 3, 4, 5, 7})
      for (int axis = 0; axis < 6; ++axis) a.push_back({OptOps::UPCAST, axis, amt});
    for (int64_t amt : {0, 4, 7})
      for (int axis = 0; axis < 5; ++axis) a.push_back({OptOps::UNROLL, axis, amt});
    for (int64_t amt : {2, 3, 4, 8, 13, 16, 29})
      for (int axis = 0; axis < 5; ++axis) a.push_back({OptOps::LOCAL, axis, amt});
    for (int64_t amt : {13, 16, 28, 29, 32, 49, 64, 256})
      for (int axis = 0; axis < 3; ++axis) a.push_back({OptOps::GROUPTOP, axis, amt});
    for (int64_t amt : {0, 4, 8, 16})
      for (int axis = 0; axis < 3; ++axis) a.push_back({OptOps::GROUP, axis, amt});
    for (int axis = 0; axis < 7; ++axis) a.push_back({OptOps::PADTO, axis, 32});
    a.push_back({OptOps::LOCAL, 0, 32});
    a.push_back({OptOps::UPCASTMID, 1, 4});
    a.push_back({OptOps::TC, 0, 0});
    for (int axis = 0; axis < 9; ++axis) // (covers ResNet's kernels: 3 global * 3 reduce axes)
      a.push_back({OptOps::TC, axis, tc_opt_setting(2)});
    a.push_back({OptOps::NOLOCALS, std::nullopt, std::nullopt});
    return a;
  }();
  return all;
}

// At most 256 upcast combinations (search.py's limit), or 64 vectors: more only bloats the
// source, and clang needs minutes for some of those.
bool upcast_ok(const Kernel& k) {
  int64_t up = 1;
  const Shape& full = k.full_shape();
  for (int i = k.shape_len() - k.upcasted; i < k.shape_len(); ++i) up *= full[size_t(i)];
  return k.lanes > 1 ? up / k.lanes <= 64 : up <= 256;
}
// A candidate whose source is larger than this is not tried (it would cost more to compile
// than a search is worth).
constexpr size_t kMaxSource = 48 * 1024;

struct Candidate {
  Kernel k;
  bool from_tg;
  std::vector<Opt> opts;
  LoweredKernel lk; // rendered as a function named "beam": equal sources are one candidate
  double seconds = kInf;
};

// The candidate's source with its function named `name` instead of "beam": it is lowered once,
// and each of a round's candidates needs a name of its own in the round's program.
std::string renamed(const std::string& src, const std::string& name) {
  size_t at = src.find(" beam(");
  if (at == std::string::npos) fail("RuntimeError", "beam: cannot find the kernel's function in its source");
  return src.substr(0, at + 1) + name + src.substr(at + 5);
}

// A candidate as a kernel of a timing or checking program, named `name`, over `bufs`.
ProgramKernel program_kernel_of(const Candidate& c, const ScheduleKernel& sk, const std::vector<int>& bufs,
                                const std::string& name) {
  LoweredKernel lk = c.lk;
  lk.src = renamed(lk.src, name);
  ScheduleKernel plain = sk;
  plain.bufs = bufs;
  plain.init = false;
  return program_kernel(lk, plain, name);
}

// Times every candidate: one program with a kernel per candidate, over copies of the kernel's
// buffers (inputs and outputs become scratch; constants keep their data).
void time_candidates(std::vector<Candidate*>& cs, const ScheduleKernel& sk, const Schedule& s, Device& device,
                     double give_up) {
  if (cs.empty()) return;
  Program p;
  p.device = device.name();
  std::unordered_set<int> ids(sk.bufs.begin(), sk.bufs.end());
  for (const BufferInfo& b : s.buffers) {
    if (!ids.count(b.id)) continue;
    BufferInfo copy = b;
    if (copy.role != BufferRole::Constant) copy.role = BufferRole::Intermediate, copy.name.clear();
    p.buffers.push_back(std::move(copy));
  }
  for (size_t i = 0; i < cs.size(); ++i)
    p.kernels.push_back(program_kernel_of(*cs[i], sk, sk.bufs, "beam_" + std::to_string(i)));
  ProgramRun run(p, {});
  std::vector<double> seconds;
  RunOptions o;
  o.kernel_seconds = &seconds;
  o.repeat = kRepeat;
  o.give_up = give_up;
  run.step(o);
  static const bool debug = [] {
    const char* v = std::getenv("TG_BEAM_DEBUG");
    return v && *v && std::string(v) != "0";
  }();
  for (size_t i = 0; i < cs.size(); ++i) {
    cs[i]->seconds = seconds.at(i);
    if (!debug) continue;
    std::string opts;
    for (const Opt& o : cs[i]->k.applied_opts) opts += " " + o.repr();
    std::fprintf(stderr, "beam: %9.3f ms %s:%s\n", cs[i]->seconds * 1e3, cs[i]->k.name().c_str(),
                 opts.c_str());
  }
}

// Runs `a` and `b`, two ways to compute `sk`, on the same random inputs: whether their outputs
// agree (ints and bools exactly; floats within 1e-3 of the largest magnitude, since a search
// reorders sums). A search keeps nothing it has not checked this way.
bool same_results(const Candidate& a, const Candidate& b, const ScheduleKernel& sk, const Schedule& s,
                  Device& device) {
  size_t n_out = sk.ast.size();
  std::unordered_set<int> distinct(sk.bufs.begin(), sk.bufs.end());
  if (distinct.size() != sk.bufs.size()) return false; // writes what it reads: not checked, not kept
  Program p;
  p.device = device.name();
  int next_id = 0;
  for (const BufferInfo& info : s.buffers) next_id = std::max(next_id, info.id + 1);
  std::vector<int> b_bufs = sk.bufs;
  std::map<std::string, HostBuffer> inputs;
  std::mt19937 rng(0);
  for (size_t i = 0; i < sk.bufs.size(); ++i) {
    const BufferInfo* found = nullptr;
    for (const BufferInfo& info : s.buffers)
      if (info.id == sk.bufs[i]) found = &info;
    if (!found) return false;
    BufferInfo copy = *found;
    std::string name = "b" + std::to_string(i);
    if (i < n_out) {
      copy.role = BufferRole::Output, copy.name = "a" + std::to_string(i);
      BufferInfo twin = copy;
      twin.id = b_bufs[i] = next_id++, twin.name = name;
      p.buffers.push_back(twin);
      p.outputs.push_back({twin.name, twin.id, {twin.size}, twin.dtype});
      p.outputs.push_back({copy.name, copy.id, {copy.size}, copy.dtype});
    } else if (copy.role != BufferRole::Constant) {
      copy.role = BufferRole::Input, copy.name = name;
      HostBuffer hb{copy.dtype, {copy.size}, std::vector<uint8_t>(size_t(copy.size) * itemsize(copy.dtype))};
      std::uniform_real_distribution<double> uni(-1.0, 1.0);
      for (int64_t e = 0; e < copy.size; ++e) {
        double v = uni(rng);
        Scalar x = is_float(copy.dtype)        ? Scalar::of_float(v)
                   : copy.dtype == DType::Bool ? Scalar::of_bool(v > 0)
                                               : Scalar::of_int(int64_t(std::floor(v * 8)));
        store_element(hb.data.data() + size_t(e) * itemsize(copy.dtype), x, copy.dtype);
      }
      inputs[name] = std::move(hb);
      p.inputs.push_back({name, copy.id, {copy.size}, copy.dtype});
    }
    p.buffers.push_back(std::move(copy));
  }
  p.kernels.push_back(program_kernel_of(a, sk, sk.bufs, "check_a"));
  p.kernels.push_back(program_kernel_of(b, sk, b_bufs, "check_b"));
  std::map<std::string, HostBuffer> out = run_program(p, inputs);
  for (size_t i = 0; i < n_out; ++i) {
    const HostBuffer &x = out.at("a" + std::to_string(i)), &y = out.at("b" + std::to_string(i));
    size_t size = itemsize(x.dtype), n = x.data.size() / size;
    double scale = 0;
    for (size_t e = 0; e < n; ++e)
      scale = std::max(scale, std::fabs(load_element(&x.data[e * size], x.dtype).as_double()));
    for (size_t e = 0; e < n; ++e) {
      double u = load_element(&x.data[e * size], x.dtype).as_double();
      double v = load_element(&y.data[e * size], y.dtype).as_double();
      bool ok = is_float(x.dtype)
                    ? (std::isnan(u) ? std::isnan(v) : std::fabs(u - v) <= 1e-3 * std::max(scale, 1.0))
                    : u == v;
      if (!ok) return false;
    }
  }
  return true;
}

std::string cache_key(const ScheduleKernel& sk, Device& device, int width) {
  return CompileCache::key(device.name() + "\n" + device.compiler().identity() +
                               "\nbeam search 2 (confirmed in turns), width " + std::to_string(width),
                           ast_key(sk.ast));
}

std::string to_text(const BeamResult& r) {
  std::ostringstream os;
  os << "start " << (r.from_tg ? "tg" : "none") << "\n";
  for (const Opt& o : r.opts)
    os << int(o.op) << " " << o.axis.value_or(-1) << " " << o.amt.value_or(-1) << "\n";
  return os.str();
}

std::optional<BeamResult> from_text(const std::string& text) {
  std::istringstream is(text);
  std::string word, start;
  if (!(is >> word >> start) || word != "start" || (start != "tg" && start != "none")) return std::nullopt;
  BeamResult r;
  r.from_tg = start == "tg";
  r.cached = true;
  int op, axis;
  int64_t amt;
  while (is >> op >> axis >> amt) {
    if (op < 0 || op > int(OptOps::PADTO)) return std::nullopt;
    Opt o{OptOps(op), std::nullopt, std::nullopt};
    if (axis >= 0) o.axis = axis;
    if (amt >= 0) o.amt = amt;
    r.opts.push_back(o);
  }
  if (!is.eof()) return std::nullopt;
  return r;
}

} // namespace

void apply_beam(Kernel& k, const BeamResult& r) {
  if (r.from_tg) optimize_kernel(k, Optimizer::Tg);
  for (const Opt& o : r.opts) k.apply_opt(o);
}

BeamResult beam_search(const ScheduleKernel& sk, const Schedule& s, Device& device, int width,
                       BeamDeadline deadline) {
  const Renderer& renderer = device.renderer();
  CompileCache cache("beam", ".txt");
  std::string key = cache_key(sk, device, width);
  if (auto hit = cache.lookup(key)) {
    std::ifstream in(*hit);
    std::stringstream text;
    text << in.rdbuf();
    if (auto r = from_text(text.str())) {
      Kernel check(sk.ast, renderer.opts());
      try {
        apply_beam(check, *r);
        return *r;
      } catch (const Error&) { // a stale entry: search again
      }
    }
  }

  if (std::chrono::steady_clock::now() > deadline) { // no time left: tg's optimizer, untimed
    BeamResult none;
    none.from_tg = none.cut = true;
    return none;
  }
  std::vector<std::unique_ptr<Candidate>> all;
  std::unordered_set<std::string> seen;
  auto add = [&](Kernel k, bool from_tg, std::vector<Opt> opts) -> Candidate* {
    LoweredKernel lk = lower_kernel(k, renderer, "beam", false);
    if (lk.src.size() > kMaxSource && !all.empty()) return nullptr;
    if (!seen.insert(lk.src).second) return nullptr;
    all.push_back(
        std::make_unique<Candidate>(Candidate{std::move(k), from_tg, std::move(opts), std::move(lk)}));
    return all.back().get();
  };

  // The start is tg's optimizer's kernel, not the kernel without opts as in tinygrad: on a CPU
  // a plain 1024 matmul takes 2.3 s a launch, its one-action children as long, and none of them
  // comes near tg's register tiles (11 ms), so starting there would spend the time budget on
  // kernels that cannot win.
  Kernel tuned(sk.ast, renderer.opts());
  optimize_kernel(tuned, Optimizer::Tg);
  Candidate* tg_start = add(tuned, true, {});
  std::vector<Candidate*> beam{tg_start};
  time_candidates(beam, sk, s, device, 0);
  BeamResult result;
  result.tg_seconds = tg_start->seconds;
  result.candidates = 1;

  for (int r = 0; r < kMaxRounds; ++r) {
    if (std::chrono::steady_clock::now() > deadline) {
      result.cut = true;
      break;
    }
    std::vector<Candidate*> next;
    for (Candidate* parent : beam) {
      for (const Opt& action : actions()) {
        if (action.axis && *action.axis >= parent->k.shape_len()) continue;
        Kernel k = parent->k;
        try {
          k.apply_opt(action);
          if (!upcast_ok(k)) continue;
          std::vector<Opt> opts = parent->opts;
          opts.push_back(action);
          if (Candidate* c = add(std::move(k), parent->from_tg, std::move(opts))) next.push_back(c);
        } catch (const Error&) { // the action does not apply to this kernel
        }
      }
    }
    result.rounds = r + 1;
    result.candidates += int(next.size());
    time_candidates(next, sk, s, device, beam.front()->seconds * 3);
    std::sort(next.begin(), next.end(), [](auto* a, auto* b) { return a->seconds < b->seconds; });
    if (next.empty() || next.front()->seconds >= beam.front()->seconds) break;
    if (int(next.size()) > width) next.resize(size_t(width));
    beam = next;
  }

  Candidate* best = beam.front();
  if (best != tg_start && !same_results(*tg_start, *best, sk, s, device)) {
    result.rejected = true; // the search found a kernel that computes something else: keep tg's
    best = tg_start;
  }
  if (best != tg_start) {
    double tg_best = kInf, best_best = kInf;
    for (int i = 0; i < kConfirmRuns; ++i) {
      std::vector<Candidate*> pair =
          i % 2 ? std::vector<Candidate*>{best, tg_start} : std::vector<Candidate*>{tg_start, best};
      time_candidates(pair, sk, s, device, 0);
      tg_best = std::min(tg_best, tg_start->seconds), best_best = std::min(best_best, best->seconds);
    }
    tg_start->seconds = tg_best, best->seconds = best_best;
    result.tg_seconds = tg_best;
    if (best_best > tg_best * (1 - kMargin)) {
      result.unconfirmed = true;
      best = tg_start;
    }
  }
  result.from_tg = best->from_tg;
  result.opts = best->opts;
  result.seconds = best->seconds;
  if (result.cut) return result; // a later search with time to finish may find more
  std::filesystem::path tmp = cache.temp_path(".txt");
  write_file_atomic(tmp, to_text(result));
  cache.insert(key, tmp);
  return result;
}

} // namespace tg
