// The Kernel's tensor-core optimization (tinygrad 0.9.1's kernel.py _create_tc_opts,
// _apply_tc_opt, apply_tensor_cores): a SUM of a MUL of two loads that broadcast along
// different output axes is a matmul; its N, M and K axes are shaped into the warp's threads and
// each thread's registers, and the linearizer emits WMMA for it.
#include <algorithm>
#include <cstdlib>

#include "codegen/kernel.h"

namespace tg {

std::string TensorCore::name() const {
  std::string s = "WMMA";
  for (int d : dims) s += "_" + std::to_string(d);
  return s + "_" + std::string(c_name(dtype_in)) + "_" + std::string(c_name(dtype_out));
}

void TensorCoreOptions::fix_axes(int removed_axis) {
  for (size_t d = 0; d < 2; d++) {
    if (!axes_exist[d]) continue;
    if (removed_axis < axes[d])
      axes[d] -= 1;
    else if (removed_axis == axes[d])
      axes_exist[d] = false;
  }
}

namespace {

// tinygrad's getenv for the TC switches
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  return *end ? fallback : int(x);
}

} // namespace

int tc_setting() { return env_int("TC", 1); }
int tc_opt_setting(int fallback) { return env_int("TC_OPT", fallback); }

std::optional<TensorCoreOptions> Kernel::create_tc_opts(const LazyOp* reduceop, const TensorCore& tc,
                                                        int axis, int opt_level) {
  const bool has_cast = tc.dtype_in != tc.dtype_out;
  const LazyOp* src = reduceop->src[0].get();
  if (has_cast && !(src->op == Op::CAST && std::get<DType>(src->arg) == tc.dtype_out)) return std::nullopt;
  const LazyOp* mul = has_cast ? src->src[0].get() : src;
  if (mul->op != Op::MUL) return std::nullopt;

  // a buffer loaded as dtype_in (opt_level 1: or cast to it)
  auto buf_index = [&](const LazyOp* s) -> int {
    if (s->op == Op::LOAD) {
      const MemBuffer& mb = std::get<MemBuffer>(s->arg);
      return mb.dtype == tc.dtype_in ? buffer_index(mb) : -1;
    }
    if (opt_level >= 1 && s->op == Op::CAST && std::get<DType>(s->arg) == tc.dtype_in &&
        s->src[0]->op == Op::LOAD)
      return buffer_index(std::get<MemBuffer>(s->src[0]->arg));
    return -1;
  };
  const int buf0 = buf_index(mul->src[0].get()), buf1 = buf_index(mul->src[1].get());
  if (buf0 < 0 || buf1 < 0) return std::nullopt;

  const auto strides0 = sts[size_t(buf0)].real_strides(), strides1 = sts[size_t(buf1)].real_strides();
  const int fr = first_reduce();
  std::vector<int> axis_buf0, axis_buf1; // output axes each buffer broadcasts along
  for (int i = 0; i < fr; i++) {
    if (strides0[size_t(i)] && *strides0[size_t(i)] == 0) axis_buf0.push_back(i);
    if (strides1[size_t(i)] && *strides1[size_t(i)] == 0) axis_buf1.push_back(i);
  }
  if (axis_buf0.empty() || axis_buf1.empty() || !(shape_len() - fr == 1 || opt_level >= 1))
    return std::nullopt;

  // itertools.product(axis_buf0, axis_buf1, reduce axes), taken from the end
  const size_t nb1 = axis_buf1.size(), nr = size_t(shape_len() - fr);
  const size_t choices = axis_buf0.size() * nb1 * nr;
  if (axis < 0 || size_t(axis) >= choices) return std::nullopt;
  const size_t c = choices - 1 - size_t(axis);
  TensorCoreOptions out;
  out.axes = {axis_buf0[c / (nb1 * nr)], axis_buf1[(c / nr) % nb1], fr + int(c % nr)};
  for (size_t i = 0; i < 3; i++)
    if (full_shape()[size_t(out.axes[i])] % tc.dims[i] != 0)
      out.axis_pads.push_back({out.axes[i], tc.dims[i]});
  if (!out.axis_pads.empty() && opt_level < 2) return std::nullopt;

  auto it = std::find_if(bufs_for_tensor_core.begin(), bufs_for_tensor_core.end(),
                         [&](const auto& x) { return x.first == reduceop; });
  if (it != bufs_for_tensor_core.end())
    it->second = {buf0, buf1};
  else
    bufs_for_tensor_core.push_back({reduceop, {buf0, buf1}});
  return out;
}

bool Kernel::apply_tc_opt(int use_tensor_cores, int axis, int opt_level) {
  const LazyOp* r = reduceop();
  if (!use_tensor_cores || !opts.has_local || !r || r->op != Op::SUM) return false;
  for (size_t t = 0; t < opts.tensor_cores.size(); t++) {
    const TensorCore& tc = opts.tensor_cores[t];
    std::vector<std::optional<TensorCoreOptions>> per_reduce;
    for (const LazyOp* op : reduceops) per_reduce.push_back(create_tc_opts(op, tc, axis, opt_level));
    // (reduces fuse only with the same options; tinygrad asserts it)
    if (!per_reduce[0] ||
        std::any_of(per_reduce.begin(), per_reduce.end(), [&](const auto& o) { return o != per_reduce[0]; }))
      continue;
    tensor_core_opts = per_reduce[0];
    // unroll the reduce dim, upcast the inputs, then shape the warp's threads
    try {
      for (auto [pad_axis, dim] : tensor_core_opts->axis_pads)
        apply_opt({OptOps::PADTO, pad_axis, dim}, false);
    } catch (const KernelOptError&) {
      continue;
    }
    apply_opt({OptOps::UNROLL, tensor_core_opts->axes[2] - first_reduce(), tc.dims[2]}, false);
    for (int i = 0; i < 2; i++) { // upcast the part of N and M the threads do not cover
      int sz = 1;
      for (auto [dim, amt] : tc.threads)
        if (dim == i) sz *= amt;
      if (tc.dims[size_t(i)] > sz)
        apply_opt({OptOps::UPCAST, tensor_core_opts->axes[size_t(i)], tc.dims[size_t(i)] / sz}, false);
    }
    for (auto [dim, amt] : tc.threads)
      apply_opt({OptOps::LOCAL, tensor_core_opts->axes[size_t(dim)], amt}, false);
    if (use_tensor_cores == 1) tensor_core = int(t); // TC=2: the shape ops without WMMA
    return true;
  }
  return false;
}

bool Kernel::apply_tensor_cores(int use_tensor_cores, const std::vector<Opt>* extra_opts, int axis,
                                std::optional<int> tc_opt) {
  if (opts.tensor_cores.empty() && use_tensor_cores != 2) return false; // (every host kernel: no getenv)
  const int level = tc_opt.value_or(tc_opt_setting(0));
  try {
    apply_opt({OptOps::TC, axis, level});
    if (!tensor_core_opts) return true;
    if (extra_opts) {
      for (const Opt& o : *extra_opts) apply_opt(o);
      return true;
    }
    // hand-coded: upcast M, then N, by the largest of 5..2 that divides it; then local N
    auto late_upcast = [&](size_t d) {
      if (!tensor_core_opts->axes_exist[d]) return;
      int64_t size = full_shape()[size_t(tensor_core_opts->axes[d])];
      for (int upc : {5, 4, 3, 2})
        if (size % upc == 0) {
          apply_opt({OptOps::UPCAST, tensor_core_opts->axes[d], upc});
          return;
        }
    };
    late_upcast(1);
    late_upcast(0);
    if (tensor_core >= 0 && tensor_core_opts->axes_exist[0])
      for (int upc : {4, 2})
        if (full_shape()[size_t(tensor_core_opts->axes[0])] % upc == 0) {
          apply_opt({OptOps::LOCAL, tensor_core_opts->axes[0], upc});
          break;
        }
    return true;
  } catch (const KernelOptError&) {
    return false;
  }
}

} // namespace tg
