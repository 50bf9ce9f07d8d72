// Symbolic shapes (tinygrad's Variable in shapes): sint arithmetic, symbolic views and
// their index expressions, the artifacts' text form of a dimension, and a traced program.
#include <gtest/gtest.h>

#include "io/artifact.h"
#include "script/trace.h"
#include "shape/shapetracker.h"
#include "shape/symbolic_text.h"
#include "util/error.h"

namespace tg {
namespace {

const Expr I = Expr::var("i", 1, 10);
const Expr J = Expr::var("j", 2, 5);

TEST(Sint, ints_stay_ints_and_symbols_fold) {
  EXPECT_TRUE((sint(3) * sint(4)).is_int());
  EXPECT_EQ(int64_t(sint(3) * sint(4)), 12);
  sint d = sint(I) * 3 + 2;
  EXPECT_FALSE(d.is_int());
  EXPECT_EQ(d.str(), "((i*3)+2)");
  EXPECT_EQ(d.max(), 32);
  EXPECT_EQ(eval_dim(d, {{"i", 1, 10, 4}}), 14);
  EXPECT_TRUE((sint(I) - sint(I)).is_int()); // i - i folds to 0
}

TEST(Sint, a_symbolic_dimension_read_as_an_int_is_one_clear_error) {
  try {
    (void)int64_t(sint(I));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "symbolic dimension i where tg needs a concrete size");
  }
  EXPECT_THROW(eval_dim(sint(I), {{"j", 2, 5, 3}}), Error);
}

TEST(SymbolicText, render_debug_reads_back_as_the_same_node) {
  for (Expr e : {I, I * 3 + Expr(2), I * J, (I * 4 + J).floordiv(2), I % 3, Expr(-7), I * J * 2 + I})
    EXPECT_EQ(parse_expr(e.render_debug()), e) << e.render_debug();
}

TEST(SymbolicText, malformed_text_names_the_place) {
  for (const char* bad : {"i", "i[1-]", "(i[1-10]+", "(i[1-10]^2)", "", "i[1-10]x", "i[5-2]"})
    EXPECT_THROW(parse_expr(bad), Error) << bad;
}

TEST(SymbolicView, contiguous_strides_and_index_are_symbolic) {
  View v = View::create({3, sint(I)});
  EXPECT_TRUE(v.contiguous);
  EXPECT_EQ(v.strides[0].str(), "i");
  EXPECT_EQ(v.strides[1], 1);
  EXPECT_EQ(index_end(v).str(), "(i*3)");
  ShapeTracker st{{v}};
  EXPECT_EQ(st.expr_idxs().first.render(), "((idx0*i)+idx1)");
  EXPECT_EQ(st.size(), 30); // allocated for the largest value
}

TEST(SymbolicView, movement_ops_keep_the_symbols) {
  ShapeTracker st = ShapeTracker::from_shape({sint(I), 4});
  ShapeTracker p = st.permute({1, 0});
  EXPECT_EQ(shape_repr(p.shape()), "(4, i)");
  EXPECT_EQ(p.views.back().strides[0], 1);
  ShapeTracker r = st.reshape({sint(I), 2, 2});
  EXPECT_EQ(r.views.size(), 1u);
  EXPECT_EQ(shape_repr(r.shape()), "(i, 2, 2)");
  ShapeTracker e = ShapeTracker::from_shape({1, 4}).expand({sint(I), 4});
  EXPECT_EQ(e.views.back().strides[0], 0);
  // a broadcast reshapes to anything of its size (checked by the lazy layer at the values)
  ShapeTracker b = ShapeTracker::from_shape({1, 1}).expand({3, sint(I)}).reshape({3, 3});
  EXPECT_EQ(b.views.size(), 1u);
}

TEST(SymbolicView, a_shrink_is_refused_only_when_it_is_wrong_at_every_value) {
  View v = View::create({12, 4});
  sint p(I); // 1..10
  // gpt2's cache write (p, p+1) may reach past 12 only at values tg-run refuses later
  View w = v.shrink_symbolic({{p, p + 1}, {0, 4}});
  EXPECT_EQ(w.offset.str(), "(i*4)");
  EXPECT_EQ(shape_repr(w.shape), "(1, 4)");
  EXPECT_NO_THROW(v.shrink_symbolic({{p + 2, p + 3}, {0, 4}}));       // (12, 13) only at i = 10
  EXPECT_THROW(v.shrink_symbolic({{p + 12, p + 13}, {0, 4}}), Error); // past the end at every i
  EXPECT_THROW(v.shrink_symbolic({{p - 11, p - 10}, {0, 4}}), Error); // before the start at every i
  EXPECT_THROW(v.shrink_symbolic({{p + 1, p}, {0, 4}}), Error);       // a negative size
}

TEST(SymbolicView, a_pad_by_a_variable_masks_with_symbolic_bounds) {
  // cat((i, 3), (2, 3)): the second part is padded by i in front, read at data[idx0*3 - 3i]
  View b = View::create({2, 3}).pad_symbolic({{sint(I), 0}, {0, 0}});
  EXPECT_EQ(shape_repr(b.shape), "((2+i), 3)"); // (tinygrad renders a sum sorted)
  EXPECT_EQ(b.offset.str(), "(i*-3)");
  ASSERT_TRUE(b.mask);
  EXPECT_EQ((*b.mask)[0].first.str(), "i");
  EXPECT_EQ((*b.mask)[0].second, sint(I) + 2);
  auto range = index_range(b); // the offset and the mask move together: 0..5 at every i
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 0);
  EXPECT_EQ(range->second, 5);
  EXPECT_EQ(index_end(b), 6);
  View a = View::create({sint(I), 3}).pad_symbolic({{0, 2}, {0, 0}});
  EXPECT_EQ((*a.mask)[0].second.str(), "i");
  EXPECT_EQ(index_end(a).str(), "(i*3)");
  // a symbolic mask reshapes by adding or removing 1s; otherwise (test_symbolic_mask) a new view
  // goes on top
  auto ones = b.reshape({1, sint(I) + 2, 3, 1});
  ASSERT_TRUE(ones && ones->mask);
  EXPECT_EQ((*ones->mask)[1].first, sint(I));
  EXPECT_EQ((*ones->mask)[3], (std::pair<sint, sint>{0, 1}));
  EXPECT_FALSE(b.reshape({(sint(I) + 2) * 3}));
  // the int pad is the same code
  View p = View::create({2, 3}).pad({{1, 0}, {0, 0}});
  EXPECT_EQ((*p.mask)[0], (std::pair<sint, sint>{1, 3}));
  EXPECT_EQ(p.offset, -3);
}

TEST(SymbolicView, a_view_over_a_symbolic_view_splits_by_tinygrads_node_rules) {
  // the gradient of cat((i, 4), (2, 4)): rows [0, i) of a (2+i, 4) buffer padded past i
  ShapeTracker st{{View::create({sint(I) + 2, 4}, std::nullopt, 0, Mask{{0, sint(I)}, {0, 4}}),
                   View::create({sint(I), 4, 1})}};
  auto [idx, valid] = st.expr_idxs(); // idx0 < i < 2+i: idx0 % (2+i) is idx0
  EXPECT_EQ(idx.render(), "((idx0*4)+idx1)");
  EXPECT_EQ(st.real_strides(true)[0], 4); // (masked: unknown unless the mask is ignored)
  // a concrete window of it: idx0 in [0, 2) and 2+i >= 3
  ShapeTracker fixed{{st.views[0], View::create({2, 4})}};
  EXPECT_EQ(fixed.expr_idxs().first.render(), "((idx0*4)+idx1)");
  // a window of a buffer reshaped with a 1 inserted: the run (i*16) splits into i and 16
  View window = View::create({4, sint(I), 16}, Shape{1024, 16, 1});
  auto split = window.reshape({4, 1, sint(I), 16});
  ASSERT_TRUE(split);
  EXPECT_EQ(shape_repr(split->strides), "(1024, 0, 16, 1)");
  // a product by a node that the divisor divides (tinygrad's MulNode.__floordiv__), and terms
  // a*n of an index split by n
  const Expr x = Expr::var("x", 0, 9), y = Expr::var("y", 0, 15);
  EXPECT_EQ((x * (I * 16) + y).floordiv(16), x * I);
  EXPECT_EQ((x * (I * 16)) % 16, Expr(0));
  ShapeTracker terms{{View::create({4, sint(I)}),
                      View::create({4, sint(I)}, Shape{sint(I), 1}, 0, Mask{{0, 4}, {0, sint(I)}})}};
  EXPECT_EQ(terms.expr_idxs().first.render(), "((idx0*i)+idx1)");
  // a transposed view over a run of i*8: the index stays below it (std over a variable batch needs
  // the split by i, then by 8, which symbolic_batch_ops checks)
  ShapeTracker scaled{{View::create({sint(I) * 8}), View::create({8, sint(I)}, Shape{1, 8})}};
  EXPECT_EQ(scaled.expr_idxs().first.render(), "((idx1*8)+idx0)");
  // where the index may reach the symbolic dimension, tinygrad's error
  ShapeTracker wide{{st.views[0], View::create({12, 4})}};
  EXPECT_THROW(wide.expr_idxs(), Error);
}

TEST(SymbolicArtifact, a_graph_with_symbolic_shapes_round_trips_in_both_forms) {
  Graph g = trace_script("n = Variable('n', 1, 16).bind(4)\n"
                         "x = input('x', (n, 3))\n"
                         "output('y', (x @ Tensor.ones(3, 2)).relu().sum(0))\n",
                         "t.tg");
  ASSERT_EQ(g.vars.size(), 1u);
  EXPECT_EQ(g.vars[0], (VarBinding{"n", 1, 16, 4}));
  for (bool json : {false, true}) {
    Graph back = read_graph(write_graph(g, json));
    EXPECT_EQ(back.vars, g.vars);
    ASSERT_EQ(back.nodes.size(), g.nodes.size());
    for (size_t k = 0; k < g.nodes.size(); ++k) EXPECT_EQ(back.nodes[k].shape, g.nodes[k].shape);
  }
}

TEST(SymbolicArtifact, vars_are_validated) {
  Graph g = trace_script("n = Variable('n', 1, 16).bind(4)\noutput('y', input('x', (n,)) + 1)\n", "t.tg");
  g.vars[0].value = 17;
  EXPECT_THROW(read_graph(write_graph(g)), Error);
  g.vars[0].value = 4;
  g.vars.push_back(g.vars[0]);
  EXPECT_THROW(read_graph(write_graph(g)), Error);
  g.vars.clear(); // a shape's variable must be in the table
  EXPECT_THROW(read_graph(write_graph(g)), Error);
}

TEST(SymbolicTrace, a_second_variable_of_a_name_is_another_program_variable) {
  // tinygrad binds each Variable object once; two of one name may hold two values in one program
  Graph g =
      trace_script("a = Variable('i', 1, 9).bind(2)\nb = Variable('i', 1, 9).bind(3)\n"
                   "c = Variable('i', 1, 9).bind(2)\n" // the same name, range and value: i again
                   "assert str(b) == '<i[1-9=3]>' and b.expr == 'i' and c.val == 2\n"
                   "output('y', input('x', (a,)).sum() + input('z', (b,)).sum() + input('w', (c,)).sum())\n",
                   "t.tg");
  ASSERT_EQ(g.vars.size(), 2u);
  EXPECT_EQ(g.vars[0], (VarBinding{"i", 1, 9, 2}));
  EXPECT_EQ(g.vars[1], (VarBinding{"i_2", 1, 9, 3}));
  // one object binds once (tinygrad's assert), and an artifact has one value per name
  EXPECT_ANY_THROW(trace_script("a = Variable('i', 1, 9)\na.bind(2)\na.bind(3)\n", "t.tg"));
  g.vars.push_back({"i", 1, 9, 5});
  EXPECT_THROW(read_graph(write_graph(g)), Error);
}

} // namespace
} // namespace tg
