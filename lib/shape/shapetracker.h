// shape layer, views: tinygrad 0.9.1's shape/view.py and shape/shapetracker.py with concrete
// (int) shapes. A View is shape/strides/offset/mask; a ShapeTracker is a stack of views, the
// last one the visible shape. Movement ops return new values; nothing is mutated.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shape/sint.h"
#include "shape/symbolic.h"

namespace tg {

using Shape = std::vector<sint>;                     // dims, strides: ints or symbolic (sint.h)
using DimPairs = std::vector<std::pair<sint, sint>>; // per dim (begin, end), may be symbolic
using Mask = DimPairs;                               // per dim [begin, end): symbolic after a pad by a symbol

// The number of elements (a symbolic dimension counts at its largest value: the size a buffer of
// that shape is allocated for, as tinygrad's View.size()); a ValueError when it does not fit in int64 (shapes
// are sizes, and a wrapped size would silently compute the wrong thing).
int64_t prod(const Shape& s);
// Added for symbolic shapes: the symbolic product; whether a shape has no symbolic dimension.
sint sym_prod(const Shape& s);
bool all_int(const Shape& s);
// Between shapes and plain int lists (split sizes, npy headers): shape_ints refuses a symbolic dim.
std::vector<int64_t> shape_ints(const Shape& s);
inline Shape shape_from_ints(const std::vector<int64_t>& v) { return Shape(v.begin(), v.end()); }
// a * b for sizes, with the same ValueError on overflow.
int64_t size_mul(int64_t a, int64_t b);
// Python's repr of a tuple of ints, as tinygrad's messages print shapes: (), (4,), (2, 3).
std::string shape_repr(const Shape& s);
Shape strides_for_shape(const Shape& shape);
Shape canonicalize_strides(const Shape& shape, const Shape& strides);

struct View {
  Shape shape;
  Shape strides;
  sint offset = 0; // symbolic after a shrink whose begin is (a KV cache read at a position)
  std::optional<Mask> mask;
  bool contiguous = false;

  static View create(const Shape& shape, std::optional<Shape> strides = std::nullopt, sint offset = 0,
                     std::optional<Mask> mask = std::nullopt);
  bool operator==(const View& o) const;
  int64_t size() const;

  // vm2 + vm1 in tinygrad's notation: this view applied on top of `below`; nullopt = can't merge.
  std::optional<View> merge_onto(const View& below) const;
  std::optional<View> invert(const Shape& out_shape) const;
  View minify() const;
  View pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  View shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  // Added for symbolic shapes: a shrink whose ends may be symbolic (a KV cache's cache[:, 0:i]);
  // the int shrink when every bound is an int.
  View shrink_symbolic(const DimPairs& arg) const;
  // Added for symbolic shapes: a pad by symbolic amounts (cat along a symbolic axis), masked by
  // symbolic bounds (the int pad is this one).
  View pad_symbolic(const DimPairs& arg) const;
  View expand(const Shape& new_shape) const;
  View permute(const std::vector<int>& axis) const;
  View stride(const std::vector<int64_t>& mul) const;
  std::optional<View> reshape(const Shape& new_shape) const;
};

// Lowest and highest buffer index a view can touch (its valid region only); nullopt when it
// touches nothing. On int64 overflow (a hostile artifact) the whole int64 range, which no
// buffer holds.
std::optional<std::pair<int64_t, int64_t>> index_range(const View& v);
// Added for symbolic shapes: one past the highest index a view can touch (0: none), symbolic when
// its shape or strides are (tg-run checks it against the buffer at the values it runs with).
sint index_end(const View& v);

// Index variables that loop over symbolic dimensions, with their ends (idx < end). A view over
// a symbolic shape splits an index by `% n` and `// n` with n a node, which tinygrad's Node
// rules allow where the index is known to lie in [0, n): x % n is x, x // n is 0.
using IdxEnds = std::vector<std::pair<const ExprNode*, Expr>>;

struct ShapeTracker {
  std::vector<View> views;

  static ShapeTracker from_shape(const Shape& shape);
  bool operator==(const ShapeTracker& o) const { return views == o.views; }
  ShapeTracker operator+(const ShapeTracker& st) const; // compose: st applied on top of this
  std::optional<ShapeTracker> invert(const Shape& out_shape) const;

  const Shape& shape() const { return views.back().shape; }
  int64_t size() const { return views.back().size(); }
  int64_t real_size() const; // elements of the underlying buffer that can be touched
  bool contiguous() const { return views.size() == 1 && views[0].contiguous; }
  bool consecutive() const;
  std::vector<std::optional<int64_t>> real_strides(bool ignore_valid = false) const;
  std::vector<int> unit_stride_axes(bool ignore_valid = false) const;
  bool axis_is_masked(int axis) const;
  ShapeTracker simplify() const;

  // (index, valid) for the given per-dimension index expressions; default: idx0..idxN-1. `ends`
  // gives the symbolic end of an index variable that loops over a symbolic dimension (idx < i),
  // for the views below the last one over symbolic shapes (idx_ends below).
  std::pair<Expr, Expr> expr_idxs(std::optional<std::vector<Expr>> idxs = std::nullopt,
                                  const IdxEnds& ends = {}) const;

  ShapeTracker pad(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  ShapeTracker shrink(const std::vector<std::pair<int64_t, int64_t>>& arg) const;
  ShapeTracker shrink_symbolic(const DimPairs& arg) const;
  ShapeTracker pad_symbolic(const DimPairs& arg) const;
  ShapeTracker expand(const Shape& new_shape) const;
  ShapeTracker permute(const std::vector<int>& axis) const;
  ShapeTracker stride(const std::vector<int64_t>& mul) const;
  ShapeTracker reshape(const Shape& new_shape) const;
};

// A shape, and a tracker, with every variable at its value in `vars` (sint.h's eval_dim).
Shape shape_at(const Shape& s, const std::vector<VarBinding>& vars);
ShapeTracker at_values(const ShapeTracker& st, const std::vector<VarBinding>& vars);

} // namespace tg
