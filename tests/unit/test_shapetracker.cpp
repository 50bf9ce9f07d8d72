// ShapeTracker: cases ported from tinygrad 0.9.1 test/unit/test_shapetracker.py. A checking
// tracker applies every movement op to a reference (an index function over arange) too, and
// compares what the tracker's index/valid expressions address for every element. Expected
// views and expression text come from running tinygrad 0.9.1.
#include <gtest/gtest.h>

#include <functional>

#include "shape/shapetracker.h"
#include "util/error.h"

using tg::Expr;
using tg::ExprKind;
using tg::ExprNode;
using tg::Mask;
using tg::Shape;
using tg::ShapeTracker;
using tg::View;
using Pads = std::vector<std::pair<int64_t, int64_t>>;

namespace {

int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Evaluates an expression with every variable set to `value` (only idx0 is left after flattening).
int64_t eval(const ExprNode* n, int64_t value) {
  switch (n->kind) {
  case ExprKind::Num:
    return n->b;
  case ExprKind::Var:
    return value;
  case ExprKind::Mul:
    return eval(n->a, value) * n->b;
  case ExprKind::Div:
    return floordiv(eval(n->a, value), n->b);
  case ExprKind::Mod:
    return eval(n->a, value) - floordiv(eval(n->a, value), n->b) * n->b;
  case ExprKind::Lt:
    return eval(n->a, value) < n->b;
  case ExprKind::Sum: {
    int64_t s = 0;
    for (auto* c : n->nodes) s += eval(c, value);
    return s;
  }
  case ExprKind::And:
    for (auto* c : n->nodes)
      if (!eval(c, value)) return 0;
    return 1;
  }
  return 0;
}

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

// CheckingShapeTracker: the tracker plus a reference element function (-1 = padding).
struct Checking {
  ShapeTracker st;
  Shape shape;
  std::function<int64_t(const std::vector<int64_t>&)> at;

  explicit Checking(const Shape& s) : st(ShapeTracker::from_shape(s)), shape(s) {
    at = [s](const std::vector<int64_t>& idx) {
      int64_t flat = 0;
      for (size_t i = 0; i < s.size(); ++i) flat = flat * s[i] + idx[i];
      return flat;
    };
  }
  Checking& reshape(const Shape& ns) {
    st = st.reshape(ns);
    auto old = at;
    Shape os = shape;
    at = [old, os, ns](const std::vector<int64_t>& idx) {
      int64_t flat = 0;
      for (size_t i = 0; i < ns.size(); ++i) flat = flat * ns[i] + idx[i];
      return old(unravel(flat, os));
    };
    shape = ns;
    return *this;
  }
  Checking& permute(const std::vector<int>& axis) {
    st = st.permute(axis);
    auto old = at;
    Shape ns;
    for (int a : axis) ns.push_back(shape[a]);
    at = [old, axis](const std::vector<int64_t>& idx) {
      std::vector<int64_t> o(idx.size());
      for (size_t i = 0; i < axis.size(); ++i) o[axis[i]] = idx[i];
      return old(o);
    };
    shape = ns;
    return *this;
  }
  Checking& expand(const Shape& ns) {
    st = st.expand(ns);
    auto old = at;
    Shape os = shape;
    at = [old, os](std::vector<int64_t> idx) {
      for (size_t i = 0; i < os.size(); ++i)
        if (os[i] == 1) idx[i] = 0;
      return old(idx);
    };
    shape = ns;
    return *this;
  }
  Checking& pad(const Pads& arg) {
    st = st.pad(arg);
    auto old = at;
    Shape os = shape;
    at = [old, os, arg](std::vector<int64_t> idx) -> int64_t {
      for (size_t i = 0; i < os.size(); ++i) {
        idx[i] -= arg[i].first;
        if (idx[i] < 0 || idx[i] >= os[i]) return -1;
      }
      return old(idx);
    };
    for (size_t i = 0; i < shape.size(); ++i) shape[i] += arg[i].first + arg[i].second;
    return *this;
  }
  Checking& shrink(const Pads& arg) {
    st = st.shrink(arg);
    auto old = at;
    at = [old, arg](std::vector<int64_t> idx) {
      for (size_t i = 0; i < idx.size(); ++i) idx[i] += arg[i].first;
      return old(idx);
    };
    for (size_t i = 0; i < shape.size(); ++i) shape[i] = arg[i].second - arg[i].first;
    return *this;
  }
  Checking& stride(const std::vector<int64_t>& mul) {
    st = st.stride(mul);
    auto old = at;
    Shape os = shape;
    at = [old, os, mul](std::vector<int64_t> idx) {
      for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = mul[i] > 0 ? idx[i] * mul[i] : int64_t(os[i]) - 1 + idx[i] * mul[i];
      return old(idx);
    };
    for (size_t i = 0; i < shape.size(); ++i) shape[i] = (shape[i] + std::abs(mul[i]) - 1) / std::abs(mul[i]);
    return *this;
  }
  Checking& flip(const std::vector<int>& axes) {
    std::vector<int64_t> mul(shape.size(), 1);
    for (int a : axes) mul[a] = -1;
    return stride(mul);
  }
  Checking& simplify() {
    st = st.simplify();
    return *this;
  }
  bool contiguous() const { return st.contiguous(); }
  size_t view_count() const { return st.views.size(); }

  void assert_same() const {
    ASSERT_EQ(st.shape(), shape);
    int64_t n = tg::prod(shape);
    auto [idx, valid] = st.reshape({n}).expr_idxs();
    for (int64_t i = 0; i < n; ++i) {
      int64_t got = eval(valid.node(), i) ? eval(idx.node(), i) : -1;
      ASSERT_EQ(got, at(unravel(i, shape)))
          << "element " << i << " idx=" << idx.render() << " valid=" << valid.render();
    }
  }
};

std::string render_views(const ShapeTracker& st) {
  auto tuple = [](const Shape& s) {
    std::string o = "(";
    for (size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
    return o + (s.size() == 1 ? ",)" : ")");
  };
  std::string out;
  for (const View& v : st.views) {
    std::string mask = "None";
    if (v.mask) {
      mask = "(";
      for (size_t i = 0; i < v.mask->size(); ++i)
        mask += (i ? ", (" : "(") + std::to_string((*v.mask)[i].first) + ", " +
                std::to_string((*v.mask)[i].second) + ")";
      mask += v.mask->size() == 1 ? ",)" : ")";
    }
    out += (out.empty() ? "" : ", ") + std::string("View(shape=") + tuple(v.shape) +
           ", strides=" + tuple(v.strides) + ", offset=" + std::to_string(v.offset) + ", mask=" + mask +
           ", contiguous=" + (v.contiguous ? "True" : "False") + ")";
  }
  return out;
}

std::string render_strides(const std::vector<std::optional<int64_t>>& rs) {
  std::string o = "(";
  for (size_t i = 0; i < rs.size(); ++i) o += (i ? ", " : "") + (rs[i] ? std::to_string(*rs[i]) : "None");
  return o + (rs.size() == 1 ? ",)" : ")");
}

void expect_exprs(const ShapeTracker& st, const std::string& idx, const std::string& valid) {
  auto [i, v] = st.expr_idxs();
  EXPECT_EQ(i.render(), idx);
  EXPECT_EQ(v.render(), valid);
}

ShapeTracker two_views(View a, View b) { return ShapeTracker{{a, b}}; }

} // namespace

// ---- index and valid expressions, pinned to tinygrad's text ----

TEST(ShapeTrackerExpr, contiguous_index_is_row_major_sum) {
  expect_exprs(ShapeTracker::from_shape({4, 4}), "((idx0*4)+idx1)", "1");
}

TEST(ShapeTrackerExpr, size_one_dims_have_no_index_variable) {
  expect_exprs(ShapeTracker::from_shape({3, 1, 5}), "((idx0*5)+idx2)", "1");
}

TEST(ShapeTrackerExpr, pad_adds_valid_bounds) {
  ShapeTracker st = ShapeTracker::from_shape({7, 4}).pad({{1, 1}, {1, 1}});
  expect_exprs(st, "((idx0*4)+-5+idx1)", "(((idx0*-1)<0) and ((idx1*-1)<0) and (idx0<8) and (idx1<5))");
  EXPECT_EQ(st.real_size(), 33);
}

TEST(ShapeTrackerExpr, pad_then_shrink_keeps_only_live_bounds) {
  ShapeTracker st = ShapeTracker::from_shape({7, 4}).pad({{1, 1}, {1, 1}}).shrink({{0, 4}, {0, 4}});
  EXPECT_EQ(render_views(st),
            "View(shape=(4, 4), strides=(4, 1), offset=-5, mask=((1, 4), (1, 4)), contiguous=False)");
  expect_exprs(st, "((idx0*4)+-5+idx1)", "(((idx0*-1)<0) and ((idx1*-1)<0))");
}

TEST(ShapeTrackerExpr, flip_uses_negative_stride_and_offset) {
  ShapeTracker st = ShapeTracker::from_shape({7, 4}).stride({-1, 1});
  expect_exprs(st, "((idx0*-4)+24+idx1)", "1");
  EXPECT_EQ(render_strides(st.real_strides()), "(-4, 1)");
}

TEST(ShapeTrackerExpr, stride_two_scales_strides) {
  ShapeTracker st = ShapeTracker::from_shape({7, 4}).stride({2, 2});
  expect_exprs(st, "((idx0*8)+(idx1*2))", "1");
  EXPECT_EQ(st.real_size(), 27);
}

TEST(ShapeTrackerExpr, expand_drops_broadcast_index) {
  ShapeTracker st = ShapeTracker::from_shape({7, 1, 4}).expand({7, 3, 4});
  expect_exprs(st, "((idx0*4)+idx2)", "1");
  EXPECT_EQ(render_strides(st.real_strides()), "(4, 0, 1)");
}

TEST(ShapeTrackerExpr, two_views_split_the_flat_index) {
  ShapeTracker st = ShapeTracker::from_shape({4, 4, 4}).permute({2, 0, 1}).reshape({16, 4});
  ASSERT_EQ(st.views.size(), 2u);
  expect_exprs(st, "((((((idx0*4)%16)+idx1)%16)*4)+(idx0//4))", "1");
}

TEST(ShapeTrackerExpr, permute_reshape_makes_second_view) {
  ShapeTracker st = ShapeTracker::from_shape({30, 5}).permute({1, 0}).reshape({6, 1, 25});
  EXPECT_EQ(render_views(st),
            "View(shape=(5, 30), strides=(1, 5), offset=0, mask=None, contiguous=False), "
            "View(shape=(6, 1, 25), strides=(25, 0, 1), offset=0, mask=None, contiguous=True)");
  expect_exprs(st, "((((((idx0*25)%30)+idx2)%30)*5)+(((idx0*25)+idx2)//30))", "1");
}

TEST(ShapeTrackerExpr, masked_lower_view_projects_into_valid) {
  ShapeTracker st = two_views(View::create({2048}, Shape{1}, 0, Mask{{0, 512}}), View::create({16, 32, 4}));
  expect_exprs(st, "((idx0*128)+(idx1*4)+idx2)", "(idx0<4)");
  EXPECT_EQ(render_strides(st.real_strides()), "(None, 4, 1)");
}

TEST(ShapeTrackerExpr, fully_masked_view_gives_zero_index_and_valid) {
  ShapeTracker st = ShapeTracker::from_shape({1, 3, 2})
                        .pad({{0, 0}, {0, 3}, {0, 0}})
                        .shrink({{0, 1}, {3, 6}, {0, 2}})
                        .reshape({3, 2});
  EXPECT_EQ(render_views(st),
            "View(shape=(3, 2), strides=(0, 0), offset=0, mask=((0, 0), (0, 0)), contiguous=False)");
  expect_exprs(st, "0", "0");
  EXPECT_EQ(st.real_size(), 0);
}

TEST(ShapeTrackerExpr, custom_index_variables) {
  ShapeTracker st = ShapeTracker::from_shape({4, 4}).permute({1, 0}).reshape({2, 8});
  auto [idx, valid] = st.expr_idxs(std::vector<Expr>{Expr::var("gidx0", 0, 1), Expr::var("lidx1", 0, 7)});
  EXPECT_EQ(idx.render(), "(((lidx1%4)*4)+(gidx0*2)+(lidx1//4))");
  EXPECT_EQ(valid.render(), "1");
}

TEST(ShapeTrackerExpr, conv_like_pad_expand_shrink) {
  ShapeTracker st = ShapeTracker::from_shape({1, 3, 8, 8})
                        .pad({{0, 0}, {0, 0}, {1, 1}, {1, 1}})
                        .reshape({1, 1, 3, 10, 10})
                        .expand({1, 4, 3, 10, 10})
                        .shrink({{0, 1}, {0, 4}, {0, 3}, {0, 8}, {0, 8}});
  EXPECT_EQ(st.views.size(), 1u);
  expect_exprs(st, "((idx2*64)+(idx3*8)+-9+idx4)", "(((idx3*-1)<0) and ((idx4*-1)<0))");
  EXPECT_EQ(render_strides(st.real_strides()), "(0, 0, 64, None, None)");
  EXPECT_EQ(st.real_size(), 183);
}

TEST(ShapeTrackerExpr, index_out_of_int32_range_throws) {
  ShapeTracker st{{View{{4096, 1024, 599, 1}, {613376, 599, 1, 0}, 0, std::nullopt, true}}};
  EXPECT_THROW(st.expr_idxs(), tg::Error);
}

TEST(ShapeTrackerExpr, axis_is_masked_reads_valid_variables) {
  ShapeTracker st = ShapeTracker::from_shape({4, 2}).pad({{1, 1}, {0, 0}});
  EXPECT_TRUE(st.axis_is_masked(0));
  EXPECT_FALSE(st.axis_is_masked(1));
}

// ---- reshape on masked views (merging stays one view) ----

TEST(ShapeTrackerReshape, reshape_merges_contiguous_dims) {
  Checking c({7, 4});
  c.reshape({7, 1, 4});
  EXPECT_TRUE(c.contiguous());
  c.assert_same();
}

TEST(ShapeTrackerReshape, pad_reshape_splits_mask) {
  Checking c({4});
  c.pad({{2, 2}}).reshape({4, 2});
  EXPECT_EQ(render_views(c.st),
            "View(shape=(4, 2), strides=(2, 1), offset=-2, mask=((1, 3), (0, 2)), contiguous=False)");
  c.assert_same();
}

TEST(ShapeTrackerReshape, pad_reshape_combines_mask_into_one_dim) {
  Checking c({1, 1, 4});
  c.pad({{3, 6}, {0, 0}, {1, 5}}).reshape({100});
  ASSERT_EQ(c.view_count(), 1u);
  EXPECT_EQ((*c.st.views[0].mask)[0], (std::pair<tg::sint, tg::sint>{31, 35}));
  expect_exprs(c.st, "(-31+idx0)", "(((idx0*-1)<-30) and (idx0<35))");
  c.assert_same();
}

TEST(ShapeTrackerReshape, reshaping_splitting_padded_permute) {
  Checking c({5, 10, 5, 10});
  c.permute({1, 0, 3, 2}).pad({{0, 0}, {0, 5}, {0, 0}, {0, 5}}).reshape({10, 2, 5, 10, 2, 5});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
}

TEST(ShapeTrackerReshape, splitting_1) {
  Checking c({1, 10, 1});
  c.pad({{0, 4}, {0, 0}, {1, 0}}).reshape({5, 5, 2, 2});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
}

TEST(ShapeTrackerReshape, combining_1_and_2) {
  Checking a({2, 1, 10});
  a.pad({{2, 6}, {0, 0}, {0, 0}}).reshape({100});
  EXPECT_EQ(a.view_count(), 1u);
  a.assert_same();
  Checking b({1, 1, 5});
  b.pad({{3, 6}, {0, 0}, {0, 5}}).reshape({100});
  EXPECT_EQ(b.view_count(), 1u);
  b.assert_same();
}

TEST(ShapeTrackerReshape, combining_4) {
  Checking c({1, 1, 5, 5, 1, 1, 5});
  c.pad({{3, 6}, {0, 0}, {0, 5}, {0, 0}, {3, 6}, {0, 0}, {0, 5}}).reshape({100, 5, 100});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
}

TEST(ShapeTrackerReshape, splitting_combining) {
  Checking c({1, 5, 5});
  c.pad({{0, 4}, {0, 5}, {0, 0}}).reshape({10, 25});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
}

TEST(ShapeTrackerReshape, only_ones_added_and_removed) {
  Checking c({1, 1, 1, 4, 1, 3, 5, 1});
  c.pad({{0, 4}, {0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}).reshape({5, 6, 3, 5});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
  c.reshape({1, 1, 5, 6, 3, 5, 1, 1});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
  c.reshape({1, 5, 6, 1, 3, 1, 5, 1});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
}

TEST(ShapeTrackerReshape, zero_mask_survives_reshape) {
  Checking a({1, 3, 2});
  a.pad({{0, 0}, {0, 3}, {0, 0}}).shrink({{0, 1}, {3, 6}, {0, 2}}).reshape({3, 2});
  EXPECT_EQ(a.view_count(), 1u);
  a.assert_same();
  a.reshape({1, 3, 1, 2, 1});
  EXPECT_EQ(a.view_count(), 1u);
  a.assert_same();
  Checking b({1, 3, 2});
  b.pad({{0, 2}, {0, 3}, {0, 0}}).shrink({{2, 3}, {3, 6}, {0, 2}}).reshape({3, 2});
  EXPECT_EQ(b.view_count(), 1u);
  b.assert_same();
}

TEST(ShapeTrackerReshape, expanded_then_padded_reshape) {
  Checking c({1, 3, 2, 1});
  c.expand({5, 3, 2, 2}).pad({{0, 0}, {0, 3}, {0, 0}, {0, 0}}).reshape({5, 2, 3, 2, 2});
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
}

TEST(ShapeTrackerReshape, splitting_big_keeps_single_index_masks) {
  Checking c({1, 5, 1, 15, 1});
  c.pad({{0, 0}, {0, 5}, {0, 0}, {0, 15}, {0, 0}})
      .reshape({10, 1, 30})
      .permute({2, 1, 0})
      .reshape({2, 3, 5, 2, 5});
  ASSERT_EQ(c.view_count(), 1u);
  const View& v = c.st.views.back();
  EXPECT_EQ(v.strides, (Shape{0, 5, 1, 0, 15}));
  EXPECT_EQ(*v.mask, (Mask{{0, 1}, {0, 3}, {0, 5}, {0, 1}, {0, 5}}));
  expect_exprs(c.st, "((idx1*5)+(idx4*15)+idx2)", "((idx0<1) and (idx3<1))");
  c.assert_same();
}

TEST(ShapeTrackerReshape, combining_big_moves_offset) {
  Checking c({1, 3, 1, 5, 3, 1});
  c.pad({{0, 0}, {2, 2}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}).reshape({1, 1, 1, 105, 1, 1});
  ASSERT_EQ(c.view_count(), 1u);
  const View& v = c.st.views.back();
  EXPECT_EQ(v.strides, (Shape{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(*v.mask, (Mask{{0, 1}, {0, 1}, {0, 1}, {30, 75}, {0, 1}, {0, 1}}));
  EXPECT_EQ(v.offset, -30);
  c.assert_same();
}

TEST(ShapeTrackerReshape, masked_pad_reshape_variants) {
  Checking a({1, 2});
  a.pad({{1, 0}, {0, 1}}).reshape({3, 2});
  a.assert_same();
  Checking b({1, 2});
  b.pad({{1, 1}, {0, 2}}).reshape({4, 3});
  b.assert_same();
  Checking c({1, 1, 1, 2});
  c.pad({{0, 2}, {1, 2}, {2, 2}, {0, 4}}).reshape({4, 3, 6, 5});
  c.assert_same();
}

TEST(ShapeTrackerReshape, size_mismatch_throws_value_error) {
  try {
    ShapeTracker::from_shape({2, 3}).reshape({4});
    FAIL() << "expected tg::Error";
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_STREQ(e.what(), "size mismatched, can't reshape self.shape=(2, 3) -> new_shape=(4,)");
  }
}

TEST(ShapeTrackerReshape, negative_dim_throws) {
  EXPECT_THROW(ShapeTracker::from_shape({2, 3}).reshape({-2, -3}), tg::Error);
}

TEST(ShapeTrackerReshape, zero_size_reshapes_to_zero_size) {
  ShapeTracker st = ShapeTracker::from_shape({0, 3}).reshape({3, 0});
  EXPECT_EQ(st.shape(), (Shape{3, 0}));
  EXPECT_EQ(st.real_size(), 0);
  EXPECT_THROW(ShapeTracker::from_shape({0, 3}).reshape({3}), tg::Error);
}

// ---- contiguity ----

TEST(ShapeTrackerContiguous, permute_of_ones_stays_contiguous) {
  Checking a({1, 16, 9, 9});
  a.permute({1, 0, 2, 3});
  EXPECT_TRUE(a.contiguous());
  Checking b({2, 16, 9, 9});
  b.permute({1, 0, 2, 3});
  EXPECT_FALSE(b.contiguous());
  b.assert_same();
}

TEST(ShapeTrackerContiguous, add_and_remove_ones) {
  Checking c({4, 4});
  c.permute({1, 0}).reshape({1, 4, 1, 4, 1});
  EXPECT_FALSE(c.contiguous());
  c.permute({0, 3, 2, 1, 4});
  EXPECT_TRUE(c.contiguous());
  Checking d({1, 4, 1, 4, 1});
  d.permute({0, 3, 2, 1, 4}).reshape({4, 4});
  EXPECT_FALSE(d.contiguous());
  d.permute({1, 0});
  EXPECT_TRUE(d.contiguous());
  Checking e({1, 16, 1, 1});
  e.reshape({16});
  EXPECT_TRUE(e.contiguous());
}

TEST(ShapeTrackerContiguous, factorized_permutes_undo) {
  Checking a({4, 4});
  a.permute({1, 0}).reshape({2, 2, 2, 2});
  EXPECT_EQ(a.view_count(), 1u);
  a.permute({2, 3, 0, 1});
  EXPECT_TRUE(a.contiguous());
  Checking b({4, 4, 4});
  b.permute({2, 0, 1}).reshape({4, 16}).permute({1, 0});
  EXPECT_TRUE(b.contiguous());
  Checking c({4, 4, 4});
  c.permute({2, 0, 1}).reshape({4, 16, 1, 1}).permute({1, 0, 2, 3});
  EXPECT_TRUE(c.contiguous());
}

TEST(ShapeTrackerContiguous, fancy_factorize_and_complex_fail) {
  Checking a({32, 3, 3, 1});
  a.reshape({8, 4, 3, 3});
  EXPECT_EQ(a.view_count(), 1u);
  Checking b({4, 4, 4});
  b.permute({2, 0, 1}).reshape({16, 4});
  EXPECT_NE(b.view_count(), 1u);
  b.assert_same();
}

TEST(ShapeTrackerContiguous, work_round_trips) {
  Checking a({64, 1024, 4});
  a.reshape({1, 64, 128, 32}).permute({0, 3, 1, 2}).reshape({1, 32, 1, 64, 128}).permute({0, 3, 4, 1, 2});
  EXPECT_TRUE(a.contiguous());
  Checking b({64, 1024, 4});
  b.reshape({1, 64, 128, 32}).permute({0, 3, 1, 2}).reshape({1, 1, 32, 64, 128}).permute({0, 3, 4, 1, 2});
  b.reshape({64, 1024, 4});
  EXPECT_TRUE(b.contiguous());
}

TEST(ShapeTrackerContiguous, single_tracker_ops) {
  Checking a({7, 4});
  a.permute({1, 0});
  EXPECT_FALSE(a.contiguous());
  a.permute({1, 0});
  EXPECT_TRUE(a.contiguous());
  Checking b({7, 4});
  b.shrink({{1, 2}, {0, 4}});
  EXPECT_FALSE(b.contiguous());
  b.assert_same();
  Checking c({7, 4});
  c.reshape({7, 1, 4}).permute({0, 2, 1});
  EXPECT_TRUE(c.contiguous());
  Checking d({7, 4});
  d.reshape({4, 7}).permute({1, 0});
  EXPECT_FALSE(d.contiguous());
  d.assert_same();
}

TEST(ShapeTrackerContiguous, consecutive_needs_unmasked_default_strides) {
  ShapeTracker t = ShapeTracker::from_shape({2, 4});
  EXPECT_TRUE(t.consecutive());
  EXPECT_TRUE(t.reshape({4, 2}).consecutive());
  EXPECT_TRUE(t.shrink({{0, 1}, {0, 4}}).consecutive());
  EXPECT_TRUE(t.shrink({{1, 2}, {0, 4}}).consecutive()); // offset doesn't matter
  EXPECT_FALSE(t.shrink({{0, 2}, {0, 1}}).consecutive());
  EXPECT_FALSE(t.pad({{1, 1}, {0, 0}}).consecutive());
  ShapeTracker ones = ShapeTracker::from_shape({1, 1}).expand({2, 4});
  EXPECT_FALSE(ones.consecutive());
  EXPECT_TRUE(ones.shrink({{0, 1}, {0, 1}}).consecutive());
}

// ---- movement ops, each checked element by element ----

struct MovementCase {
  const char* name;
  std::function<void(Checking&)> apply;
};

class ShapeTrackerMovement : public ::testing::TestWithParam<MovementCase> {};

TEST_P(ShapeTrackerMovement, matches_reference) {
  Checking c({7, 4});
  GetParam().apply(c);
  c.assert_same();
}

INSTANTIATE_TEST_SUITE_P(
    Ops, ShapeTrackerMovement,
    ::testing::Values(
        MovementCase{"noop", [](Checking&) {}},
        MovementCase{"simple_split",
                     [](Checking& c) {
                       c.permute({1, 0}).reshape({28});
                     }},
        MovementCase{"simple_pad",
                     [](Checking& c) {
                       c.pad({{1, 1}, {1, 1}});
                     }},
        MovementCase{"pad_shrink",
                     [](Checking& c) {
                       c.pad({{1, 1}, {1, 1}}).shrink({{0, 4}, {0, 4}});
                     }},
        MovementCase{"pad_one_sided",
                     [](Checking& c) {
                       c.pad({{0, 1}, {0, 0}});
                     }},
        MovementCase{"pad_reshape",
                     [](Checking& c) {
                       c.pad({{0, 1}, {0, 0}}).reshape({32});
                     }},
        MovementCase{"pad_pad",
                     [](Checking& c) {
                       c.pad({{1, 1}, {1, 1}}).pad({{1, 1}, {1, 1}});
                     }},
        MovementCase{"pad_permute",
                     [](Checking& c) {
                       c.pad({{1, 1}, {2, 2}}).permute({1, 0});
                     }},
        MovementCase{"pad_expand",
                     [](Checking& c) {
                       c.reshape({7, 4, 1}).pad({{1, 1}, {1, 1}, {0, 0}}).expand({9, 6, 4});
                     }},
        MovementCase{"pad_expand_alt",
                     [](Checking& c) {
                       c.pad({{1, 1}, {1, 1}}).reshape({9, 6, 1}).expand({9, 6, 4});
                     }},
        MovementCase{"pad_stride",
                     [](Checking& c) {
                       c.pad({{1, 4}, {1, 3}}).stride({2, 2});
                     }},
        MovementCase{"pad_stride_neg",
                     [](Checking& c) {
                       c.pad({{1, 2}, {1, 0}}).stride({-1, -1});
                     }},
        MovementCase{"pad_stride_both",
                     [](Checking& c) {
                       c.pad({{1, 2}, {1, 0}}).stride({-2, -2});
                     }},
        MovementCase{"shrink_pad",
                     [](Checking& c) {
                       c.shrink({{0, 4}, {0, 4}}).pad({{1, 1}, {1, 1}});
                     }},
        MovementCase{"reshape_reverse",
                     [](Checking& c) {
                       c.reshape({4, 7});
                     }},
        MovementCase{"expand",
                     [](Checking& c) {
                       c.reshape({7, 1, 4}).expand({7, 2, 4});
                     }},
        MovementCase{"flip_0", [](Checking& c) { c.flip({0}); }},
        MovementCase{"flip_1", [](Checking& c) { c.flip({1}); }},
        MovementCase{"flip_01",
                     [](Checking& c) {
                       c.flip({0, 1});
                     }},
        MovementCase{"slice_0",
                     [](Checking& c) {
                       c.shrink({{1, 7}, {0, 4}});
                     }},
        MovementCase{"slice_1c2",
                     [](Checking& c) {
                       c.shrink({{1, 2}, {1, 2}});
                     }},
        MovementCase{"slice_permute",
                     [](Checking& c) {
                       c.shrink({{0, 2}, {2, 4}}).permute({1, 0});
                     }},
        MovementCase{"slice_expand",
                     [](Checking& c) {
                       c.shrink({{0, 2}, {3, 4}}).expand({2, 10});
                     }},
        MovementCase{"double_stride",
                     [](Checking& c) {
                       c.stride({1, 2}).stride({2, 1});
                     }},
        MovementCase{"stride_2_n",
                     [](Checking& c) {
                       c.stride({-2, -2});
                     }},
        MovementCase{"stride_int_n",
                     [](Checking& c) {
                       c.stride({-1, 2});
                     }},
        MovementCase{
            "reshape_then_expand",
            [](Checking& c) {
              c.reshape({4, 7}).reshape({4, 1, 7}).expand({4, 2, 7});
            }},
        MovementCase{"expand_then_reshape",
                     [](Checking& c) { c.reshape({7, 1, 4}).expand({7, 2, 4}).reshape({4, 2, 7}); }},
        MovementCase{
            "combo",
            [](Checking& c) {
              c.permute({1, 0}).reshape({7, 4}).shrink({{0, 7}, {1, 4}});
              c.reshape({7, 1, 3}).expand({7, 2, 3}).permute({2, 0, 1});
            }}),
    [](const ::testing::TestParamInfo<MovementCase>& info) { return std::string(info.param.name); });

TEST(ShapeTrackerFuzzFailures, case_1_shrink_reshape_shrink_simplify) {
  Checking c({3, 3, 3});
  c.shrink({{1, 2}, {1, 3}, {1, 3}}).reshape({1, 4}).shrink({{0, 1}, {1, 3}}).simplify();
  c.assert_same();
}

TEST(ShapeTrackerFuzzFailures, case_2_negative_strides_through_reshape) {
  Checking c({3, 3, 3});
  c.stride({1, 1, -2}).reshape({3, 6}).shrink({{1, 2}, {1, 5}}).stride({1, -1});
  c.assert_same();
}

TEST(ShapeTrackerFuzzFailures, case_3_flip_after_reshape) {
  Checking c({3, 3, 3});
  c.shrink({{0, 2}, {0, 2}, {0, 1}}).permute({1, 0, 2}).reshape({4}).shrink({{0, 3}}).stride({-1});
  c.assert_same();
}

TEST(ShapeTrackerFuzzFailures, case_4_expand_of_masked_one) {
  Checking c({3, 3, 3});
  c.reshape({3, 3, 3, 1}).pad({{0, 0}, {0, 0}, {0, 0}, {1, 1}}).shrink({{0, 2}, {1, 2}, {0, 2}, {0, 1}});
  c.expand({2, 1, 2, 3});
  c.assert_same();
}

TEST(ShapeTrackerMasked, pads_of_small_shapes) {
  Checking a({1, 1});
  a.pad({{1, 1}, {1, 1}});
  a.assert_same();
  Checking b({2, 2});
  b.pad({{1, 1}, {1, 1}});
  b.assert_same();
}

// ---- simplify and view merging ----

TEST(ShapeTrackerSimplify, expand_contract_merges_to_one_view) {
  Checking c({1, 10});
  c.expand({10, 10}).reshape({100});
  EXPECT_EQ(c.view_count(), 2u);
  expect_exprs(c.st, "(idx0%10)", "1");
  c.reshape({10, 10}).simplify();
  EXPECT_EQ(c.view_count(), 1u);
  EXPECT_EQ(render_views(c.st),
            "View(shape=(10, 10), strides=(0, 1), offset=0, mask=None, contiguous=False)");
  c.assert_same();
}

TEST(ShapeTrackerSimplify, expand_contract_different_shape) {
  Checking c({1, 10});
  c.expand({10, 10}).reshape({100}).reshape({2, 5, 2, 5}).simplify();
  EXPECT_EQ(c.view_count(), 1u);
  c.assert_same();
}

TEST(ShapeTrackerSimplify, expand_contract_still_complex) {
  Checking c({1, 10});
  c.expand({10, 10}).reshape({100}).reshape({5, 20}).simplify();
  EXPECT_EQ(c.view_count(), 2u);
  expect_exprs(c.st, "(idx1%10)", "1");
  EXPECT_EQ(render_strides(c.st.real_strides()), "(0, None)");
  c.assert_same();
}

TEST(ShapeTrackerSimplify, real_strides_match_merged_view) {
  ShapeTracker a = two_views(View::create({1, 3, 2, 11, 4, 28}, Shape{0, 308, 0, 28, 0, 1}),
                             View::create({1, 3, 2, 11, 26, 1, 1, 3}, Shape{0, 2464, 0, 112, 1, 0, 0, 29}));
  ShapeTracker b =
      two_views(View::create({8, 3, 3, 11, 2, 28}, Shape{924, 308, 0, 28, 0, 1}),
                View::create({8, 1, 6, 10, 28, 3, 2, 1}, Shape{5544, 0, 0, 56, 1, 1848, 672, 0}));
  for (const ShapeTracker& st : {a, b}) {
    auto rs = st.real_strides();
    ShapeTracker s = st.simplify();
    ASSERT_EQ(s.views.size(), 1u);
    ASSERT_EQ(rs.size(), s.views[0].strides.size());
    for (size_t i = 0; i < rs.size(); ++i) EXPECT_EQ(rs[i], s.views[0].strides[i]) << i;
  }
  EXPECT_EQ(
      render_views(a.simplify()),
      "View(shape=(1, 3, 2, 11, 26, 1, 1, 3), strides=(0, 308, 0, 28, 1, 0, 0, 1), offset=0, mask=None, "
      "contiguous=False)");
  EXPECT_EQ(a.unit_stride_axes(), (std::vector<int>{4, 7}));
}

TEST(ShapeTrackerSimplify, unmergeable_views_report_unknown_strides) {
  ShapeTracker a =
      two_views(View::create({8, 3, 1, 2, 11, 1}, Shape{33, 11, 0, 0, 1, 0}), View::create({8, 6, 11}));
  EXPECT_EQ(render_strides(a.real_strides()), "(33, None, 1)");
  expect_exprs(a, "(((idx1//2)*11)+(idx0*33)+idx2)", "1");
  EXPECT_EQ(a.simplify().views.size(), 2u);
  ShapeTracker b =
      two_views(View::create({2, 2, 4, 3, 3}, Shape{72, 9, 18, -3, -1}, 8), View::create({4, 4, 3, 3}));
  EXPECT_EQ(render_strides(b.real_strides()), "(None, 18, -3, -1)");
  EXPECT_EQ(b.simplify().views.size(), 2u);
}

TEST(ShapeTrackerSimplify, compose_applies_views_one_at_a_time) {
  ShapeTracker base = ShapeTracker::from_shape({4, 4}).permute({1, 0});
  ShapeTracker top = ShapeTracker::from_shape({4, 4}).reshape({16});
  ShapeTracker both = base + top;
  EXPECT_EQ(both.shape(), (Shape{16}));
  EXPECT_EQ(both.views.size(), 2u);
  expect_exprs(both, "(((idx0%4)*4)+(idx0//4))", "1");
  ShapeTracker same = ShapeTracker::from_shape({4, 4}) + ShapeTracker::from_shape({4, 4}).permute({1, 0});
  EXPECT_EQ(same, ShapeTracker::from_shape({4, 4}).permute({1, 0}));
}

TEST(ShapeTrackerSimplify, invert_of_permute_is_inverse_permute) {
  auto inv = ShapeTracker::from_shape({4, 4}).permute({1, 0}).invert({4, 4});
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(render_views(*inv), "View(shape=(4, 4), strides=(1, 4), offset=0, mask=None, contiguous=False)");
  EXPECT_FALSE(ShapeTracker::from_shape({4, 4}).shrink({{0, 2}, {0, 4}}).invert({4, 4}).has_value());
}

// ---- sizes and strides ----

TEST(ShapeTrackerSize, real_size_counts_reachable_elements) {
  ShapeTracker st = ShapeTracker::from_shape({100, 100});
  EXPECT_EQ(st.real_size(), 10000);
  ShapeTracker ex = st.reshape({100, 100, 1}).expand({100, 100, 100});
  EXPECT_EQ(ex.real_size(), 10000);
  EXPECT_EQ(ex.reshape({1000000}).real_size(), 10000);
  EXPECT_EQ(st.shrink({{0, 50}, {0, 100}}).real_size(), 5000);
  EXPECT_EQ(st.shrink({{0, 100}, {0, 50}}).real_size(), 9950);
}

TEST(ShapeTrackerStrides, real_strides_single_view_are_view_strides) {
  ShapeTracker st = ShapeTracker::from_shape({3, 1, 5});
  EXPECT_EQ(render_strides(st.real_strides()), "(5, 0, 1)");
  EXPECT_EQ(st.unit_stride_axes(), (std::vector<int>{2}));
}

TEST(ShapeTrackerStrides, masked_axes_are_unknown_unless_ignored) {
  ShapeTracker st = ShapeTracker::from_shape({4}).pad({{2, 2}}).reshape({4, 2});
  EXPECT_EQ(render_strides(st.real_strides()), "(None, 1)");
  EXPECT_EQ(render_strides(st.real_strides(true)), "(2, 1)");
  ShapeTracker big = ShapeTracker::from_shape({1, 5, 1, 15, 1})
                         .pad({{0, 0}, {0, 5}, {0, 0}, {0, 15}, {0, 0}})
                         .reshape({10, 1, 30})
                         .permute({2, 1, 0})
                         .reshape({2, 3, 5, 2, 5});
  EXPECT_EQ(render_strides(big.real_strides()), "(None, 5, 1, None, 15)");
}
