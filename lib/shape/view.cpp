// Views: tinygrad 0.9.1 shape/view.py with concrete shapes. A View maps a multi-dimensional
// index to a buffer offset (shape, strides, offset) with an optional validity mask per dim.
#include <algorithm>
#include <numeric>
#include <string>

#include "shape/shapetracker.h"
#include "util/error.h"

namespace tg {
namespace {

int64_t floordiv_int(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string tuple_str(const Shape& xs) { return shape_repr(xs); }
std::string tuple_str(const std::vector<int64_t>& xs) { return shape_repr(Shape(xs.begin(), xs.end())); }
std::string pairs_str(const DimPairs& xs) {
  std::string out = "(";
  for (size_t i = 0; i < xs.size(); ++i)
    out += (i ? ", (" : "(") + xs[i].first.str() + ", " + xs[i].second.str() + ")";
  return out + (xs.size() == 1 ? ",)" : ")");
}
DimPairs int_pairs(const std::vector<std::pair<int64_t, int64_t>>& xs) {
  return DimPairs(xs.begin(), xs.end());
}

bool all_int(const DimPairs& xs) {
  for (const auto& [b, e] : xs)
    if (!b.is_int() || !e.is_int()) return false;
  return true;
}

// max(0, min(x, size)) of __unsafe_resize, where the order is known. A bound outside [0, size]
// selects the same indices of a dim of that size, so an undecided clamp keeps x as it is.
sint clamp_to_dim(const sint& x, const sint& size) {
  sint m = x.max() <= size.min() ? x : size.max() <= x.min() ? size : x;
  return m.max() <= 0 ? sint(0) : m;
}

bool has_zero(const Shape& s) { return std::find(s.begin(), s.end(), 0) != s.end(); }

// One entry per merged run of dims: (merged size, stride, merged size without zero-stride dims).
struct MergedDim {
  sint size, stride, real;
};

// _merge_dims: merge contiguous runs and size-1 (or single-index masked) dims.
std::vector<MergedDim> merge_dims(const Shape& shape, const Shape& strides, const std::optional<Mask>& mask) {
  std::vector<MergedDim> ret;
  if (shape.empty()) return ret;
  ret.push_back({shape[0], strides[0], strides[0] == 0 ? sint(0) : shape[0]});
  bool merging = mask ? (*mask)[0].second - (*mask)[0].first == 1 : shape[0] == 1;
  for (size_t i = 1; i < shape.size(); ++i) {
    sint s = shape[i], st = strides[i];
    if (s == 1) continue;
    MergedDim& last = ret.back();
    if (merging || last.stride == s * st) {
      last = {last.size * s, st, st == 0 ? sint(0) : (merging ? s : last.real * s)};
    } else {
      ret.push_back({s, st, st == 0 ? sint(0) : s});
    }
    merging = mask ? (*mask)[i].second - (*mask)[i].first == 1 : s == 1;
  }
  return ret;
}

// Iterates a list from the back, yielding `fallback` when exhausted (Python's next(reversed(x), d)).
template <typename T> struct ReverseCursor {
  const std::vector<T>& items;
  size_t left;
  T fallback;
  ReverseCursor(const std::vector<T>& v, T d) : items(v), left(v.size()), fallback(d) {}
  T next() { return left ? items[--left] : fallback; }
  bool done() const { return left == 0; }
};

struct ReshapedMask {
  std::optional<Mask> mask;
  bool extra; // true: the mask can't be expressed on the new shape
};

// _reshape_mask
ReshapedMask reshape_mask(const View& view, const Shape& new_shape) {
  if (!view.mask) return {std::nullopt, false};
  if (!all_int(*view.mask)) { // only adding or removing 1s (else a new view, as test_symbolic_mask wants)
    Shape old_dims, new_dims;
    for (const sint& d : view.shape)
      if (!(d == 1)) old_dims.push_back(d);
    for (const sint& d : new_shape)
      if (!(d == 1)) new_dims.push_back(d);
    if (old_dims != new_dims) return {view.mask, true};
    Mask kept;
    for (size_t i = 0; i < view.shape.size(); ++i) {
      const auto& [b, e] = (*view.mask)[i];
      if (!(view.shape[i] == 1))
        kept.push_back((*view.mask)[i]);
      else if (!(b == 0 && e == 1))
        return {Mask(new_shape.size(), {0, 0}), false};
    }
    Mask out;
    size_t k = 0;
    for (const sint& d : new_shape) out.push_back(d == 1 ? std::pair<sint, sint>{0, 1} : kept[k++]);
    return {out, false};
  }
  const Mask invalid(new_shape.size(), {0, 0});
  Mask new_mask;
  const std::vector<std::pair<int64_t, int64_t>> old_mask(view.mask->begin(), view.mask->end());
  ReverseCursor<std::pair<int64_t, int64_t>> masks(old_mask, {0, 1});
  // (masks are on concrete dimensions: a symbolic one here is refused by the conversion)
  const std::vector<int64_t> old_ints(view.shape.begin(), view.shape.end());
  const std::vector<int64_t> new_ints(new_shape.begin(), new_shape.end());
  ReverseCursor<int64_t> shape(old_ints, 1), new_dims(new_ints, 1);
  int64_t curr_stride = 1, old_dim = shape.next(), new_dim = new_dims.next();
  auto mask = masks.next();
  if (mask.second - mask.first < 1) return {invalid, false};

  while (new_mask.size() < new_shape.size()) {
    auto [l, r] = mask;
    int64_t next_stride = new_dim * curr_stride;
    if (old_dim >= next_stride) { // need to split the mask
      if (old_dim == next_stride) {
        new_mask.push_back({floordiv_int(l, curr_stride), floordiv_int(r - 1, curr_stride) + 1});
        curr_stride = 1, old_dim = shape.next(), new_dim = new_dims.next(), mask = masks.next();
        if (mask.second - mask.first < 1) return {invalid, false};
      } else { // only splittable when the reshape doesn't cut across the mask
        bool cuts = (l % next_stride != 0 || r % next_stride != 0) &&
                    floordiv_int(l, next_stride) != floordiv_int(r - 1, next_stride);
        if (cuts || old_dim % next_stride != 0) return {view.mask, true};
        new_mask.push_back(
            {(l % next_stride) / curr_stride, floordiv_int((r - 1) % next_stride, curr_stride) + 1});
        curr_stride = next_stride, new_dim = new_dims.next();
      }
    } else {
      auto next_mask = masks.next();
      // combine if the mask can unfold continuously
      if (mask != std::pair<int64_t, int64_t>{0, old_dim} && next_mask.second - next_mask.first != 1)
        return {view.mask, true};
      mask = {next_mask.first * old_dim + l, (next_mask.second - 1) * old_dim + r};
      old_dim = old_dim * shape.next();
    }
  }
  while (!masks.done()) // leading 1s of the old shape must be unmasked
    if (masks.next() != std::pair<int64_t, int64_t>{0, 1}) return {invalid, false};
  std::reverse(new_mask.begin(), new_mask.end());
  return {new_mask, false};
}

// un1d: split a flat offset into per-dim indices of `shape`.
std::vector<int64_t> un1d(const Shape& shape, int64_t offset) {
  Shape strides = strides_for_shape(shape);
  std::vector<int64_t> out;
  for (int64_t stride : strides) {
    int64_t here = stride ? floordiv_int(offset, stride) : 0;
    out.push_back(here);
    offset -= here * stride;
  }
  return out;
}

} // namespace

int64_t prod(const Shape& s) {
  int64_t p = 1;
  bool over = false;
  for (const sint& x : s) over |= __builtin_mul_overflow(p, x.max(), &p);
  if (over && std::find(s.begin(), s.end(), 0) == s.end())
    fail("ValueError", "shape " + shape_repr(s) + " has more elements than a 64-bit size can count");
  return over ? 0 : p;
}

sint sym_prod(const Shape& s) {
  for (const sint& x : s)
    if (!x.is_int()) {
      sint p = 1;
      for (const sint& y : s) p = p * y;
      return p;
    }
  return prod(s);
}

bool all_int(const Shape& s) {
  for (const sint& x : s)
    if (!x.is_int()) return false;
  return true;
}

std::vector<int64_t> shape_ints(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }

int64_t size_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("ValueError",
         "size " + std::to_string(a) + " * " + std::to_string(b) + " is larger than a 64-bit size can count");
  return r;
}

namespace {
// index_range of a symbolic view: the lowest and highest index as expressions, so that a symbolic
// offset and a mask that move together cancel (cat's b.pad(((i, 0),)): offset -3i, mask from i);
// nullopt for a stride whose sign depends on the values.
std::optional<std::pair<int64_t, int64_t>> symbolic_index_range(const View& v) {
  sint lo = v.offset, hi = v.offset;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    sint b = v.mask ? (*v.mask)[i].first : sint(0), e = v.mask ? (*v.mask)[i].second : v.shape[i];
    if (!maybe_lt(b, e)) return std::make_pair(int64_t(1), int64_t(0)); // empty at every value
    const sint& st = v.strides[i];
    if (st == 0) continue;
    if (st.min() <= 0 && st.max() >= 0) return std::nullopt;
    bool up = st.min() > 0;
    lo += st * (up ? b : e - 1);
    hi += st * (up ? e - 1 : b);
  }
  return std::make_pair(lo.min(), hi.max());
}
} // namespace

std::optional<std::pair<int64_t, int64_t>> index_range(const View& v) {
  bool symbolic =
      !all_int(v.shape) || !all_int(v.strides) || !v.offset.is_int() || (v.mask && !all_int(*v.mask));
  if (symbolic) {
    if (auto r = symbolic_index_range(v)) {
      if (r->first > r->second) return std::nullopt;
      return r;
    }
  }
  int64_t lo = v.offset.min(), hi = v.offset.max(); // (a symbolic offset: its whole range)
  bool over = false;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    // a symbolic dimension or stride counts at its largest value (strides are never negative
    // symbols), which bounds what any binding can reach
    int64_t b = v.mask ? (*v.mask)[i].first.min() : 0,
            e = v.mask ? (*v.mask)[i].second.max() : v.shape[i].max();
    if (b >= e) return std::nullopt;
    int64_t s = v.strides[i].max(), at_b, at_last;
    over |= __builtin_mul_overflow(s, b, &at_b);
    over |= __builtin_mul_overflow(s, e - 1, &at_last);
    over |= __builtin_add_overflow(lo, std::min(at_b, at_last), &lo);
    over |= __builtin_add_overflow(hi, std::max(at_b, at_last), &hi);
  }
  if (over) return std::make_pair(int64_t(INT64_MIN), int64_t(INT64_MAX));
  return std::make_pair(lo, hi);
}

sint index_end(const View& v) {
  bool symbolic =
      !all_int(v.shape) || !all_int(v.strides) || !v.offset.is_int() || (v.mask && !all_int(*v.mask));
  if (!symbolic) {
    auto r = index_range(v);
    return r ? sint(r->second + 1) : sint(0);
  }
  for (size_t i = 0; i < v.shape.size(); ++i) // empty at every value
    if (v.shape[i] == 0 || (v.mask && !maybe_lt((*v.mask)[i].first, (*v.mask)[i].second))) return 0;
  // (negative strides, always ints, only lower the lowest index; a valid region ends at its
  // mask's end, which moves with the offset: cat's b.pad(((i, 0),)) reads data[idx - i])
  sint end = v.offset + 1;
  for (size_t i = 0; i < v.shape.size(); ++i)
    if (v.strides[i].min() > 0) end = end + v.strides[i] * ((v.mask ? (*v.mask)[i].second : v.shape[i]) - 1);
  return end;
}

Shape shape_at(const Shape& s, const std::vector<VarBinding>& vars) {
  if (all_int(s)) return s;
  Shape out;
  for (const sint& d : s) out.push_back(eval_dim(d, vars));
  return out;
}

ShapeTracker at_values(const ShapeTracker& st, const std::vector<VarBinding>& vars) {
  ShapeTracker out = st;
  for (View& v : out.views) {
    v.shape = shape_at(v.shape, vars);
    v.strides = shape_at(v.strides, vars);
    v.offset = eval_dim(v.offset, vars);
    if (v.mask)
      for (auto& [b, e] : *v.mask) b = eval_dim(b, vars), e = eval_dim(e, vars);
  }
  return out;
}

Shape canonicalize_strides(const Shape& shape, const Shape& strides) {
  Shape out(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) out[i] = shape[i] == 1 ? sint(0) : strides[i];
  return out;
}

Shape strides_for_shape(const Shape& shape) {
  if (shape.empty()) return {};
  Shape strides(shape.size());
  if (!all_int(shape)) { // symbolic strides: products of the dimensions after each one
    prod(shape);
    sint acc = 1;
    for (size_t i = shape.size(); i-- > 0;) strides[i] = acc, acc = acc * shape[i];
    return canonicalize_strides(shape, strides);
  }
  int64_t acc = 1;
  prod(shape); // a shape whose size overflows is an error, and so then are its strides
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = acc;
    if (__builtin_mul_overflow(acc, int64_t(shape[i]), &acc)) acc = 0; // only past a zero dimension
  }
  return canonicalize_strides(shape, strides);
}

View View::create(const Shape& shape, std::optional<Shape> strides, sint offset, std::optional<Mask> mask) {
  Shape st = strides && !strides->empty() ? canonicalize_strides(shape, *strides) : strides_for_shape(shape);
  check(st.size() == shape.size(), "AssertionError", "strides and shape must have the same length");
  check(!mask || mask->size() == shape.size(), "AssertionError", "mask and shape must have the same length");
  // tinygrad 0.9.1 lets e.g. Tensor.ones(-2) through until it fails to index it at realize
  for (const sint& d : shape)
    if (d.min() < 0) fail("AssertionError", "negative dimension in shape " + shape_repr(shape));
  if (has_zero(shape)) return View{shape, Shape(shape.size(), 0), 0, std::nullopt, true};
  if (mask) { // an all-covering mask is no mask
    bool full = true;
    for (size_t i = 0; i < shape.size(); ++i)
      full = full && (*mask)[i].first == 0 && (*mask)[i].second == shape[i];
    if (full) mask = std::nullopt;
  }
  // a dim masked down to one index can use stride 0 with the offset moved accordingly (symbolic
  // bounds: one index, or none, at every value)
  if (mask && !mask->empty()) {
    bool any_single = false, any_empty = false;
    for (auto& [b, e] : *mask) any_single |= !maybe_lt(b + 1, e), any_empty |= !maybe_lt(b, e);
    if (any_single) {
      std::vector<bool> elim;
      for (auto& [b, e] : *mask) elim.push_back(!maybe_lt(b + 1, e));
      if (any_empty) {
        st.assign(shape.size(), 0);
        offset = 0;
        mask = Mask(shape.size(), {0, 0});
      }
      for (size_t i = 0; i < shape.size(); ++i)
        if (elim[i]) offset = offset + st[i] * (*mask)[i].first, st[i] = 0;
    }
  }
  bool contiguous = offset == 0 && !mask && st == strides_for_shape(shape);
  return View{shape, st, offset, mask, contiguous};
}

bool View::operator==(const View& o) const {
  return shape == o.shape && strides == o.strides && offset == o.offset && mask == o.mask &&
         contiguous == o.contiguous;
}

int64_t View::size() const { return prod(shape); }

// View.__add__ with self = below (vm2) and vm1 = this.
std::optional<View> View::merge_onto(const View& below) const {
  const View& vm1 = *this;
  const View& vm2 = below;
  if (vm2.contiguous) return vm1;
  if (vm1.contiguous && vm1.shape == vm2.shape) return vm2;
  if (vm1.contiguous && sym_prod(vm1.shape) == sym_prod(vm2.shape))
    if (auto ret = vm2.reshape(vm1.shape)) return ret;
  if (vm1.mask) {
    for (auto& [b, e] : *vm1.mask)
      if (!maybe_lt(b, e))
        return View::create(vm1.shape, Shape(vm1.shape.size(), 0), 0, Mask(vm1.shape.size(), {0, 0}));
    auto merged = vm1.shrink_symbolic(*vm1.mask).merge_onto(vm2);
    if (!merged) return std::nullopt;
    DimPairs padding;
    for (size_t i = 0; i < vm1.shape.size(); ++i)
      padding.push_back({(*vm1.mask)[i].first, vm1.shape[i] - (*vm1.mask)[i].second});
    return merged->pad_symbolic(padding);
  }

  // Added for symbolic shapes: on a broadcast view (every stride 0, no mask) every index reads
  // one element
  if (!vm2.mask && (!all_int(vm1.shape) || !all_int(vm2.shape)) &&
      std::all_of(vm2.strides.begin(), vm2.strides.end(), [](const sint& st) { return st == 0; }))
    return View::create(vm1.shape, Shape(vm1.shape.size(), 0), vm2.offset, vm1.mask);
  // projecting needs concrete views; symbolic ones stay unmerged
  if (!all_int(vm1.shape) || !all_int(vm1.strides) || !all_int(vm2.shape) || !all_int(vm2.strides) ||
      !vm1.offset.is_int() || !vm2.offset.is_int())
    return std::nullopt;

  // project vm1's offset and strides onto vm2
  std::vector<int64_t> origin = un1d(vm2.shape, vm1.offset);
  std::vector<std::vector<std::pair<size_t, int64_t>>> terms(origin.size());
  Shape strides(vm1.shape.size(), 0);
  for (size_t d1 = 0; d1 < vm1.strides.size(); ++d1) {
    int64_t st = vm1.strides[d1];
    if (st == 0) continue;
    std::vector<int64_t> moved = un1d(vm2.shape, vm1.offset + st);
    for (size_t d2 = 0; d2 < origin.size(); ++d2) {
      int64_t s1 = moved[d2] - origin[d2];
      if (s1 == 0) continue;
      terms[d2].push_back({d1, s1});
      strides[d1] = strides[d1] + s1 * vm2.strides[d2];
    }
  }

  // merge dimensions of vm2 where required (only where needed: merging too many makes its
  // mask hard to project)
  std::vector<Expr> idxs;
  for (size_t i = 0; i < vm1.shape.size(); ++i)
    idxs.push_back(Expr::var("idx" + std::to_string(i), 0, vm1.shape[i] - 1));
  int64_t merged_size = 1;
  Expr merged_term(int64_t{0});
  std::vector<std::pair<int64_t, Expr>> extents; // innermost first
  for (size_t k = vm2.shape.size(); k-- > 0;) {
    std::vector<Expr> parts;
    for (auto [d1, s1] : terms[k]) parts.push_back(idxs[d1] * (s1 * merged_size));
    merged_term = merged_term + (Expr::sum(parts) + Expr(origin[k] * merged_size));
    merged_size *= vm2.shape[k];
    if (!(merged_term >= merged_size).truthy() && !(merged_term < 0).truthy()) {
      extents.push_back({merged_size, merged_term});
      merged_size = 1;
      merged_term = Expr(int64_t{0});
    }
  }
  if (merged_term.truthy()) return std::nullopt;
  Shape vm2_shape;
  for (size_t i = extents.size(); i-- > 0;) vm2_shape.push_back(extents[i].first);
  if (vm2_shape != vm2.shape) {
    auto reshaped = vm2.reshape(vm2_shape);
    if (!reshaped) return std::nullopt;
    return vm1.merge_onto(*reshaped);
  }

  if (vm2.mask) { // try to project vm2's mask onto vm1
    std::vector<int64_t> newb(vm1.shape.size(), 0), newe(vm1.shape.begin(), vm1.shape.end());
    bool bad = false;
    for (size_t d2 = 0; d2 < vm2.shape.size(); ++d2) {
      auto [b, e] = (*vm2.mask)[d2];
      int64_t o = origin[d2];
      const Expr& t = extents[extents.size() - 1 - d2].second;
      if (!(t.min() < b || t.max() >= e)) continue;
      const auto& term = terms[d2];
      if (term.size() != 1) {
        if (term.empty() && !newe.empty())
          newe[0] = 0;
        else
          bad = true;
        continue;
      }
      auto [d1, s1] = term[0];
      int64_t lo = s1 > 0 ? b - o : e - o - 1;
      newb[d1] = std::max(newb[d1], -floordiv_int(-lo, s1)); // ceil(lo / s1)
      newe[d1] = std::min(newe[d1], floordiv_int(s1 < 0 ? b - o : e - o - 1, s1) + 1);
    }
    // if any of vm1 was masked off, try again with that mask in place
    for (size_t i = 0; i < vm1.shape.size(); ++i) {
      if (newb[i] != 0 || newe[i] != vm1.shape[i]) {
        Mask m;
        for (size_t j = 0; j < vm1.shape.size(); ++j) m.push_back({newb[j], newe[j]});
        return View::create(vm1.shape, vm1.strides, vm1.offset, m).merge_onto(vm2);
      }
    }
    if (bad) return std::nullopt; // vm2's mask was violated
  }

  int64_t offset = vm2.offset;
  for (size_t i = 0; i < origin.size(); ++i) offset += origin[i] * vm2.strides[i];
  return View::create(vm1.shape, strides, offset);
}

std::optional<View> View::invert(const Shape& out_shape) const {
  View ret = View::create(shape);
  if (mask) ret = ret.shrink_symbolic(*mask);
  std::vector<int64_t> flips;
  for (int64_t st : strides) flips.push_back(st < 0 ? -1 : 1);
  ret = ret.stride(flips);
  std::vector<int64_t> keys;
  for (int64_t st : strides) keys.push_back(st > 0 ? -st : st);
  std::vector<int> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
  ret = ret.permute(order);
  if (prod(ret.shape) != prod(out_shape)) return std::nullopt; // shrink, expand or stride not (-1, 1)
  return ret;
}

View View::minify() const {
  Shape min_shape;
  for (const MergedDim& d : merge_dims(shape, strides, mask)) min_shape.push_back(d.size);
  auto nv = reshape(min_shape);
  return nv ? *nv : *this;
}

namespace {
// View.__unsafe_resize: view a window [begin, end) per dim, optionally intersecting a mask.
View unsafe_resize(const View& v, const DimPairs& arg, std::optional<Mask> mask) {
  sint offset = 0;
  for (size_t i = 0; i < arg.size(); ++i) offset += v.strides[i] * arg[i].first;
  if (v.mask) {
    Mask moved;
    for (size_t i = 0; i < arg.size(); ++i) {
      const auto& [mx, my] = (*v.mask)[i];
      const auto& [ax, ay] = arg[i];
      moved.push_back({clamp_to_dim(mx - ax, ay - ax), clamp_to_dim(my - ax, ay - ax)});
    }
    if (mask) { // the intersection of two masks
      for (size_t i = 0; i < moved.size(); ++i)
        moved[i] = {smax(moved[i].first, (*mask)[i].first, "intersecting two masks"),
                    smin(moved[i].second, (*mask)[i].second, "intersecting two masks")};
    }
    mask = moved;
  }
  Shape shape;
  for (const auto& [x, y] : arg) shape.push_back(y - x);
  if (mask) {
    bool full = true;
    for (size_t i = 0; i < shape.size(); ++i)
      full = full && (*mask)[i].first == 0 && (*mask)[i].second == shape[i];
    if (full) mask = std::nullopt;
  }
  return View::create(shape, v.strides, v.offset + offset, mask);
}
} // namespace

View View::pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  return pad_symbolic(int_pairs(arg));
}

View View::pad_symbolic(const DimPairs& arg) const {
  bool ok = arg.size() == shape.size();
  for (const auto& [b, e] : arg) ok = ok && b.max() >= 0 && e.max() >= 0; // (tinygrad's b>=0 on a node)
  check(ok, "AssertionError", [&] { return "self.shape=" + tuple_str(shape) + ", arg=" + pairs_str(arg); });
  bool any = false;
  for (const auto& [b, e] : arg) any = any || !(b == 0) || !(e == 0);
  if (!any) return *this;
  DimPairs window;
  Mask mask;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t total;
    if (__builtin_add_overflow(shape[i].max(), arg[i].first.max(), &total) ||
        __builtin_add_overflow(total, arg[i].second.max(), &total))
      fail("ValueError", "padding " + pairs_str(arg) + " of shape " + tuple_str(shape) +
                             " makes a dimension larger than a 64-bit size can count");
    window.push_back({0 - arg[i].first, shape[i] + arg[i].second});
    mask.push_back({arg[i].first, shape[i] + arg[i].first});
  }
  return unsafe_resize(*this, window, mask);
}

View View::shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const {
  bool ok = arg.size() == shape.size();
  for (size_t i = 0; ok && i < arg.size(); ++i)
    ok = 0 <= arg[i].first && arg[i].first <= arg[i].second && arg[i].second <= shape[i];
  check(ok, "AssertionError",
        [&] { return "invalid shrink " + pairs_str(int_pairs(arg)) + " for " + tuple_str(shape); });
  return unsafe_resize(*this, int_pairs(arg), std::nullopt);
}

View View::shrink_symbolic(const DimPairs& arg) const {
  if (all_int(arg)) {
    std::vector<std::pair<int64_t, int64_t>> concrete;
    for (const auto& [b, e] : arg) concrete.push_back({int64_t(b), int64_t(e)});
    return shrink(concrete);
  }
  // tinygrad's `0<=b<=e<=s` on nodes refuses only what is false at every value: gpt2 writes its
  // KV cache at (start_pos, start_pos+1) of a MAX_CONTEXT axis with start_pos up to MAX_CONTEXT.
  // tg-run checks the views again at the values it runs with.
  bool ok = arg.size() == shape.size();
  for (size_t i = 0; ok && i < arg.size(); ++i)
    ok = arg[i].first.max() >= 0 && (arg[i].second - arg[i].first).max() >= 0 &&
         (arg[i].second - shape[i]).min() <= 0;
  check(ok, "AssertionError",
        [&] { return "invalid shrink " + pairs_str(arg) + " for " + tuple_str(shape); });
  return unsafe_resize(*this, arg, std::nullopt);
}

View View::expand(const Shape& new_shape) const {
  if (new_shape.size() != shape.size())
    fail("ValueError", "expand arg new_shape=" + tuple_str(new_shape) +
                           " must have same number of dimensions as shape self.shape=" + tuple_str(shape));
  const std::string cant = "can't expand " + tuple_str(shape) + " into " + tuple_str(new_shape);
  if (has_zero(shape)) {
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t s = shape[i], x = new_shape[i];
      check((s == 0 && x == 0) || (s > 0 && x % s == 0), "AssertionError", cant);
    }
    return View::create(new_shape);
  }
  for (size_t i = 0; i < shape.size(); ++i)
    check(shape[i] == new_shape[i] || (shape[i] == 1 && strides[i] == 0), "AssertionError", cant);
  std::optional<Mask> new_mask;
  if (mask) {
    new_mask = Mask();
    for (size_t i = 0; i < shape.size(); ++i) {
      auto m = (*mask)[i];
      if (!(shape[i] == new_shape[i]))
        m = m.first == 0 && m.second == 1 ? std::pair<sint, sint>{0, new_shape[i]}
                                          : std::pair<sint, sint>{0, 0};
      new_mask->push_back(m);
    }
  }
  return View::create(new_shape, strides, offset, new_mask);
}

View View::permute(const std::vector<int>& axis) const {
  std::vector<int> sorted = axis;
  std::sort(sorted.begin(), sorted.end());
  bool ok = sorted.size() == shape.size();
  for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int>(i);
  if (!ok) {
    std::string ax = "(";
    for (size_t i = 0; i < axis.size(); ++i) ax += (i ? ", " : "") + std::to_string(axis[i]);
    ax += axis.size() == 1 ? ",)" : ")";
    fail("AssertionError", "invalid permutation " + ax + " of len " + std::to_string(shape.size()));
  }
  Shape new_shape, new_strides;
  std::optional<Mask> new_mask;
  if (mask) new_mask = Mask();
  for (int a : axis) {
    new_shape.push_back(shape[a]);
    new_strides.push_back(strides[a]);
    if (mask) new_mask->push_back((*mask)[a]);
  }
  return View::create(new_shape, new_strides, offset, new_mask);
}

View View::stride(const std::vector<int64_t>& mul) const {
  bool ok = mul.size() == shape.size();
  for (int64_t m : mul) ok = ok && m != 0;
  check(ok, "AssertionError",
        [&] { return "invalid stride " + tuple_str(mul) + " for " + tuple_str(shape); });
  Shape new_strides, new_shape;
  sint extra = 0;
  std::optional<Mask> new_mask;
  if (mask) new_mask = Mask();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (mul[i] == 1 || mul[i] == -1) { // a flip, or nothing: symbolic dims and masks stay so
      const sint& s = shape[i];
      new_strides.push_back(strides[i] * mul[i]);
      new_shape.push_back(s);
      if (mul[i] < 0) extra += (s - 1) * strides[i];
      if (mask) {
        const auto& [mx, my] = (*mask)[i];
        new_mask->push_back(mul[i] > 0 ? std::pair<sint, sint>{mx, my}
                                       : std::pair<sint, sint>{s - my, s - mx});
      }
      continue;
    }
    int64_t s = shape[i], m = mul[i], am = std::abs(m);
    new_strides.push_back(strides[i] * m);
    new_shape.push_back(floordiv_int(s + am - 1, am));
    if (m < 0) extra += (s - 1) * strides[i];
    if (mask) {
      auto [mx, my] = (*mask)[i];
      new_mask->push_back({floordiv_int((m > 0 ? mx : s - my) + am - 1, am),
                           floordiv_int((m > 0 ? my : s - mx) + am - 1, am)});
    }
  }
  return View::create(new_shape, new_strides, offset + extra, new_mask);
}

std::optional<View> View::reshape(const Shape& new_shape) const {
  if (shape == new_shape) return *this;
  for (const sint& x : new_shape)
    check(x.min() >= 0, "AssertionError",
          [&] { return "shape can't contain negative numbers " + tuple_str(new_shape); });
  if (has_zero(shape)) {
    check(has_zero(new_shape), "AssertionError",
          [&] { return "cannot reshape 0 size to " + tuple_str(new_shape); });
    return View::create(new_shape);
  }
  // (a symbolic size is checked with the variables' bound values, which the lazy layer knows)
  if (all_int(shape) && all_int(new_shape) && prod(shape) != prod(new_shape))
    fail("ValueError", "size mismatched, can't reshape self.shape=" + tuple_str(shape) +
                           " -> new_shape=" + tuple_str(new_shape));
  if (new_shape.empty() && mask) {
    for (auto [mx, my] : *mask)
      if (mx == my) return std::nullopt;
  }
  if (contiguous) return View::create(new_shape);
  // Added for symbolic shapes: a broadcast view (every stride 0, no mask) reshapes to anything
  // of its size, which the lazy layer checked at the variables' values.
  if (!mask && (!all_int(shape) || !all_int(new_shape)) &&
      std::all_of(strides.begin(), strides.end(), [](const sint& st) { return st == 0; }))
    return View::create(new_shape, Shape(new_shape.size(), 0), offset);

  Shape rev_strides;
  ReverseCursor<sint> new_dims(new_shape, 0);
  std::vector<MergedDim> merged = merge_dims(shape, strides, mask);
  for (size_t k = merged.size(); k-- > 0;) {
    auto [merged_dim, new_stride, real_dim] = merged[k];
    if (!merged_dim.is_int()) { // a symbolic run maps onto new dims whose product it is: (n*128) -> n, 128
      if (!(real_dim == merged_dim)) return std::nullopt; // (an expanded dim inside: not yet)
      sint acc = 1;
      while (!(acc == merged_dim)) {
        sint nd = new_dims.next(); // 0 = exhausted (no zeros remain in new_shape here)
        if (nd == 0 || acc.max() > merged_dim.max()) return std::nullopt;
        rev_strides.push_back(new_stride);
        if (!(nd == 1)) acc = acc * nd, new_stride = new_stride * nd;
      }
      continue;
    }
    int64_t acc = 1;
    while (acc <= merged_dim && acc != merged_dim) {
      sint nd = new_dims.next(); // 0 = exhausted (no zeros remain in new_shape here)
      if (!nd.is_int()) return std::nullopt;
      int64_t new_dim = nd;
      if (!new_dim) break;
      rev_strides.push_back(new_stride);
      if (new_dim != 1) new_stride = new_stride * ((acc = acc * new_dim) < real_dim ? new_dim : 0);
    }
    if (acc != merged_dim) return std::nullopt;
  }
  rev_strides.resize(new_shape.size(), 0);
  auto [new_mask, extra] = reshape_mask(*this, new_shape);
  if (extra) return std::nullopt;
  std::reverse(rev_strides.begin(), rev_strides.end());
  Shape sizes = new_shape;
  if (new_mask && !new_mask->empty()) {
    for (size_t i = 0; i < sizes.size(); ++i) sizes[i] = (*new_mask)[i].second - (*new_mask)[i].first;
  }
  Shape new_strides = canonicalize_strides(sizes, rev_strides);
  sint extra_offset = 0;
  if (mask)
    for (size_t i = 0; i < shape.size(); ++i) extra_offset += (*mask)[i].first * strides[i];
  if (new_mask)
    for (size_t i = 0; i < new_shape.size(); ++i) extra_offset -= (*new_mask)[i].first * new_strides[i];
  return View::create(new_shape, new_strides, offset + extra_offset, new_mask);
}

std::string shape_repr(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].str();
  return out + (s.size() == 1 ? ",)" : ")");
}

} // namespace tg
