// exec_alu, the one evaluator of ALU ops on constants: expected values are tinygrad 0.9.1's
// tinygrad.ops.exec_alu on the same operands.
#include <gtest/gtest.h>

#include <cmath>

#include "codegen/uops.h"
#include "error_of.h"
#include "ops/exec_alu.h"

using namespace tg;

namespace {
Scalar I(int64_t v) { return Scalar::of_int(v); }
Scalar F(double v) { return Scalar::of_float(v); }
Scalar B(bool v) { return Scalar::of_bool(v); }
} // namespace

TEST(ExecAlu, IntsWrapToTheirDtype) {
  EXPECT_EQ(exec_alu(Op::MUL, DType::Int32, {I(2147483647), I(2)}), I(-2));
  EXPECT_EQ(exec_alu(Op::ADD, DType::UInt64, {I(-1), I(2)}), I(1)); // 2**64-1 + 2
  EXPECT_EQ(exec_alu(Op::NEG, DType::UInt8, {I(1)}), I(255));
}

TEST(ExecAlu, UnsignedOperandsCompareByValue) {
  // 2**63 as a uint64 is stored as INT64_MIN; Python compares the value
  EXPECT_EQ(exec_alu(Op::CMPLT, DType::Bool, {I(INT64_MIN), I(1)}, DType::UInt64), B(false));
  EXPECT_EQ(exec_alu(Op::CMPLT, DType::Bool, {I(INT64_MIN), I(1)}, DType::Int64), B(true));
  EXPECT_EQ(exec_alu(Op::SHR, DType::UInt64, {I(INT64_MIN), I(63)}, DType::UInt64), I(1));
}

TEST(ExecAlu, DivisionTruncatesAndModKeepsTheDividendsSign) {
  EXPECT_EQ(exec_alu(Op::IDIV, DType::Int32, {I(-7), I(2)}), I(-3));
  EXPECT_EQ(exec_alu(Op::MOD, DType::Int32, {I(-7), I(2)}), I(-1));
  EXPECT_EQ(exec_alu(Op::IDIV, DType::Int64, {I(INT64_MIN), I(-1)}), I(INT64_MIN));
  EXPECT_EQ(exec_alu(Op::SHR, DType::Int64, {I(-8), I(100)}), I(-1));
}

TEST(ExecAlu, PythonsMaxKeepsTheFirstUnlessTheSecondIsLarger) {
  EXPECT_EQ(exec_alu(Op::MAX, DType::Float32, {F(1.0), F(NAN)}), F(1.0));
  EXPECT_TRUE(std::isnan(exec_alu(Op::MAX, DType::Float32, {F(NAN), F(1.0)}).f));
}

TEST(ExecAlu, TruncateRoundsFloat32ButOnlySaturatesFloat16) {
  EXPECT_EQ(exec_alu(Op::ADD, DType::Float32, {F(0.1), F(0.2)}), F(0.30000001192092896));
  EXPECT_EQ(exec_alu(Op::ADD, DType::Float16, {F(0.1), F(0.2)}), F(0.30000000000000004));
  EXPECT_EQ(exec_alu(Op::MUL, DType::Float16, {F(300.0), F(300.0)}), F(INFINITY));
}

TEST(ExecAlu, BoolsStayBools) {
  EXPECT_EQ(exec_alu(Op::XOR, DType::Bool, {B(true), B(true)}), B(false));
  EXPECT_EQ(exec_alu(Op::ADD, DType::Bool, {B(true), B(true)}), B(true));
  EXPECT_EQ(exec_alu(Op::NEG, DType::Bool, {B(true)}), B(false));
  EXPECT_EQ(exec_alu(Op::CMPLT, DType::Bool, {B(false), B(true)}), B(true));
}

TEST(ExecAlu, RaisesWherePythonRaises) {
  EXPECT_EQ(error_of([] {
              exec_alu(Op::MOD, DType::Int32, {I(1), I(0)});
            }),
            "ZeroDivisionError: integer modulo by zero");
  EXPECT_EQ(error_of([] {
              exec_alu(Op::IDIV, DType::Int32, {I(1), I(0)});
            }),
            "TypeError: 'float' object cannot be interpreted as an integer");
  EXPECT_FALSE(try_exec_alu(Op::MOD, DType::Int32, {I(1), I(0)}).has_value());
  EXPECT_FALSE(try_exec_alu(Op::XOR, DType::Float32, {F(1), F(2)}).has_value());
}

// The UOp folder folds through the same evaluator, and leaves what raises to run.
TEST(ExecAlu, UOpFolderUsesIt) {
  UOpGraph g;
  const UOp* big = g.cnst(DType::Int32, I(2147483647));
  const UOp* two = g.cnst(DType::Int32, I(2));
  const UOp* prod = graph_rewrite(g.alu(Op::MUL, {big, two}), constant_folder(), g);
  ASSERT_EQ(prod->op, UOps::CONST);
  EXPECT_EQ(prod->value(), I(-2));
  const UOp* zero = g.cnst(DType::Int32, I(0));
  EXPECT_EQ(graph_rewrite(g.alu(Op::MOD, {two, zero}), constant_folder(), g)->op, UOps::ALU);
}
