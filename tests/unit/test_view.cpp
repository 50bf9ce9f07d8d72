// Views: cases from tinygrad 0.9.1 test/unit/test_view.py and test_shapetracker.py
// (TestViewMinify), plus create/merge/invert behaviour pinned to tinygrad's output.
#include <gtest/gtest.h>

#include "shape/shapetracker.h"
#include "util/error.h"

using tg::Mask;
using tg::Shape;
using tg::View;

TEST(ViewHelpers, strides_for_shape_zeroes_size_one_dims) {
  EXPECT_EQ(tg::strides_for_shape({2, 3, 4}), (Shape{12, 4, 1}));
  EXPECT_EQ(tg::strides_for_shape({2, 1, 4}), (Shape{4, 0, 1}));
  EXPECT_EQ(tg::strides_for_shape({}), (Shape{}));
  EXPECT_EQ(tg::canonicalize_strides({1, 3}, {7, 2}), (Shape{0, 2}));
  EXPECT_EQ(tg::prod({2, 3, 4}), 24);
  EXPECT_EQ(tg::prod({}), 1);
}

TEST(ViewCreate, canonicalizes_empty_mask) {
  EXPECT_FALSE(View::create({2, 2, 2}, Shape{4, 2, 1}, 0, Mask{{0, 2}, {0, 2}, {0, 2}}).mask.has_value());
  EXPECT_FALSE(View::create({4, 3, 2}, Shape{1, 4, 10}, 0, Mask{{0, 4}, {0, 3}, {0, 2}}).mask.has_value());
}

TEST(ViewCreate, empty_mask_is_contiguous) {
  EXPECT_EQ(View::create({2, 2, 2}, Shape{4, 2, 1}).contiguous,
            View::create({2, 2, 2}, Shape{4, 2, 1}, 0, Mask{{0, 2}, {0, 2}, {0, 2}}).contiguous);
  EXPECT_EQ(
      View::create({1, 1, 1, 4}, Shape{0, 0, 0, 1}).contiguous,
      View::create({1, 1, 1, 4}, Shape{0, 0, 0, 1}, 0, Mask{{0, 1}, {0, 1}, {0, 1}, {0, 4}}).contiguous);
  EXPECT_TRUE(View::create({2, 3, 4}, std::nullopt, 0, Mask{{0, 2}, {0, 3}, {0, 4}}).contiguous);
}

TEST(ViewCreate, zero_in_shape_is_contiguous_with_zero_strides) {
  View v = View::create({3, 0, 2}, Shape{5, 6, 7}, 9, Mask{{0, 1}, {0, 0}, {0, 2}});
  EXPECT_EQ(v.strides, (Shape{0, 0, 0}));
  EXPECT_EQ(v.offset, 0);
  EXPECT_FALSE(v.mask.has_value());
  EXPECT_TRUE(v.contiguous);
}

TEST(ViewCreate, single_index_mask_moves_stride_into_offset) {
  View v = View::create({3, 4}, Shape{4, 1}, 0, Mask{{1, 2}, {0, 4}});
  EXPECT_EQ(v.strides, (Shape{0, 1}));
  EXPECT_EQ(v.offset, 4);
  EXPECT_EQ(*v.mask, (Mask{{1, 2}, {0, 4}}));
}

TEST(ViewCreate, empty_mask_range_zeroes_the_whole_view) {
  View v = View::create({3, 4}, Shape{4, 1}, 0, Mask{{1, 3}, {2, 2}});
  EXPECT_EQ(v.strides, (Shape{0, 0}));
  EXPECT_EQ(v.offset, 0);
  EXPECT_EQ(*v.mask, (Mask{{0, 0}, {0, 0}}));
  EXPECT_FALSE(v.contiguous);
}

TEST(ViewMinify, merges_contiguous_dims) {
  EXPECT_EQ(View::create({10, 10}).minify().shape.size(), 1u);
  EXPECT_EQ(View::create({10, 10}).permute({1, 0}).minify().shape.size(), 2u);
  EXPECT_EQ(View::create({10, 10, 10, 10}).permute({1, 0, 2, 3}).minify().shape, (Shape{10, 10, 100}));
}

TEST(ViewMinify, drops_zero_strided_size_one_dims) {
  View target = View::create({2, 2}, Shape{30, 2}, 7);
  EXPECT_EQ(View::create({2, 1, 2}, Shape{30, 0, 2}, 7).minify(), target);
  EXPECT_EQ(View::create({1, 2, 2}, Shape{0, 30, 2}, 7).minify(), target);
  EXPECT_EQ(View::create({2, 2, 1}, Shape{30, 2, 0}, 7).minify(), target);
  EXPECT_EQ(View::create({2, 1, 1, 2}, Shape{30, 0, 0, 2}, 7).minify(), target);
  EXPECT_EQ(View::create({1, 1, 2, 2}, Shape{0, 0, 30, 2}, 7).minify(), target);
  EXPECT_EQ(View::create({2, 2, 1, 1}, Shape{30, 2, 0, 0}, 7).minify(), target);
  EXPECT_EQ(View::create({1, 2, 2, 1}, Shape{0, 30, 2, 0}, 7).minify(), target);
  EXPECT_EQ(View::create({1, 2, 1, 2}, Shape{0, 30, 0, 2}, 7).minify(), target);
}

TEST(ViewReshape, contiguous_reshape_is_contiguous) {
  auto v = View::create({4, 6}).reshape({2, 12});
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->contiguous);
  EXPECT_EQ(v->shape, (Shape{2, 12}));
}

TEST(ViewReshape, transposed_split_keeps_strides) {
  auto v = View::create({4, 4}).permute({1, 0}).reshape({2, 2, 4});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->strides, (Shape{2, 1, 4}));
}

TEST(ViewReshape, transposed_flatten_is_not_expressible) {
  EXPECT_FALSE(View::create({4, 4}).permute({1, 0}).reshape({16}).has_value());
}

TEST(ViewReshape, padded_flatten_combines_mask) {
  auto v = View::create({2, 3}).pad({{1, 1}, {0, 0}}).reshape({12});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->offset, -3);
  EXPECT_EQ(*v->mask, (Mask{{3, 9}}));
}

TEST(ViewReshape, size_mismatch_message_matches_tinygrad) {
  try {
    View::create({2, 3}).reshape({4});
    FAIL();
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_STREQ(e.what(), "size mismatched, can't reshape self.shape=(2, 3) -> new_shape=(4,)");
  }
}

TEST(ViewMovement, expand_rank_mismatch_is_value_error) {
  try {
    View::create({2, 3}).expand({2, 3, 1});
    FAIL();
  } catch (const tg::Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_STREQ(e.what(), "expand arg new_shape=(2, 3, 1) must have same number of dimensions as shape "
                           "self.shape=(2, 3)");
  }
}

TEST(ViewMovement, invalid_expand_permute_pad_shrink_stride_throw) {
  View v = View::create({2, 3});
  EXPECT_THROW(v.expand({4, 3}), tg::Error);
  EXPECT_THROW(v.permute({0, 0}), tg::Error);
  EXPECT_THROW(v.permute({0}), tg::Error);
  EXPECT_THROW(v.pad({{-1, 0}, {0, 0}}), tg::Error);
  EXPECT_THROW(v.shrink({{0, 3}, {0, 3}}), tg::Error);
  EXPECT_THROW(v.stride({0, 1}), tg::Error);
}

TEST(ViewMovement, expand_of_masked_one_keeps_or_empties_mask) {
  View ones = View::create({1, 3}).pad({{0, 0}, {1, 0}}); // mask ((0,1),(1,4))
  View e = ones.expand({5, 4});
  EXPECT_EQ(*e.mask, (Mask{{0, 5}, {1, 4}}));
  View shrunk = View::create({1, 1}).pad({{1, 0}, {0, 0}}).shrink({{0, 1}, {0, 1}}); // mask ((1,1),(0,1))
  EXPECT_EQ(*shrunk.expand({1, 3}).mask, (Mask{{0, 0}, {0, 0}}));
}

TEST(ViewMovement, stride_negative_flips_with_offset) {
  View v = View::create({2, 3}).stride({-1, 1});
  EXPECT_EQ(v.strides, (Shape{-3, 1}));
  EXPECT_EQ(v.offset, 3);
  View s = View::create({7}).stride({3});
  EXPECT_EQ(s.shape, (Shape{3}));
  EXPECT_EQ(s.strides, (Shape{3}));
}

TEST(ViewMovement, pad_of_zero_is_identity) {
  View v = View::create({2, 3}).permute({1, 0});
  EXPECT_EQ(v.pad({{0, 0}, {0, 0}}), v);
}

TEST(ViewInvert, flip_inverts_to_flip) {
  auto inv = View::create({2, 3}).stride({-1, 1}).invert({2, 3});
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(*inv, View::create({2, 3}, Shape{-3, 1}, 3));
}

TEST(ViewInvert, permute_inverts_to_inverse_permute) {
  auto inv = View::create({4, 6}).permute({1, 0}).invert({4, 6});
  ASSERT_TRUE(inv.has_value());
  EXPECT_EQ(inv->shape, (Shape{4, 6}));
  EXPECT_EQ(inv->strides, (Shape{1, 4}));
}

TEST(ViewMerge, contiguous_below_returns_top) {
  View top = View::create({4, 4}).permute({1, 0});
  auto m = top.merge_onto(View::create({16}));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, top);
}

TEST(ViewMerge, contiguous_top_reshapes_below) {
  View below = View::create({4, 4}).permute({1, 0});
  auto m = View::create({2, 2, 4}).merge_onto(below);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->strides, (Shape{2, 1, 4}));
}

TEST(ViewMerge, contiguous_top_over_expand_keeps_zero_stride) {
  View expanded = View::create({1, 10}).expand({10, 10});
  auto merged = View::create({10, 10}).merge_onto(expanded);
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(*merged, View::create({10, 10}, Shape{0, 1}));
}

TEST(ViewMerge, masked_top_pads_the_merge) {
  View below = View::create({4, 4}).permute({1, 0});
  View top = View::create({4, 4}).pad({{1, 1}, {0, 0}}); // (6,4), mask ((1,5),(0,4))
  auto m = top.merge_onto(below);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->shape, (Shape{6, 4}));
  EXPECT_EQ(m->strides, (Shape{1, 4}));
  EXPECT_EQ(m->offset, -1);
  EXPECT_EQ(*m->mask, (Mask{{1, 5}, {0, 4}}));
}

TEST(ViewMerge, unmergeable_returns_nullopt) {
  View below = View::create({4, 4, 4}).permute({2, 0, 1});
  EXPECT_FALSE(View::create({16, 4}).reshape({64}).value().merge_onto(below).has_value());
}
