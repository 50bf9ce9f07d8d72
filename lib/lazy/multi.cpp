// lazy layer: tinygrad 0.9.1's MultiLazyBuffer (multi.py), a tensor held by several devices.
// Each shard is an ordinary node of the graph on its own device; the rules below decide which
// shard nodes an op on the whole tensor makes, with multi.py's assertions and messages.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <numeric>

#include "lazy/lazybuffer.h"
#include "lazy/multi.h"
#include "util/error.h"

namespace tg {

struct MultiData {
  std::vector<LazyBuffer> lbs;
  std::optional<int> axis;
  std::vector<bool> real;
  Shape shape; // the whole tensor's: the real shards' sizes summed along the axis
};

namespace {

int& ring_override() {
  static int v = -1;
  return v;
}

std::vector<LazyBuffer> real_lbs(const MultiData& m) {
  std::vector<LazyBuffer> out;
  for (size_t i = 0; i < m.lbs.size(); ++i)
    if (m.real[i]) out.push_back(m.lbs[i]);
  return out;
}

int64_t dim_int(const sint& d, const char* what) {
  check(d.is_int(), "AssertionError", std::string("does not support symbolic shape in ") + what);
  return int64_t(d);
}

std::string shape_str(const Shape& s) { return shape_repr(s); }

// to_sharded: each buffer shrunk to its device's slice of `axis` (round_up(n, ndev) // ndev).
std::vector<LazyBuffer> to_sharded(const std::vector<LazyBuffer>& lbs, int axis) {
  const Shape& shape = lbs[0].shape();
  int64_t n = dim_int(shape[size_t(axis)], "shard");
  int64_t k = int64_t(lbs.size());
  int64_t sz = (n + k - 1) / k;
  std::vector<LazyBuffer> out;
  for (size_t i = 0; i < lbs.size(); ++i) {
    std::vector<std::pair<int64_t, int64_t>> arg;
    for (size_t a = 0; a < shape.size(); ++a) {
      int64_t s = dim_int(shape[a], "shard");
      if (int(a) != axis)
        arg.emplace_back(0, s);
      else
        arg.emplace_back(std::min(s, sz * int64_t(i)), std::min(s, sz * int64_t(i + 1)));
    }
    out.push_back(lbs[i].shrink(arg));
  }
  return out;
}

std::vector<LazyBuffer> all_reduce(Op op, const std::vector<LazyBuffer>& lbs) {
  for (const sint& d : lbs[0].shape()) dim_int(d, "all_reduce");
  for (const LazyBuffer& lb : lbs)
    check(lb.shape()[0] == lbs[0].shape()[0], "AssertionError", "allreduce with uneven shards is undefined");
  Op bop = op == Op::SUM ? Op::ADD : Op::MAX;
  int64_t n = int64_t(lbs.size()), dim = lbs[0].size();
  int ring = ring_setting();
  bool use_ring = ring >= 2 || (n > 2 && dim > 256000 && ring >= 1);
  std::vector<LazyBuffer> out;
  if (!use_ring) {
    // naive: every device adds all shards, copied to it, in device order
    for (const LazyBuffer& lb : lbs) {
      LazyBuffer acc = lbs[0].copy_to_device(lb.device());
      for (size_t i = 1; i < lbs.size(); ++i) acc = acc.e(bop, {lbs[i].copy_to_device(lb.device())});
      out.push_back(acc);
    }
    return out;
  }
  int64_t factor = 1;
  for (int64_t f : {32, 16, 8, 4, 2, 1})
    if (dim % f == 0) {
      factor = f;
      break;
    }
  int64_t base = (dim / factor) / n, left = (dim / factor) % n;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  int64_t acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t len = (i < left ? base + 1 : base) * factor;
    if (len > 0) chunks.emplace_back(acc, acc + len);
    acc += len;
  }
  std::vector<std::vector<LazyBuffer>> chunked;
  for (const LazyBuffer& lb : lbs) {
    std::vector<LazyBuffer> row;
    for (auto [s, e] : chunks) row.push_back(lb.reshape({dim}).shrink({{s, e}}));
    chunked.push_back(std::move(row));
  }
  size_t nc = chunks.size();
  for (int64_t step = 0; step < n - 1; ++step) // scatter-reduce
    for (size_t i = 0; i < nc; ++i) {
      size_t s = size_t((int64_t(i) + step) % n), r = size_t((int64_t(i) + step + 1) % n);
      chunked[r][i] = chunked[r][i].e(bop, {chunked[s][i].copy_to_device(chunked[r][i].device(), true)});
    }
  for (int64_t step = 0; step < n - 1; ++step) // allgather
    for (size_t i = 0; i < nc; ++i) {
      size_t s = size_t(((int64_t(i) + step - 1) % n + n) % n), r = size_t((int64_t(i) + step) % n);
      chunked[r][i] = chunked[s][i].copy_to_device(chunked[r][i].device(), true);
    }
  for (auto& row : chunked) {
    LazyBuffer sum = row[0].pad({{chunks[0].first, dim - chunks[0].second}});
    for (size_t i = 1; i < nc; ++i) sum = sum.e(Op::ADD, {row[i].pad({{chunks[i].first, dim - chunks[i].second}})});
    out.push_back(sum.reshape(lbs[0].shape()));
  }
  return out;
}

} // namespace

std::string script_device_name(const std::string& graph_name) {
  return graph_name.empty() ? "CLANG" : graph_name;
}
std::string devices_repr(const std::vector<std::string>& graph_names) {
  std::string out = "(";
  for (size_t i = 0; i < graph_names.size(); ++i)
    out += (i ? ", '" : "'") + script_device_name(graph_names[i]) + "'";
  return out + (graph_names.size() == 1 ? ",)" : ")");
}

int ring_setting() {
  if (ring_override() >= 0) return ring_override();
  const char* v = std::getenv("RING");
  return v && *v ? std::atoi(v) : 1;
}
void set_ring_setting(int value) { ring_override() = value; }

LazyBuffer LazyBuffer::multi(std::vector<LazyBuffer> lbs, std::optional<int> axis, std::vector<bool> real) {
  check(!lbs.empty(), "AssertionError", "all lbs must be LazyBuffers, and we need at least one of them");
  for (const LazyBuffer& lb : lbs)
    check(!lb.is_multi(), "AssertionError", "all lbs must be LazyBuffers, and we need at least one of them");
  for (const LazyBuffer& lb : lbs)
    check(lb.dtype() == lbs[0].dtype(), "AssertionError", "all multilazybuffer needs same dtype");
  if (real.empty()) real.assign(lbs.size(), true);
  auto m = std::make_shared<MultiData>();
  m->lbs = std::move(lbs);
  m->axis = axis;
  m->real = std::move(real);
  std::vector<LazyBuffer> reals = real_lbs(*m);
  check(!reals.empty(), "AssertionError", "output contains no real lb");
  m->shape = reals[0].shape();
  if (axis) {
    sint total = 0;
    for (const LazyBuffer& lb : reals) total = total + lb.shape()[size_t(*axis)];
    m->shape[size_t(*axis)] = total;
  }
  LazyBuffer out(reals[0].id());
  out.multi_ = std::move(m);
  return out;
}

LazyBuffer LazyBuffer::from_sharded(const LazyBuffer& lb, const std::vector<std::string>& devices,
                                    std::optional<int> axis) {
  LazyBuffer src = lb.base() != lb && !lb.is_unrealized_unmasked_const() ? lb.contiguous() : lb;
  std::vector<LazyBuffer> lbs(devices.size(), src);
  if (axis) lbs = to_sharded(lbs, *axis);
  std::vector<LazyBuffer> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    LazyBuffer c = lbs[i].copy_to_device(devices[i]);
    out.push_back(c.is_unrealized_unmasked_const() ? c : c.contiguous());
  }
  return multi(std::move(out), axis);
}

const std::vector<LazyBuffer>& LazyBuffer::lbs() const { return multi_->lbs; }
std::optional<int> LazyBuffer::multi_axis() const { return multi_->axis; }
const std::vector<bool>& LazyBuffer::real() const { return multi_->real; }
std::vector<std::string> LazyBuffer::devices() const {
  std::vector<std::string> out;
  for (const LazyBuffer& lb : multi_->lbs) out.push_back(lb.device());
  return out;
}
std::vector<std::pair<int64_t, int64_t>> LazyBuffer::bounds() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t acc = 0;
  for (const LazyBuffer& lb : multi_->lbs) {
    int64_t n = dim_int(lb.shape()[size_t(*multi_->axis)], "bounds");
    out.emplace_back(acc, acc + n);
    acc += n;
  }
  return out;
}

const Shape& LazyBuffer::shape() const { return multi_ ? multi_->shape : node().shape; }

LazyBuffer LazyBuffer::map_lbs(const std::function<LazyBuffer(const LazyBuffer&)>& f) const {
  std::vector<LazyBuffer> out;
  for (const LazyBuffer& lb : multi_->lbs) out.push_back(f(lb));
  return multi(std::move(out), multi_->axis, multi_->real);
}

LazyBuffer LazyBuffer::multi_const_like(const Scalar& val, const std::optional<Shape>& shape) const {
  check(!shape, "AssertionError", "a multi-device constant takes its shards' shapes");
  return map_lbs([&](const LazyBuffer& lb) { return lb.const_like(val); });
}

LazyBuffer LazyBuffer::multi_copy_to_device(const std::string& device) const {
  const MultiData& m = *multi_;
  if (!m.axis) {
    for (const LazyBuffer& lb : real_lbs(m))
      if (lb.device() == device) return lb;
    return real_lbs(m)[0].copy_to_device(device);
  }
  auto bs = bounds();
  LazyBuffer acc;
  bool first = true;
  for (size_t i = 0; i < m.lbs.size(); ++i) {
    if (!m.real[i]) continue;
    std::vector<std::pair<int64_t, int64_t>> pad(m.lbs[i].shape().size(), {0, 0});
    pad[size_t(*m.axis)] = {bs[i].first, bs.back().second - bs[i].second};
    LazyBuffer part = m.lbs[i].copy_to_device(device).pad(pad);
    acc = first ? part : acc.e(Op::ADD, {part});
    first = false;
  }
  return acc;
}

LazyBuffer LazyBuffer::multi_e(Op op, const std::vector<LazyBuffer>& in_srcs, const LazyArg& arg) const {
  std::vector<LazyBuffer> msrcs{*this};
  msrcs.insert(msrcs.end(), in_srcs.begin(), in_srcs.end());
  for (const LazyBuffer& x : msrcs)
    check(x.is_multi(), "AssertionError", "all buffers must be MultiLazyBuffer");
  for (const LazyBuffer& x : msrcs)
    if (x.devices() != devices()) {
      std::string all = "[";
      for (size_t i = 0; i < msrcs.size(); ++i) all += (i ? ", " : "") + devices_repr(msrcs[i].devices());
      fail("AssertionError", "all buffers must have the same device " + all + "]");
    }
  // they all share an axis: the last one named
  std::optional<int> axis;
  for (const LazyBuffer& x : msrcs)
    if (x.multi_axis()) axis = x.multi_axis();
  bool not_all_real = false;
  for (const LazyBuffer& x : msrcs)
    not_all_real |= std::find(x.real().begin(), x.real().end(), false) != x.real().end();
  std::vector<bool> new_real = real();
  if (not_all_real)
    for (size_t i = 0; i < new_real.size(); ++i) {
      new_real[i] = true;
      for (const LazyBuffer& x : msrcs) new_real[i] = new_real[i] && x.real()[i];
    }
  check(std::find(new_real.begin(), new_real.end(), true) != new_real.end(), "AssertionError",
        "output contains no real lb");
  std::vector<std::vector<LazyBuffer>> srcs;
  for (const LazyBuffer& x : msrcs) {
    if (x.multi_axis() == axis || not_all_real)
      srcs.push_back(x.lbs());
    else if (!x.multi_axis() && axis)
      srcs.push_back(to_sharded(x.lbs(), *axis));
    else {
      std::vector<LazyBuffer> whole;
      for (const LazyBuffer& lb : x.lbs()) whole.push_back(x.copy_to_device(lb.device()));
      srcs.push_back(to_sharded(whole, *axis));
    }
  }
  std::vector<LazyBuffer> out;
  for (size_t i = 0; i < lbs().size(); ++i) {
    if (!new_real[i]) {
      out.push_back(srcs.back()[i].const_like(Scalar::of_int(0)));
      continue;
    }
    std::vector<LazyBuffer> rest;
    for (size_t k = 1; k < srcs.size(); ++k) rest.push_back(srcs[k][i]);
    out.push_back(srcs[0][i].e(op, rest, arg));
  }
  return multi(std::move(out), axis, new_real);
}

LazyBuffer LazyBuffer::multi_r(Op op, const Axes& axis) const {
  const MultiData& m = *multi_;
  if (m.axis && std::find(axis.begin(), axis.end(), *m.axis) != axis.end()) {
    std::vector<LazyBuffer> parts;
    for (size_t i = 0; i < m.lbs.size(); ++i)
      parts.push_back((m.real[i] ? m.lbs[i] : m.lbs[i].const_like(Scalar::of_int(0))).r(op, axis));
    if (std::all_of(m.real.begin(), m.real.end(), [](bool b) { return b; }))
      return multi(all_reduce(op, parts), std::nullopt);
    return multi(std::move(parts), std::nullopt, m.real);
  }
  return map_lbs([&](const LazyBuffer& lb) { return lb.r(op, axis); });
}

LazyBuffer LazyBuffer::multi_reshape(const Shape& arg) const {
  const MultiData& m = *multi_;
  if (!m.axis) return map_lbs([&](const LazyBuffer& lb) { return lb.reshape(arg); });
  int axis = *m.axis;
  int64_t nreal = int64_t(real_lbs(m).size());
  // new_axis: the last one that keeps prod(shape[:axis]), so no element moves between shards
  sint before = 1;
  for (int a = 0; a < axis; ++a) before = before * m.shape[size_t(a)];
  std::vector<sint> acc{1};
  for (const sint& d : arg) acc.push_back(acc.back() * d);
  int new_axis = -1;
  for (int i = int(acc.size()) - 1; i >= 0; --i)
    if (acc[size_t(i)] == before) {
      new_axis = i;
      break;
    }
  // (multi.py's list.index: a prefix product no new shape reaches is Python's ValueError)
  check(new_axis >= 0, "ValueError", before.is_int() ? std::to_string(int64_t(before)) + " is not in list" : "not in list");
  check(new_axis < int(arg.size()), "IndexError", "tuple index out of range");
  const sint& old_n = m.shape[size_t(axis)];
  if (!(arg[size_t(new_axis)] == old_n)) {
    check(dim_int(old_n, "reshape") % nreal == 0, "AssertionError",
          "cannot reshape on-axis for uneven shard " + std::to_string(axis) + " " + shape_str(m.shape) + " " +
              std::to_string(nreal));
    check(dim_int(arg[size_t(new_axis)], "reshape") % nreal == 0, "AssertionError",
          "new on-axis shape must divide evenly between devices " + std::to_string(new_axis) + " " +
              shape_str(arg) + " " + std::to_string(nreal));
  }
  std::vector<LazyBuffer> out;
  for (const LazyBuffer& lb : m.lbs) {
    Shape s = arg;
    const sint& d = arg[size_t(new_axis)];
    s[size_t(new_axis)] = d == old_n ? lb.shape()[size_t(axis)] : sint(dim_int(d, "reshape") / nreal);
    out.push_back(lb.reshape(s));
  }
  return multi(std::move(out), new_axis, m.real);
}

LazyBuffer LazyBuffer::multi_pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  const MultiData& m = *multi_;
  bool all_real = std::all_of(m.real.begin(), m.real.end(), [](bool b) { return b; });
  auto pair_str = [](std::pair<int64_t, int64_t> p) {
    return "(" + std::to_string(p.first) + ", " + std::to_string(p.second) + ")";
  };
  std::string arg_str = "(";
  for (size_t i = 0; i < arg.size(); ++i) arg_str += (i ? ", " : "") + pair_str(arg[i]);
  arg_str += arg.size() == 1 ? ",)" : ")";
  check(!m.axis || arg[size_t(*m.axis)] == std::pair<int64_t, int64_t>{0, 0} || !all_real, "AssertionError",
        "padding not supported for arg=" + arg_str);
  if (m.axis && arg[size_t(*m.axis)] != std::pair<int64_t, int64_t>{0, 0}) {
    for (size_t i = 0; i < arg.size(); ++i)
      check(arg[i] == std::pair<int64_t, int64_t>{0, 0} || int(i) == *m.axis, "AssertionError",
            "cannot pad sharded and non-sharded axis at the same time");
    size_t first = size_t(std::find(m.real.begin(), m.real.end(), true) - m.real.begin());
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < m.lbs.size(); ++i) {
      int64_t n = dim_int(m.lbs[i].shape()[size_t(*m.axis)], "pad");
      if (i < first) lo += n;
      if (i > first) hi += n;
    }
    check(arg[size_t(*m.axis)] == std::pair<int64_t, int64_t>{lo, hi}, "AssertionError", "can only pad to whole axis");
    std::vector<LazyBuffer> out;
    for (size_t i = 0; i < m.lbs.size(); ++i)
      out.push_back(m.real[i] ? m.lbs[i] : m.lbs[i].const_like(Scalar::of_int(0)));
    return multi(std::move(out), m.axis);
  }
  return map_lbs([&](const LazyBuffer& lb) { return lb.pad(arg); });
}

LazyBuffer LazyBuffer::multi_expand(const Shape& arg) const {
  const MultiData& m = *multi_;
  check(!m.axis || arg[size_t(*m.axis)] == m.shape[size_t(*m.axis)], "AssertionError",
        "expand not supported on sharded axis arg=" + shape_str(arg));
  return map_lbs([&](const LazyBuffer& lb) {
    Shape s = arg;
    if (m.axis) s[size_t(*m.axis)] = lb.shape()[size_t(*m.axis)];
    return lb.expand(s);
  });
}

LazyBuffer LazyBuffer::multi_shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  const MultiData& m = *multi_;
  if (m.axis) {
    size_t ax = size_t(*m.axis);
    auto bs = bounds();
    int64_t whole = dim_int(m.shape[ax], "shrink");
    bool is_whole = arg[ax] == std::pair<int64_t, int64_t>{0, whole};
    auto at = std::find(bs.begin(), bs.end(), arg[ax]);
    std::string arg_str = "(";
    for (size_t i = 0; i < arg.size(); ++i)
      arg_str += (i ? ", " : "") + ("(" + std::to_string(arg[i].first) + ", " + std::to_string(arg[i].second) + ")");
    arg_str += arg.size() == 1 ? ",)" : ")";
    check(is_whole || at != bs.end(), "AssertionError", "shrinking not supported for arg=" + arg_str);
    if (!is_whole) {
      for (size_t i = 0; i < arg.size(); ++i)
        check(i == ax || arg[i] == std::pair<int64_t, int64_t>{0, dim_int(m.shape[i], "shrink")}, "AssertionError",
              "cannot shrink sharded and non-sharded axis at the same time");
      size_t idx = size_t(at - bs.begin());
      std::vector<LazyBuffer> out;
      std::vector<bool> real;
      for (size_t i = 0; i < m.lbs.size(); ++i) {
        out.push_back(i == idx ? m.lbs[i] : m.lbs[i].const_like(Scalar::of_int(0)));
        real.push_back(i == idx);
      }
      return multi(std::move(out), m.axis, real);
    }
  }
  return map_lbs([&](const LazyBuffer& lb) {
    auto a = arg;
    if (m.axis) a[size_t(*m.axis)] = {0, dim_int(lb.shape()[size_t(*m.axis)], "shrink")};
    return lb.shrink(a);
  });
}

} // namespace tg
