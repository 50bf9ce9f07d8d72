// lib/nn layers from C++: parameter shapes and dtypes as tinygrad/nn 0.9.1 makes them, output
// shapes, and the checks the layers make. Graph-level only: nothing is run (values are covered
// by tests/diff/snippets/layer_*.tg).
#include <gtest/gtest.h>

#include "nn/layers.h"
#include "util/error.h"

using namespace tg;

TEST(NnLayers, linear_parameter_shapes_and_output) {
  nn::Linear l(4, 8);
  EXPECT_EQ(l.weight.shape(), (Shape{8, 4}));
  ASSERT_TRUE(l.bias.has_value());
  EXPECT_EQ(l.bias->shape(), (Shape{8}));
  EXPECT_EQ(l.weight.dtype(), DType::Float32);
  EXPECT_EQ(l(Tensor::ones({3, 4})).shape(), (Shape{3, 8}));
  EXPECT_FALSE(nn::Linear(4, 8, false).bias.has_value());
}

TEST(NnLayers, conv_weight_layouts) {
  EXPECT_EQ(nn::Conv2d(4, 6, 3, 1, 0, 1, 2).weight.shape(), (Shape{6, 2, 3, 3}));
  EXPECT_EQ(nn::Conv1d(3, 5, 4).weight.shape(), (Shape{5, 3, 4}));
  EXPECT_EQ(nn::ConvTranspose2d(4, 6, 2, 1, 0, 0, 1, 2).weight.shape(), (Shape{4, 3, 2, 2}));
  EXPECT_EQ(nn::ConvTranspose1d(2, 3, 4).weight.shape(), (Shape{2, 3, 4}));
  nn::Conv2d c(3, 4, 3, 1, 1);
  EXPECT_EQ(c(Tensor::ones({2, 3, 5, 5})).shape(), (Shape{2, 4, 5, 5}));
  nn::ConvTranspose2d t(2, 3, 3, 2, 1, 1);
  EXPECT_EQ(t(Tensor::ones({1, 2, 3, 3})).shape(), (Shape{1, 3, 6, 6}));
}

TEST(NnLayers, norms_keep_shape_and_have_affine_params) {
  nn::BatchNorm2d bn(3);
  EXPECT_EQ(bn.running_var.shape(), (Shape{3}));
  EXPECT_EQ(bn.num_batches_tracked.shape(), (Shape{1}));
  EXPECT_EQ(bn(Tensor::ones({2, 3, 4, 4})).shape(), (Shape{2, 3, 4, 4}));
  EXPECT_FALSE(nn::BatchNorm(3, 1e-5, false).weight.has_value());
  nn::LayerNorm ln(Shape{3, 4});
  EXPECT_EQ(ln.axis, (std::vector<int>{-1, -2}));
  EXPECT_EQ(ln.weight->shape(), (Shape{3, 4}));
  EXPECT_EQ(nn::LayerNorm2d(Shape{3})(Tensor::ones({2, 3, 4, 5})).shape(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(nn::GroupNorm(2, 6)(Tensor::ones({2, 6, 3})).shape(), (Shape{2, 6, 3}));
  EXPECT_EQ(nn::InstanceNorm(3)(Tensor::ones({2, 3, 4, 4})).shape(), (Shape{2, 3, 4, 4}));
}

TEST(NnLayers, layernorm_checks_the_last_dimensions) {
  nn::LayerNorm ln(Shape{4});
  try {
    ln(Tensor::ones({2, 5}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "AssertionError");
    EXPECT_STREQ(e.what(), "last dimensions of (2, 5) must match (4,)");
  }
}

TEST(NnLayers, embedding_output_shape) {
  nn::Embedding e(10, 3);
  EXPECT_EQ(e.weight.shape(), (Shape{10, 3}));
  // 0.9.1 broadcasts a 1-d index against its 4-d arange: nn.Embedding(10, 3)(Tensor([1, 2])).shape
  // is (1, 2, 3) there.
  EXPECT_EQ(e(Tensor::from_list({Scalar::of_int(1), Scalar::of_int(2)}, {2})).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(e(Tensor::zeros({2, 3}, DType::Int32)).shape(), (Shape{2, 3, 3}));
  EXPECT_EQ(e(Tensor::zeros({0}, DType::Int32)).shape(), (Shape{0, 3}));
}
