// Output shapes, dtypes and error messages of Tensor operations, each expectation taken from
// tinygrad 0.9.1 (the Python expression is in the comment after each test). Graph-level only:
// nothing is run.
#include <gtest/gtest.h>

#include "tensor/tensor_impl.h"
#include "util/error.h"

using namespace tg;

namespace {

Scalar I(int64_t v) { return Scalar::of_int(v); }
Scalar F(double v) { return Scalar::of_float(v); }
Scalar B(bool v) { return Scalar::of_bool(v); }
Index I_(int64_t v) { return Index::integer(v); }
constexpr std::nullopt_t N = std::nullopt;
Index S(std::optional<int64_t> a, std::optional<int64_t> b, std::optional<int64_t> c) {
  return Index::slice(a, b, c);
}
std::optional<std::pair<int64_t, int64_t>> P(int64_t a, int64_t b) { return std::pair{a, b}; }
Tensor ti() { return Tensor::from_list({I(1), I(2)}, {2}); }
Tensor tf() { return Tensor::from_list({F(1), F(2)}, {2}); }
Tensor tb() { return Tensor::from_list({B(true)}, {1}); }
Tensor tb2() { return Tensor::from_list({B(true), B(false)}, {2}); }
Tensor ti22() { return Tensor::from_list({I(1), I(2), I(3), I(4)}, {2, 2}); }
Tensor tf22() { return Tensor::from_list({F(1), F(2), F(3), F(4)}, {2, 2}); }

void expect_shape_dtype(const Tensor& t, const Shape& shape, DType dtype) {
  EXPECT_EQ(t.shape(), shape);
  EXPECT_EQ(t.dtype(), dtype) << "got " << py_name(t.dtype());
}

template <class F> void expect_error(F f, const std::string& kind, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error, expected " << kind << ": " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

} // namespace

// clang-format off
TEST(TensorShapes, from_list_of_ints_is_int32) { expect_shape_dtype(Tensor::from_list({I(1),I(2),I(3),I(4)}, {2,2}), {2, 2}, DType::Int32); }  // Tensor([[1,2],[3,4]])
TEST(TensorShapes, from_list_of_bools_is_bool) { expect_shape_dtype(Tensor::from_list({B(true),B(false)}, {2}), {2}, DType::Bool); }  // Tensor([True,False])
TEST(TensorShapes, from_list_of_bools_and_ints_is_int32) { expect_shape_dtype(Tensor::from_list({B(true),I(2)}, {2}), {2}, DType::Int32); }  // Tensor([True,2])
TEST(TensorShapes, from_list_with_a_float_is_float32) { expect_shape_dtype(Tensor::from_list({I(1),F(2.5)}, {2}), {2}, DType::Float32); }  // Tensor([1,2.5])
TEST(TensorShapes, from_empty_list_is_float32) { expect_shape_dtype(Tensor::from_list({}, {0}), {0}, DType::Float32); }  // Tensor([])
TEST(TensorShapes, from_list_with_dtype) { expect_shape_dtype(Tensor::from_list({I(1),I(2)}, {2}, DType::Float16), {2}, DType::Float16); }  // Tensor([1,2], dtype=dtypes.float16)
TEST(TensorShapes, from_list_bfloat16) { expect_shape_dtype(Tensor::from_list({I(1),I(2)}, {2}, DType::BFloat16), {2}, DType::BFloat16); }  // Tensor([1,2], dtype=dtypes.bfloat16)
TEST(TensorShapes, default_tensor_is_empty_float) { expect_shape_dtype(Tensor(), {0}, DType::Float32); }  // Tensor(None)
TEST(TensorShapes, scalar_int_is_int32) { expect_shape_dtype(Tensor::scalar(I(3)), {}, DType::Int32); }  // Tensor(3)
TEST(TensorShapes, scalar_float_is_float32) { expect_shape_dtype(Tensor::scalar(F(3.5)), {}, DType::Float32); }  // Tensor(3.5)
TEST(TensorShapes, scalar_bool_is_bool) { expect_shape_dtype(Tensor::scalar(B(true)), {}, DType::Bool); }  // Tensor(True)
TEST(TensorShapes, bytes_are_uint8) { expect_shape_dtype(Tensor::from_bytes({1,2,3}, DType::Float32), {3}, DType::UInt8); }  // Tensor(b'abc', dtype=dtypes.float32)
TEST(TensorShapes, full_with_int_fill_is_int32) { expect_shape_dtype(Tensor::full({2,3}, I(42)), {2, 3}, DType::Int32); }  // Tensor.full((2,3), 42)
TEST(TensorShapes, full_with_bool_fill_is_bool) { expect_shape_dtype(Tensor::full({2,3}, B(false)), {2, 3}, DType::Bool); }  // Tensor.full((2,3), False)
TEST(TensorShapes, zeros_default_float32) { expect_shape_dtype(Tensor::zeros({2,3}), {2, 3}, DType::Float32); }  // Tensor.zeros(2,3)
TEST(TensorShapes, ones_with_dtype) { expect_shape_dtype(Tensor::ones({2,3}, DType::Int32), {2, 3}, DType::Int32); }  // Tensor.ones(2,3, dtype=dtypes.int32)
TEST(TensorShapes, empty_shape) { expect_shape_dtype(Tensor::empty({4,5}), {4, 5}, DType::Float32); }  // Tensor.empty(4,5)
TEST(TensorShapes, arange_ints_is_int32) { expect_shape_dtype(Tensor::arange(I(5)), {5}, DType::Int32); }  // Tensor.arange(5)
TEST(TensorShapes, arange_start_stop_step) { expect_shape_dtype(Tensor::arange(I(5), I(10), I(2)), {3}, DType::Int32); }  // Tensor.arange(5, 10, 2)
TEST(TensorShapes, arange_float_is_float32) { expect_shape_dtype(Tensor::arange(F(5.5), I(10), I(2)), {3}, DType::Float32); }  // Tensor.arange(5.5, 10, 2)
TEST(TensorShapes, arange_float_step) { expect_shape_dtype(Tensor::arange(I(1), I(4), F(0.5)), {6}, DType::Float32); }  // Tensor.arange(1, 4, 0.5)
TEST(TensorShapes, arange_negative_step) { expect_shape_dtype(Tensor::arange(I(10), I(0), I(-3)), {4}, DType::Int32); }  // Tensor.arange(10, 0, -3)
TEST(TensorShapes, eye_shape) { expect_shape_dtype(Tensor::eye(3), {3, 3}, DType::Float32); }  // Tensor.eye(3)
TEST(TensorShapes, full_like_keeps_dtype) { expect_shape_dtype(Tensor::from_list({I(1),I(2)}, {2}).full_like(I(7)), {2}, DType::Int32); }  // Tensor([1,2]).full_like(7)
TEST(TensorShapes, zeros_like_with_dtype) { expect_shape_dtype(Tensor::from_list({I(1),I(2)}, {2}).zeros_like(DType::Float16), {2}, DType::Float16); }  // Tensor([1,2]).zeros_like(dtype=dtypes.float16)
TEST(TensorShapes, rand_shape) { expect_shape_dtype(Tensor::rand({2,3}), {2, 3}, DType::Float32); }  // Tensor.rand(2,3)
TEST(TensorShapes, rand_odd_count) { expect_shape_dtype(Tensor::rand({5}), {5}, DType::Float32); }  // Tensor.rand(5)
TEST(TensorShapes, rand_half) { expect_shape_dtype(Tensor::rand({3}, DType::Float16), {3}, DType::Float16); }  // Tensor.rand(3, dtype=dtypes.float16)
TEST(TensorShapes, rand_empty) { expect_shape_dtype(Tensor::rand({0,3}), {0, 3}, DType::Float32); }  // Tensor.rand(0, 3)
TEST(TensorShapes, randn_shape) { expect_shape_dtype(Tensor::randn({4,3}), {4, 3}, DType::Float32); }  // Tensor.randn(4,3)
TEST(TensorShapes, randint_is_int32) { expect_shape_dtype(Tensor::randint({2,3}, 5, 10), {2, 3}, DType::Int32); }  // Tensor.randint(2,3, low=5, high=10)
TEST(TensorShapes, uniform_shape) { expect_shape_dtype(Tensor::uniform({2,3}, 2, 10), {2, 3}, DType::Float32); }  // Tensor.uniform(2,3, low=2, high=10)
TEST(TensorShapes, normal_shape) { expect_shape_dtype(Tensor::normal({2,3}, 10, 2), {2, 3}, DType::Float32); }  // Tensor.normal(2,3, mean=10, std=2)
TEST(TensorShapes, kaiming_uniform_shape) { expect_shape_dtype(Tensor::kaiming_uniform({4,3}), {4, 3}, DType::Float32); }  // Tensor.kaiming_uniform(4,3)
TEST(TensorShapes, glorot_uniform_shape) { expect_shape_dtype(Tensor::glorot_uniform({4,3}), {4, 3}, DType::Float32); }  // Tensor.glorot_uniform(4,3)
TEST(TensorShapes, int_plus_float_scalar_is_float) { expect_shape_dtype(ti().add(F(1.5)), {2}, DType::Float32); }  // Tensor([1,2]) + 1.5
TEST(TensorShapes, int_plus_int_scalar_stays_int) { expect_shape_dtype(ti().add(I(2)), {2}, DType::Int32); }  // Tensor([1,2]) + 2
TEST(TensorShapes, bool_plus_int_scalar_is_int32) { expect_shape_dtype(tb().add(I(1)), {1}, DType::Int32); }  // Tensor([True]) + 1
TEST(TensorShapes, bool_plus_bool_scalar_is_bool) { expect_shape_dtype(tb().add(B(true)), {1}, DType::Bool); }  // Tensor([True]) + True
TEST(TensorShapes, uint8_plus_int_scalar_stays_uint8) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::UInt8).add(I(300)), {1}, DType::UInt8); }  // Tensor([1], dtype=dtypes.uint8) + 300
TEST(TensorShapes, int_plus_bool_scalar_stays_int) { expect_shape_dtype(ti().add(B(true)), {2}, DType::Int32); }  // Tensor([1,2]) + True
TEST(TensorShapes, half_plus_int_tensor_is_half) { expect_shape_dtype(Tensor::from_list({F(1)}, {1}, DType::Float16).add(Tensor::from_list({I(1)}, {1})), {1}, DType::Float16); }  // Tensor([1.], dtype=dtypes.half) + Tensor([1])
TEST(TensorShapes, int8_times_int16_is_int16) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::Int8).mul(Tensor::from_list({I(1)}, {1}, DType::Int16)), {1}, DType::Int16); }  // Tensor([1], dtype=dtypes.int8) * Tensor([1], dtype=dtypes.int16)
TEST(TensorShapes, uint8_times_int8_is_int16) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::UInt8).mul(Tensor::from_list({I(1)}, {1}, DType::Int8)), {1}, DType::Int16); }  // Tensor([1], dtype=dtypes.uint8) * Tensor([1], dtype=dtypes.int8)
TEST(TensorShapes, half_times_bfloat16_is_float32) { expect_shape_dtype(Tensor::from_list({F(1)}, {1}, DType::Float16).mul(Tensor::from_list({F(1)}, {1}, DType::BFloat16)), {1}, DType::Float32); }  // Tensor([1.], dtype=dtypes.half) * Tensor([1.], dtype=dtypes.bfloat16)
TEST(TensorShapes, int_div_int_is_float) { expect_shape_dtype(ti().div(I(2)), {2}, DType::Float32); }  // Tensor([1,2]) / 2
TEST(TensorShapes, int_div_without_upcast_is_int) { expect_shape_dtype(ti().div(I(2), false, false), {2}, DType::Int32); }  // Tensor([1,2]).div(2, upcast=False)
TEST(TensorShapes, reverse_sub_broadcasts) { expect_shape_dtype(Tensor::from_list({I(1),I(2)}, {1,2}).sub(I(3), true), {1, 2}, DType::Int32); }  // 3 - Tensor([[1,2]])
TEST(TensorShapes, broadcast_two_tensors) { expect_shape_dtype(Tensor::ones({3,1}).add(Tensor::ones({1,4})), {3, 4}, DType::Float32); }  // Tensor.ones(3,1) + Tensor.ones(1,4)
TEST(TensorShapes, broadcast_with_zero_dim) { expect_shape_dtype(Tensor::ones({1,4}).add(Tensor::ones({0,1})), {0, 4}, DType::Float32); }  // Tensor.ones(1,4) + Tensor.ones(0,1)
TEST(TensorShapes, comparison_is_bool) { expect_shape_dtype(ti().lt(F(1.5)), {2}, DType::Bool); }  // Tensor([1,2]) < 1.5
TEST(TensorShapes, eq_is_bool) { expect_shape_dtype(ti().eq(tf()), {2}, DType::Bool); }  // Tensor([1,2]) == Tensor([1.,2.])
TEST(TensorShapes, ge_is_bool) { expect_shape_dtype(ti().ge(I(2)), {2}, DType::Bool); }  // Tensor([1,2]) >= 2
TEST(TensorShapes, neg_of_bool_is_bool) { expect_shape_dtype(tb().neg(), {1}, DType::Bool); }  // -Tensor([True])
TEST(TensorShapes, logical_not_of_int_is_bool) { expect_shape_dtype(ti().logical_not(), {2}, DType::Bool); }  // Tensor([1,2]).logical_not()
TEST(TensorShapes, int_pow_two_stays_int) { expect_shape_dtype(ti().pow(I(2)), {2}, DType::Int32); }  // Tensor([1,2]) ** 2
TEST(TensorShapes, int_pow_half_is_float) { expect_shape_dtype(ti().pow(F(0.5)), {2}, DType::Float32); }  // Tensor([1,2]) ** 0.5
TEST(TensorShapes, int_pow_negative_is_float) { expect_shape_dtype(ti().pow(I(-1)), {2}, DType::Float32); }  // Tensor([1,2]) ** -1
TEST(TensorShapes, int_pow_zero_stays_int) { expect_shape_dtype(ti().pow(I(0)), {2}, DType::Int32); }  // Tensor([1,2]) ** 0
TEST(TensorShapes, scalar_pow_int_tensor_is_float) { expect_shape_dtype(ti().pow(I(2), true), {2}, DType::Float32); }  // 2 ** Tensor([1,2])
TEST(TensorShapes, int_pow_float_tensor_is_float) { expect_shape_dtype(ti().pow(tf()), {2}, DType::Float32); }  // Tensor([1,2]) ** Tensor([1.,2.])
TEST(TensorShapes, negative_scalar_pow_tensor) { expect_shape_dtype(tf().pow(I(-2), true), {2}, DType::Float32); }  // (-2) ** Tensor([1.,2.])
TEST(TensorShapes, where_with_int_scalars_is_int32) { expect_shape_dtype(tb2().where(I(1), I(0)), {2}, DType::Int32); }  // Tensor([True,False]).where(1, 0)
TEST(TensorShapes, where_with_float_scalar_is_float32) { expect_shape_dtype(tb2().where(F(1.0), I(0)), {2}, DType::Float32); }  // Tensor([True,False]).where(1.0, 0)
TEST(TensorShapes, where_int_cond_with_tensor) { expect_shape_dtype(ti().where(tf(), I(0)), {2}, DType::Float32); }  // Tensor([1,0]).where(Tensor([1.,2.]), 0)
TEST(TensorShapes, maximum_int_with_zero_stays_int) { expect_shape_dtype(ti().maximum(I(0)), {2}, DType::Int32); }  // Tensor([1,2]).maximum(0)
TEST(TensorShapes, minimum_with_float_is_float) { expect_shape_dtype(ti().minimum(F(0.5)), {2}, DType::Float32); }  // Tensor([1,2]).minimum(0.5)
TEST(TensorShapes, clip_int_bounds_stays_int) { expect_shape_dtype(ti().clip(Operand(I(0)), Operand(I(1))), {2}, DType::Int32); }  // Tensor([1,2]).clip(0, 1)
TEST(TensorShapes, xor_uint8) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::UInt8).xor_(I(3)), {1}, DType::UInt8); }  // Tensor([1], dtype=dtypes.uint8) ^ 3
TEST(TensorShapes, lshift_uint32) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::UInt32).lshift(3), {1}, DType::UInt32); }  // Tensor([1], dtype=dtypes.uint32) << 3
TEST(TensorShapes, rshift_uint32) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::UInt32).rshift(3), {1}, DType::UInt32); }  // Tensor([1], dtype=dtypes.uint32) >> 3
TEST(TensorShapes, cast_to_half) { expect_shape_dtype(ti().cast(DType::Float16), {2}, DType::Float16); }  // Tensor([1,2]).cast(dtypes.half)
TEST(TensorShapes, bitcast_float_to_int) { expect_shape_dtype(tf().bitcast(DType::Int32), {2}, DType::Int32); }  // Tensor([1.,2.]).bitcast(dtypes.int32)
TEST(TensorShapes, masked_fill) { expect_shape_dtype(tf().masked_fill(tb2(), I(5)), {2}, DType::Float32); }  // Tensor([1.,2.]).masked_fill(Tensor([True,False]), 5)
TEST(TensorShapes, lerp) { expect_shape_dtype(tf().lerp(tf().add(I(2)), F(0.5)), {2}, DType::Float32); }  // Tensor([1.,2.]).lerp(Tensor([3.,4.]), 0.5)
TEST(TensorShapes, exp_of_int_is_float) { expect_shape_dtype(ti().exp(), {2}, DType::Float32); }  // Tensor([1,2]).exp()
TEST(TensorShapes, exp2_of_int_is_float) { expect_shape_dtype(ti().exp2(), {2}, DType::Float32); }  // Tensor([1,2]).exp2()
TEST(TensorShapes, log2_of_half_is_half) { expect_shape_dtype(Tensor::from_list({F(1)}, {1}, DType::Float16).log2(), {1}, DType::Float16); }  // Tensor([1.], dtype=dtypes.half).log2()
TEST(TensorShapes, sqrt_of_int_is_float) { expect_shape_dtype(ti().sqrt(), {2}, DType::Float32); }  // Tensor([1,2]).sqrt()
TEST(TensorShapes, sin_of_bool_is_float) { expect_shape_dtype(tb().sin(), {1}, DType::Float32); }  // Tensor([True]).sin()
TEST(TensorShapes, cos_of_int) { expect_shape_dtype(ti().cos(), {2}, DType::Float32); }  // Tensor([1,2]).cos()
TEST(TensorShapes, relu_of_int_stays_int) { expect_shape_dtype(ti().relu(), {2}, DType::Int32); }  // Tensor([1,2]).relu()
TEST(TensorShapes, sigmoid_of_int_is_float) { expect_shape_dtype(ti().sigmoid(), {2}, DType::Float32); }  // Tensor([1,2]).sigmoid()
TEST(TensorShapes, abs_of_int_stays_int) { expect_shape_dtype(ti().abs(), {2}, DType::Int32); }  // Tensor([1,-2]).abs()
TEST(TensorShapes, sign_of_int_stays_int) { expect_shape_dtype(ti().sign(), {2}, DType::Int32); }  // Tensor([1,-2]).sign()
TEST(TensorShapes, trunc_of_float) { expect_shape_dtype(tf().trunc(), {2}, DType::Float32); }  // Tensor([1.,2.]).trunc()
TEST(TensorShapes, round_of_float) { expect_shape_dtype(tf().round(), {2}, DType::Float32); }  // Tensor([1.,2.]).round()
TEST(TensorShapes, ceil_floor) { expect_shape_dtype(tf().ceil().add(tf().floor()), {2}, DType::Float32); }  // Tensor([1.,2.]).ceil() + Tensor([1.,2.]).floor()
TEST(TensorShapes, tanh_of_int_is_float) { expect_shape_dtype(ti().tanh(), {2}, DType::Float32); }  // Tensor([1,2]).tanh()
TEST(TensorShapes, gelu) { expect_shape_dtype(tf().gelu(), {2}, DType::Float32); }  // Tensor([1.,2.]).gelu()
TEST(TensorShapes, elu_celu_softplus) { expect_shape_dtype(tf().elu().add(tf().celu()).add(tf().softplus()), {2}, DType::Float32); }  // Tensor([1.,2.]).elu() + Tensor([1.,2.]).celu() + Tensor([1.,2.]).softplus()
TEST(TensorShapes, hardswish_mish) { expect_shape_dtype(tf().hardswish().mul(tf().mish()), {2}, DType::Float32); }  // Tensor([1.,2.]).hardswish() * Tensor([1.,2.]).mish()
TEST(TensorShapes, hyperbolic) { expect_shape_dtype(tf().sinh().add(tf().cosh()).add(tf().atanh()).add(tf().asinh()).add(tf().acosh()), {2}, DType::Float32); }  // Tensor([1.,2.]).sinh() + Tensor([1.,2.]).cosh() + Tensor([.1,.2]).atanh() + Tensor([1.,2.]).asinh() + Tensor([1.,2.]).acosh()
TEST(TensorShapes, leakyrelu_of_int) { expect_shape_dtype(ti().leakyrelu(), {2}, DType::Float32); }  // Tensor([1,2]).leakyrelu()
TEST(TensorShapes, relu6_of_int_stays_int) { expect_shape_dtype(ti().relu6(), {2}, DType::Int32); }  // Tensor([1,2]).relu6()
TEST(TensorShapes, softsign_quick_gelu) { expect_shape_dtype(tf().softsign().add(tf().quick_gelu()), {2}, DType::Float32); }  // Tensor([1.,2.]).softsign() + Tensor([1.,2.]).quick_gelu()
TEST(TensorShapes, rsqrt_of_int) { expect_shape_dtype(ti().rsqrt(), {2}, DType::Float32); }  // Tensor([1,2]).rsqrt()
TEST(TensorShapes, reciprocal_of_int) { expect_shape_dtype(ti().reciprocal(), {2}, DType::Float32); }  // Tensor([1,2]).reciprocal()
TEST(TensorShapes, sum_of_int_is_int32) { expect_shape_dtype(ti22().sum(), {}, DType::Int32); }  // Tensor([[1,2],[3,4]]).sum()
TEST(TensorShapes, sum_of_bool_is_int32) { expect_shape_dtype(tb().sum(), {}, DType::Int32); }  // Tensor([True]).sum()
TEST(TensorShapes, sum_of_uint8_is_uint32) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::UInt8).sum(), {}, DType::UInt32); }  // Tensor([1], dtype=dtypes.uint8).sum()
TEST(TensorShapes, sum_of_int8_is_int32) { expect_shape_dtype(Tensor::from_list({I(1)}, {1}, DType::Int8).sum(), {}, DType::Int32); }  // Tensor([1], dtype=dtypes.int8).sum()
TEST(TensorShapes, sum_of_half_stays_half) { expect_shape_dtype(Tensor::from_list({F(1)}, {1}, DType::Float16).sum(), {}, DType::Float16); }  // Tensor([1.], dtype=dtypes.half).sum()
TEST(TensorShapes, sum_of_half_with_acc_dtype) { expect_shape_dtype(Tensor::from_list({F(1)}, {1}, DType::Float16).sum(std::nullopt, false, DType::Float32), {}, DType::Float32); }  // Tensor([1.], dtype=dtypes.half).sum(acc_dtype=dtypes.float)
TEST(TensorShapes, sum_with_int8_acc_dtype) { expect_shape_dtype(Tensor::ones({2,2}).sum(std::nullopt, false, DType::Int8), {}, DType::Int8); }  // Tensor.ones(2,2).sum(acc_dtype=dtypes.int8)
TEST(TensorShapes, sum_axis_keepdim) { expect_shape_dtype(Tensor::ones({2,3,4}).sum(std::vector<int>{1}, true), {2, 1, 4}, DType::Float32); }  // Tensor.ones(2,3,4).sum(1, keepdim=True)
TEST(TensorShapes, sum_negative_axes) { expect_shape_dtype(Tensor::ones({2,3,4}).sum(std::vector<int>{-1,0}), {3}, DType::Float32); }  // Tensor.ones(2,3,4).sum((-1,0))
TEST(TensorShapes, sum_of_0d_with_axis_0) { expect_shape_dtype(Tensor::scalar(I(3)).sum(std::vector<int>{0}), {}, DType::Int32); }  // Tensor(3).sum(0)
TEST(TensorShapes, sum_of_0d_with_axis_tuple) { expect_shape_dtype(Tensor::scalar(F(3)).sum(std::vector<int>{0,-1}), {}, DType::Float32); }  // Tensor(3.).sum((0,-1))
TEST(TensorShapes, max_keepdim) { expect_shape_dtype(Tensor::ones({2,3}).max(std::vector<int>{0}, true), {1, 3}, DType::Float32); }  // Tensor.ones(2,3).max(0, keepdim=True)
TEST(TensorShapes, min_of_int) { expect_shape_dtype(ti22().min(std::vector<int>{1}), {2}, DType::Int32); }  // Tensor([[1,2],[3,4]]).min(1)
TEST(TensorShapes, mean_of_int_is_float32) { expect_shape_dtype(ti22().mean(), {}, DType::Float32); }  // Tensor([[1,2],[3,4]]).mean()
TEST(TensorShapes, mean_of_half_is_half) { expect_shape_dtype(Tensor::from_list({F(1)}, {1}, DType::Float16).mean(), {}, DType::Float16); }  // Tensor([1.], dtype=dtypes.half).mean()
TEST(TensorShapes, mean_axis) { expect_shape_dtype(Tensor::ones({2,3,4}).mean(std::vector<int>{0,2}), {3}, DType::Float32); }  // Tensor.ones(2,3,4).mean((0,2))
TEST(TensorShapes, var_keepdim) { expect_shape_dtype(Tensor::ones({2,3,4}).var(std::vector<int>{1}, true), {2, 1, 4}, DType::Float32); }  // Tensor.ones(2,3,4).var(1, keepdim=True)
TEST(TensorShapes, std_of_int) { expect_shape_dtype(ti22().std(), {}, DType::Float32); }  // Tensor([[1,2],[3,4]]).std()
TEST(TensorShapes, softmax) { expect_shape_dtype(Tensor::ones({2,3}).softmax(), {2, 3}, DType::Float32); }  // Tensor.ones(2,3).softmax()
TEST(TensorShapes, softmax_of_int_is_float) { expect_shape_dtype(ti22().softmax(0), {2, 2}, DType::Float32); }  // Tensor([[1,2],[3,4]]).softmax(0)
TEST(TensorShapes, log_softmax) { expect_shape_dtype(Tensor::ones({2,3}).log_softmax(0), {2, 3}, DType::Float32); }  // Tensor.ones(2,3).log_softmax(0)
TEST(TensorShapes, logsumexp_all) { expect_shape_dtype(Tensor::ones({2,3}).logsumexp(), {}, DType::Float32); }  // Tensor.ones(2,3).logsumexp()
TEST(TensorShapes, logsumexp_axis_keepdim) { expect_shape_dtype(Tensor::ones({2,3}).logsumexp(std::vector<int>{1}, true), {2, 2}, DType::Float32); }  // Tensor.ones(2,3).logsumexp(1, keepdim=True)
TEST(TensorShapes, argmax_all_is_0d_int32) { expect_shape_dtype(tf22().argmax(), {}, DType::Int32); }  // Tensor([[1.,2.],[3.,4.]]).argmax()
TEST(TensorShapes, argmax_axis_keepdim) { expect_shape_dtype(tf22().argmax(1, true), {2, 1}, DType::Int32); }  // Tensor([[1.,2.],[3.,4.]]).argmax(1, keepdim=True)
TEST(TensorShapes, argmin_of_bool) { expect_shape_dtype(tb2().argmin(), {}, DType::Int32); }  // Tensor([True,False]).argmin()
TEST(TensorShapes, cumsum) { expect_shape_dtype(Tensor::ones({2,3}).cumsum(1), {2, 3}, DType::Float32); }  // Tensor.ones(2,3).cumsum(1)
TEST(TensorShapes, cumsum_of_int) { expect_shape_dtype(ti22().cumsum(), {2, 2}, DType::Int32); }  // Tensor([[1,2],[3,4]]).cumsum()
TEST(TensorShapes, cumsum_two_stage) { expect_shape_dtype(Tensor::ones({3,1000}).cumsum(1), {3, 1000}, DType::Float32); }  // Tensor.ones(3,1000).cumsum(1)
TEST(TensorShapes, cumsum_of_0d) { expect_shape_dtype(Tensor::scalar(I(3)).cumsum(), {}, DType::Int32); }  // Tensor(3).cumsum()
TEST(TensorShapes, triu_keeps_dtype) { expect_shape_dtype(ti22().triu(), {2, 2}, DType::Int32); }  // Tensor([[1,2],[3,4]]).triu()
TEST(TensorShapes, tril_with_diagonal) { expect_shape_dtype(Tensor::ones({3,4}).tril(-1), {3, 4}, DType::Float32); }  // Tensor.ones(3,4).tril(-1)
TEST(TensorShapes, triu_large_diagonal) { expect_shape_dtype(Tensor::ones({3,4}).triu(5), {3, 4}, DType::Float32); }  // Tensor.ones(3,4).triu(5)
TEST(TensorShapes, matmul_2d) { expect_shape_dtype(Tensor::ones({2,3}).matmul(Tensor::ones({3,4})), {2, 4}, DType::Float32); }  // Tensor.ones(2,3) @ Tensor.ones(3,4)
TEST(TensorShapes, matmul_1d_1d) { expect_shape_dtype(Tensor::ones({3}).matmul(Tensor::ones({3})), {}, DType::Float32); }  // Tensor.ones(3) @ Tensor.ones(3)
TEST(TensorShapes, matmul_1d_2d) { expect_shape_dtype(Tensor::ones({3}).matmul(Tensor::ones({3,4})), {4}, DType::Float32); }  // Tensor.ones(3) @ Tensor.ones(3,4)
TEST(TensorShapes, matmul_2d_1d) { expect_shape_dtype(Tensor::ones({2,3}).matmul(Tensor::ones({3})), {2}, DType::Float32); }  // Tensor.ones(2,3) @ Tensor.ones(3)
TEST(TensorShapes, matmul_batched) { expect_shape_dtype(Tensor::ones({5,2,3}).matmul(Tensor::ones({3,4})), {5, 2, 4}, DType::Float32); }  // Tensor.ones(5,2,3) @ Tensor.ones(3,4)
TEST(TensorShapes, matmul_int_float_is_float) { expect_shape_dtype(Tensor::from_list({I(1),I(2)}, {1,2}).matmul(Tensor::from_list({F(1),F(2)}, {2,1})), {1, 1}, DType::Float32); }  // Tensor([[1,2]]) @ Tensor([[1.],[2.]])
TEST(TensorShapes, matmul_int_is_int) { expect_shape_dtype(Tensor::from_list({I(1),I(2)}, {1,2}).matmul(Tensor::from_list({I(1),I(2)}, {2,1})), {1, 1}, DType::Int32); }  // Tensor([[1,2]]) @ Tensor([[1],[2]])
TEST(TensorShapes, matmul_with_acc_dtype) { expect_shape_dtype(Tensor::ones({2,3}, DType::Float16).matmul(Tensor::ones({3,4}, DType::Float16), false, DType::Float32), {2, 4}, DType::Float32); }  // Tensor.ones(2,3, dtype=dtypes.half).matmul(Tensor.ones(3,4, dtype=dtypes.half), acc_dtype=dtypes.float)
TEST(TensorShapes, matmul_reverse) { expect_shape_dtype(Tensor::ones({3,4}).matmul(Tensor::ones({2,3}), true), {2, 4}, DType::Float32); }  // Tensor.ones(3,4).matmul(Tensor.ones(2,3), reverse=True)
TEST(TensorShapes, reshape_infers_minus_one) { expect_shape_dtype(Tensor::ones({2,3,4}).reshape({-1,4}), {6, 4}, DType::Float32); }  // Tensor.ones(2,3,4).reshape(-1, 4)
TEST(TensorShapes, reshape_keeps_none_dims) { expect_shape_dtype(Tensor::ones({2,3,4}).reshape({kKeepDim,12}), {2, 12}, DType::Float32); }  // Tensor.ones(2,3,4).reshape(None, 12)
TEST(TensorShapes, expand_with_minus_one) { expect_shape_dtype(Tensor::from_list({I(1),I(2),I(3)}, {3}).expand({4,-1}), {4, 3}, DType::Int32); }  // Tensor([1,2,3]).expand(4, -1)
TEST(TensorShapes, expand_with_none) { expect_shape_dtype(Tensor::ones({1,3}).expand({2,kKeepDim}), {2, 3}, DType::Float32); }  // Tensor.ones(1,3).expand(2, None)
TEST(TensorShapes, permute_negative) { expect_shape_dtype(Tensor::ones({2,3,4}).permute({-1,0,1}), {4, 2, 3}, DType::Float32); }  // Tensor.ones(2,3,4).permute(-1,0,1)
TEST(TensorShapes, flip_two_axes) { expect_shape_dtype(Tensor::ones({2,3,4}).flip({0,-1}), {2, 3, 4}, DType::Float32); }  // Tensor.ones(2,3,4).flip(0,-1)
TEST(TensorShapes, shrink_with_none) { expect_shape_dtype(Tensor::ones({4,5}).shrink({P(1,3),std::nullopt}), {2, 5}, DType::Float32); }  // Tensor.ones(4,5).shrink(((1,3),None))
TEST(TensorShapes, pad_with_value) { expect_shape_dtype(Tensor::ones({2,3}).pad({P(1,1),P(0,2)}, 5.0), {4, 5}, DType::Float32); }  // Tensor.ones(2,3).pad(((1,1),(0,2)), value=5)
TEST(TensorShapes, pad_int_with_int_value_stays_int) { expect_shape_dtype(ti().pad({P(1,1)}, I(1)), {4}, DType::Int32); }  // Tensor([1,2]).pad(((1,1),), value=1)
TEST(TensorShapes, pad_int_with_float_value_is_float) { expect_shape_dtype(ti().pad({P(1,1)}, 1.5), {4}, DType::Float32); }  // Tensor([1,2]).pad(((1,1),), value=1.5)
TEST(TensorShapes, transpose) { expect_shape_dtype(Tensor::ones({2,3,4}).transpose(0,2), {4, 3, 2}, DType::Float32); }  // Tensor.ones(2,3,4).transpose(0, 2)
TEST(TensorShapes, T) { expect_shape_dtype(Tensor::ones({2,3}).T(), {3, 2}, DType::Float32); }  // Tensor.ones(2,3).T
TEST(TensorShapes, flatten_middle) { expect_shape_dtype(Tensor::ones({2,3,4,5}).flatten(1,2), {2, 12, 5}, DType::Float32); }  // Tensor.ones(2,3,4,5).flatten(1,2)
TEST(TensorShapes, flatten_0d) { expect_shape_dtype(Tensor::scalar(I(3)).flatten(), {1}, DType::Int32); }  // Tensor(3).flatten()
TEST(TensorShapes, unflatten) { expect_shape_dtype(Tensor::ones({2,12}).unflatten(1, {3,-1}), {2, 3, 4}, DType::Float32); }  // Tensor.ones(2,12).unflatten(1, (3,-1))
TEST(TensorShapes, squeeze_all) { expect_shape_dtype(Tensor::zeros({2,1,2,1,2}).squeeze(), {2, 2, 2}, DType::Float32); }  // Tensor.zeros(2,1,2,1,2).squeeze()
TEST(TensorShapes, squeeze_dim) { expect_shape_dtype(Tensor::zeros({2,1,2,1,2}).squeeze(-2), {2, 1, 2, 2}, DType::Float32); }  // Tensor.zeros(2,1,2,1,2).squeeze(-2)
TEST(TensorShapes, squeeze_non_one_dim_is_noop) { expect_shape_dtype(Tensor::zeros({2,1,2}).squeeze(0), {2, 1, 2}, DType::Float32); }  // Tensor.zeros(2,1,2).squeeze(0)
TEST(TensorShapes, unsqueeze_end) { expect_shape_dtype(Tensor::ones({2,3}).unsqueeze(-1), {2, 3, 1}, DType::Float32); }  // Tensor.ones(2,3).unsqueeze(-1)
TEST(TensorShapes, cat_dim1) { expect_shape_dtype(Tensor::ones({2,3}).cat({Tensor::ones({2,4})}, 1), {2, 7}, DType::Float32); }  // Tensor.ones(2,3).cat(Tensor.ones(2,4), dim=1)
TEST(TensorShapes, cat_mixed_dtypes) { expect_shape_dtype(ti().cat({tf()}), {4}, DType::Float32); }  // Tensor([1,2]).cat(Tensor([1.,2.]))
TEST(TensorShapes, stack) { expect_shape_dtype(Tensor::ones({2,3}).stack({Tensor::ones({2,3}), Tensor::ones({2,3})}, -1), {2, 3, 3}, DType::Float32); }  // Tensor.ones(2,3).stack(Tensor.ones(2,3), Tensor.ones(2,3), dim=-1)
TEST(TensorShapes, repeat) { expect_shape_dtype(Tensor::ones({2,3}).repeat({2,1,2}), {2, 2, 6}, DType::Float32); }  // Tensor.ones(2,3).repeat(2,1,2)
TEST(TensorShapes, pad2d_negative) { expect_shape_dtype(Tensor::ones({1,1,4,4}).pad2d({1,-1,2,0}), {1, 1, 6, 4}, DType::Float32); }  // Tensor.ones(1,1,4,4).pad2d((1,-1,2,0))
TEST(TensorShapes, gather) { expect_shape_dtype(Tensor::ones({3,4}).gather(1, Tensor::from_list({I(0),I(1),I(1),I(2),I(2),I(3)}, {3,2})), {3, 2}, DType::Float32); }  // Tensor.ones(3,4).gather(1, Tensor([[0,1],[1,2],[2,3]]))
TEST(TensorShapes, contiguous) { expect_shape_dtype(Tensor::ones({2,3}).T().contiguous(), {3, 2}, DType::Float32); }  // Tensor.ones(2,3).T.contiguous()
TEST(TensorShapes, index_int) { expect_shape_dtype(Tensor::ones({4,5,9}).getitem({I_(2)}), {5, 9}, DType::Float32); }  // Tensor.ones(4,5,9)[2]
TEST(TensorShapes, index_negative_ints) { expect_shape_dtype(Tensor::ones({4,5,9}).getitem({I_(2),I_(-2)}), {9}, DType::Float32); }  // Tensor.ones(4,5,9)[2,-2]
TEST(TensorShapes, index_slice) { expect_shape_dtype(Tensor::ones({4,5}).getitem({S(1,3,N)}), {2, 5}, DType::Float32); }  // Tensor.ones(4,5)[1:3]
TEST(TensorShapes, index_negative_slice) { expect_shape_dtype(Tensor::ones({4,5}).getitem({S(-3,-1,N),S(N,-2,N)}), {2, 3}, DType::Float32); }  // Tensor.ones(4,5)[-3:-1, :-2]
TEST(TensorShapes, index_reverse) { expect_shape_dtype(Tensor::ones({4,5}).getitem({S(N,N,-1)}), {4, 5}, DType::Float32); }  // Tensor.ones(4,5)[::-1]
TEST(TensorShapes, index_step_two) { expect_shape_dtype(Tensor::ones({5,5}).getitem({S(N,N,2),S(1,N,3)}), {3, 2}, DType::Float32); }  // Tensor.ones(5,5)[::2, 1::3]
TEST(TensorShapes, index_negative_step_two) { expect_shape_dtype(Tensor::ones({7}).getitem({S(5,0,-2)}), {3}, DType::Float32); }  // Tensor.ones(7)[5:0:-2]
TEST(TensorShapes, index_empty_slice) { expect_shape_dtype(Tensor::ones({7}).getitem({S(5,2,N)}), {0}, DType::Float32); }  // Tensor.ones(7)[5:2]
TEST(TensorShapes, index_none_and_ellipsis) { expect_shape_dtype(Tensor::ones({2,3}).getitem({Index::none(), Index::ellipsis(), Index::none()}), {1, 2, 3, 1}, DType::Float32); }  // Tensor.ones(2,3)[None, ..., None]
TEST(TensorShapes, index_ellipsis_then_int) { expect_shape_dtype(Tensor::ones({2,3,4}).getitem({Index::ellipsis(), I_(0)}), {2, 3}, DType::Float32); }  // Tensor.ones(2,3,4)[..., 0]
TEST(TensorShapes, index_int_none_int) { expect_shape_dtype(Tensor::ones({2,3,4}).getitem({I_(1), Index::none(), I_(2)}), {1, 4}, DType::Float32); }  // Tensor.ones(2,3,4)[1, None, 2]
TEST(TensorShapes, index_0d_const_tensor) { expect_shape_dtype(Tensor::ones({4,5}).getitem({Index::of_tensor(Tensor::scalar(I(1)))}), {5}, DType::Float32); }  // Tensor.ones(4,5)[Tensor(1)]
TEST(TensorShapes, index_tensor) { expect_shape_dtype(Tensor::ones({4,5}).getitem({Index::of_tensor(Tensor::from_list({I(0),I(2),I(3)}, {3}))}), {3, 5}, DType::Float32); }  // Tensor.ones(4,5)[Tensor([0,2,3])]
TEST(TensorShapes, index_two_tensors_broadcast) { expect_shape_dtype(Tensor::ones({4,5,6}).getitem({Index::of_tensor(Tensor::from_list({I(0),I(1)}, {2,1})), S(N,N,N), Index::of_tensor(Tensor::from_list({I(1),I(2),I(3)}, {3}))}), {2, 3, 5}, DType::Float32); }  // Tensor.ones(4,5,6)[Tensor([[0],[1]]), :, Tensor([1,2,3])]
TEST(TensorShapes, index_slice_then_tensor) { expect_shape_dtype(Tensor::ones({4,5,6}).getitem({S(1,3,N), Index::of_tensor(Tensor::from_list({I(0),I(1)}, {2}))}), {2, 2, 6}, DType::Float32); }  // Tensor.ones(4,5,6)[1:3, Tensor([0,1])]
TEST(TensorShapes, index_int_tensor_keeps_int_dtype) { expect_shape_dtype(ti22().getitem({Index::of_tensor(Tensor::from_list({I(1)}, {1}))}), {1, 2}, DType::Int32); }  // Tensor([[1,2],[3,4]])[Tensor([1])]
TEST(TensorErrors, reshape_rejects_two_inferred_dims) { expect_error([] { (void)(Tensor::ones({2,2}).reshape({-1,-1})); }, "RuntimeError", "only one dimension can be inferred using -1, getting (-1, -1)"); }  // Tensor.ones(2,2).reshape(-1,-1)
TEST(TensorErrors, reshape_infer_with_zero_divides_by_zero) { expect_error([] { (void)(Tensor::ones({2,2}).reshape({0,-1})); }, "ZeroDivisionError", "integer division or modulo by zero"); }  // Tensor.ones(2,2).reshape(0,-1)
TEST(TensorErrors, permute_rejects_repeated_axis) { expect_error([] { (void)(Tensor::ones({2,2}).permute({0,0})); }, "RuntimeError", "order is not a valid permutation, getting (0, 0)"); }  // Tensor.ones(2,2).permute(0,0)
TEST(TensorErrors, permute_rejects_out_of_range_axis) { expect_error([] { (void)(Tensor::ones({2,2}).permute({0,2})); }, "IndexError", "dim=2 out of range [-2, 1]"); }  // Tensor.ones(2,2).permute(0,2)
TEST(TensorErrors, flip_rejects_repeated_axis) { expect_error([] { (void)(Tensor::ones({2,2}).flip({0,-2})); }, "RuntimeError", "dim can appear at least once, getting (0, 0)"); }  // Tensor.ones(2,2).flip(0,-2)
TEST(TensorErrors, expand_to_fewer_dims) { expect_error([] { (void)(Tensor::ones({2,3}).expand({3})); }, "ValueError", "cannot broadcast from shape=(2, 3) to shape=(1, 3)"); }  // Tensor.ones(2,3).expand(3)
TEST(TensorErrors, broadcast_to_fewer_dims_repr_one_tuple) { expect_error([] { (void)(broadcast_to(Tensor::ones({2,3}), {3})); }, "ValueError", "cannot broadcast tensor to fewer dimensions. shape=(2, 3) to shape=(3,)"); }  // Tensor.ones(2,3)._broadcast_to((3,))
TEST(TensorErrors, broadcast_mismatch_in_add) { expect_error([] { (void)(Tensor::ones({2,3}).add(Tensor::ones({4}))); }, "ValueError", "cannot broadcast from shape=(2, 3) to shape=(2, 4)"); }  // Tensor.ones(2,3) + Tensor.ones(4)
TEST(TensorErrors, len_of_0d) { expect_error([] { (void)(Tensor::scalar(I(3)).len()); }, "TypeError", "len() of a 0-d tensor"); }  // len(Tensor(3))
TEST(TensorErrors, matmul_shape_mismatch) { expect_error([] { (void)(Tensor::ones({2,2}).matmul(Tensor::ones({3}))); }, "AssertionError", "Input Tensor shapes (2, 2) and (3,) cannot be multiplied (2 != 3)"); }  // Tensor.ones(2,2) @ Tensor.ones(3)
TEST(TensorErrors, matmul_of_0d) { expect_error([] { (void)(Tensor::scalar(F(3)).matmul(Tensor::ones({2,2}))); }, "AssertionError", "both arguments to matmul need to be at least 1D, but they are 0D and 2D"); }  // Tensor(3.) @ Tensor.ones(2,2)
TEST(TensorErrors, sum_axis_out_of_range) { expect_error([] { (void)(Tensor::ones({2,2}).sum(std::vector<int>{3})); }, "IndexError", "dim=3 out of range [-2, 1]"); }  // Tensor.ones(2,2).sum(3)
TEST(TensorErrors, sum_of_0d_axis_out_of_range) { expect_error([] { (void)(Tensor::scalar(I(3)).sum(std::vector<int>{1})); }, "IndexError", "axis=1 out of range of [-1, 0]"); }  // Tensor(3).sum(1)
TEST(TensorErrors, index_too_many) { expect_error([] { (void)(Tensor::ones({2,2}).getitem({I_(0),I_(0),I_(0)})); }, "IndexError", "too many num_indices=3 for self.ndim=2"); }  // Tensor.ones(2,2)[0,0,0]
TEST(TensorErrors, index_two_ellipsis) { expect_error([] { (void)(Tensor::ones({2,2}).getitem({Index::ellipsis(),Index::ellipsis()})); }, "IndexError", "indices can only have a single ellipsis ('...')"); }  // Tensor.ones(2,2)[...,...]
TEST(TensorErrors, index_out_of_bounds) { expect_error([] { (void)(Tensor::ones({2,2}).getitem({I_(5)})); }, "IndexError", "index=5 is out of bounds on dim=0 with size=2"); }  // Tensor.ones(2,2)[5]
TEST(TensorErrors, index_negative_out_of_bounds) { expect_error([] { (void)(Tensor::ones({2,2}).getitem({S(N,N,N), I_(-3)})); }, "IndexError", "index=-3 is out of bounds on dim=1 with size=2"); }  // Tensor.ones(2,2)[:, -3]
TEST(TensorErrors, index_zero_step) { expect_error([] { (void)(Tensor::ones({2,2}).getitem({S(1,2,0)})); }, "ValueError", "index=slice(1, 2, 0) on dim=0 cannot have 0 as step"); }  // Tensor.ones(2,2)[1:2:0]
TEST(TensorErrors, index_float_tensor) { expect_error([] { (void)(Tensor::ones({2,2}).getitem({Index::of_tensor(Tensor::from_list({F(0.5)}, {1}))})); }, "IndexError", "index.dtype=dtypes.float on dim=0 is not supported, only int tensor indexing is supported"); }  // Tensor.ones(2,2)[Tensor([0.5])]
TEST(TensorErrors, index_0d_float_const) { expect_error([] { (void)(Tensor::ones({2,2}).getitem({Index::of_tensor(Tensor::scalar(F(1.0)))})); }, "IndexError", "index_type=<class 'float'> not supported"); }  // Tensor.ones(2,2)[Tensor(1.0)]
TEST(TensorErrors, lshift_of_signed_int) { expect_error([] { (void)(ti().lshift(1)); }, "AssertionError", "not supported self.dtype=dtypes.int x=1"); }  // Tensor([1,2]).lshift(1)
TEST(TensorErrors, bitcast_changing_size) { expect_error([] { (void)(Tensor::ones({2,2}).bitcast(DType::Int8)); }, "RuntimeError", "shape changing bitcast only supported on DISK right now"); }  // Tensor.ones(2,2).bitcast(dtypes.int8)
TEST(TensorErrors, bitcast_requires_grad) { expect_error([] { (void)(Tensor(Tensor::ones({2,2}).lazydata(), true).bitcast(DType::Int32)); }, "RuntimeError", "can't backprop through bitcast"); }  // Tensor.ones(2,2, requires_grad=True).bitcast(dtypes.int32)
TEST(TensorErrors, transpose_out_of_range) { expect_error([] { (void)(Tensor::ones({2,2}).transpose(2,0)); }, "IndexError", "list index out of range"); }  // Tensor.ones(2,2).transpose(2,0)
TEST(TensorErrors, unsqueeze_out_of_range) { expect_error([] { (void)(Tensor::ones({2,2}).unsqueeze(3)); }, "IndexError", "dim=3 out of range [-3, 2]"); }  // Tensor.ones(2,2).unsqueeze(3)
TEST(TensorErrors, flatten_out_of_range) { expect_error([] { (void)(Tensor::ones({2,2}).flatten(3)); }, "IndexError", "dim=3 out of range [-2, 1]"); }  // Tensor.ones(2,2).flatten(3)
TEST(TensorErrors, chunk_zero) { expect_error([] { (void)(Tensor::ones({2,2}).chunk(0)); }, "AssertionError", "expect chunks to be greater than 0, got: 0"); }  // Tensor.ones(2,2).chunk(0)
TEST(TensorErrors, split_sizes_must_sum) { expect_error([] { (void)(Tensor::ones({2,2}).split(std::vector<int64_t>{1,2})); }, "AssertionError", "expect sizes to sum exactly to 2, but got 3"); }  // Tensor.ones(2,2).split([1,2])
TEST(TensorErrors, gather_ndim_mismatch) { expect_error([] { (void)(Tensor::ones({2,2}).gather(0, Tensor::ones({2,2,2}))); }, "AssertionError", "self.ndim must equal index.ndim, self.ndim=2, index.ndim=3"); }  // Tensor.ones(2,2).gather(0, Tensor.ones(2,2,2))
TEST(TensorErrors, randint_float_dtype) { expect_error([] { (void)(Tensor::randint({3}, 0, 10, DType::Float32)); }, "TypeError", "dtype=dtypes.float must be int"); }  // Tensor.randint(3, dtype=dtypes.float32)
TEST(TensorErrors, arange_empty) { expect_error([] { (void)(Tensor::arange(I(0))); }, "AssertionError", ""); }  // Tensor.arange(0)
TEST(TensorErrors, cat_shape_mismatch) { expect_error([] { (void)(Tensor::ones({2,2}).cat({Tensor::ones({3,3})})); }, "AssertionError", ""); }  // Tensor.ones(2,2).cat(Tensor.ones(3,3))
TEST(TensorErrors, cumsum_axis_out_of_range) { expect_error([] { (void)(Tensor::ones({2,2}).cumsum(2)); }, "IndexError", "dim=2 out of range [-2, 1]"); }  // Tensor.ones(2,2).cumsum(2)
TEST(TensorErrors, triu_of_1d) { expect_error([] { (void)(Tensor::ones({2}).triu()); }, "IndexError", "tuple index out of range"); }  // Tensor.ones(2).triu()
TEST(TensorErrors, reshape_size_mismatch) { expect_error([] { (void)(Tensor::ones({2,2}).reshape({3,-1})); }, "ValueError", "size mismatched, can't reshape self.shape=(2, 2) -> new_shape=(3, 1)"); }  // Tensor.ones(2,2).reshape(3,-1)
// clang-format on
