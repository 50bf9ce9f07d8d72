#include "device/llvm/plugin/llvm_renderer.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <unordered_map>
#include <unordered_set>

#include "device/exp2f_table.h"
#include "util/error.h"

namespace tg {

namespace {

using llvm::IRBuilder;
using llvm::Type;
using llvm::Value;

[[noreturn]] void render_error(const std::string& what) { fail("RuntimeError", "render_llvm: " + what); }

// C promotes _Bool and integers narrower than int to (signed) int before arithmetic.
bool promotes_to_int(DType dt) { return dt == DType::Bool || (is_int(dt) && itemsize(dt) < 4); }
bool is_signed_int(DType dt) { return is_int(dt) && !is_unsigned(dt); }
// Whether C does the arithmetic on operands of `dt` signed, after the promotions.
bool signed_arithmetic(DType dt) { return promotes_to_int(dt) || is_signed_int(dt); }

// The type a value of `dt` has inside a kernel. Both 16-bit floats compute in float, as in
// render_c's C: bfloat16 values are floats, and __fp16 is a storage type that C promotes to
// float in every expression.
Type* value_type(llvm::LLVMContext& c, DType dt) {
  switch (dt) {
  case DType::Bool:
    return Type::getInt1Ty(c);
  case DType::Float16:
  case DType::BFloat16:
  case DType::Float32:
    return Type::getFloatTy(c);
  case DType::Float64:
    return Type::getDoubleTy(c);
  default:
    return Type::getIntNTy(c, unsigned(itemsize(dt)) * 8);
  }
}

// The type of a buffer element: bool is a 0/1 byte, half an IEEE half, bfloat16 its 16 bits.
Type* memory_type(llvm::LLVMContext& c, DType dt) {
  if (dt == DType::Bool) return Type::getInt8Ty(c);
  if (dt == DType::Float16) return Type::getHalfTy(c);
  if (dt == DType::BFloat16) return Type::getInt16Ty(c);
  return value_type(c, dt);
}

// ---- ALU lowering tables: one row per op, for float and for (promoted) integer operands.

using Args = std::vector<Value*>;
using FloatLowering = Value* (*)(IRBuilder<>&, const Args&);
using IntLowering = Value* (*)(IRBuilder<>&, const Args&, bool is_signed);

Value* call_intrinsic(IRBuilder<>& b, llvm::Intrinsic::ID id, Value* x) {
  // CreateCall, not CreateUnaryIntrinsic: only CreateCall applies the builder's fast-math flags
  llvm::Module* m = b.GetInsertBlock()->getModule();
  return b.CreateCall(llvm::Intrinsic::getDeclaration(m, id, {x->getType()}), {x});
}

// exp2 of every lane of a <n x float>: glibc's exp2f on vectors, as the CLANG device's C
// helper computes it (device/clang/vector_math.cpp, whose comment tells the algorithm), so every
// lane keeps exp2f's bits. llvm.exp2 on a vector was 8 calls of exp2f (a sigmoid kernel ran
// 4.6x slower than CLANG's). The three a*b+c are llvm.fmuladd, as clang emits them for the
// C helper (fused where the CPU has FMA, as glibc's FMA build is); nothing else may fuse, so
// the function's builder has no fast-math flags. Lanes with |x| >= 128 or NaN take exp2f.
llvm::Function* vector_exp2(llvm::Module& m, unsigned n) {
  const std::string name = "tg_vexp2_v" + std::to_string(n) + "f32";
  if (llvm::Function* f = m.getFunction(name)) return f;
  llvm::LLVMContext& c = m.getContext();
  auto vec = [&](Type* t) { return llvm::FixedVectorType::get(t, n); };
  Type *f32 = Type::getFloatTy(c), *f64 = Type::getDoubleTy(c), *i32 = Type::getInt32Ty(c),
       *i64 = Type::getInt64Ty(c);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(vec(f32), {vec(f32)}, false),
                                    llvm::Function::InternalLinkage, name, m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  auto* tab_type = llvm::ArrayType::get(i64, 32);
  auto* tab = new llvm::GlobalVariable(
      m, tab_type, true, llvm::GlobalValue::InternalLinkage,
      llvm::ConstantDataArray::get(c, llvm::ArrayRef<uint64_t>(kExp2fTable, 32)), "tg_exp2f_tab");
  IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", fn)); // (no fast-math flags)
  Value* x = fn->getArg(0);
  auto splat = [&](Type* t, uint64_t v) {
    return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(n), llvm::ConstantInt::get(t, v));
  };
  auto fsplat = [&](double v) { return llvm::ConstantFP::get(vec(f64), v); };
  Value* ix = b.CreateBitCast(x, vec(i32));
  // exp2f's special cases go to libm, but x <= -150 and -inf, which give +0 below
  Value* under =
      b.CreateAnd(b.CreateICmpUGE(ix, splat(i32, 0xc3160000u)), b.CreateICmpULE(ix, splat(i32, 0xff800000u)));
  Value* big =
      b.CreateICmpUGE(b.CreateAnd(b.CreateLShr(ix, splat(i32, 20)), splat(i32, 0x7ff)), splat(i32, 0x430));
  Value* odd = b.CreateAnd(big, b.CreateNot(under));
  auto* slow = llvm::BasicBlock::Create(c, "slow", fn);
  auto* fast = llvm::BasicBlock::Create(c, "fast", fn);
  b.CreateCondBr(b.CreateOrReduce(odd), slow, fast);

  b.SetInsertPoint(slow);
  Value* lanes = llvm::PoisonValue::get(vec(f32));
  for (unsigned i = 0; i < n; ++i)
    lanes = b.CreateInsertElement(lanes,
                                  call_intrinsic(b, llvm::Intrinsic::exp2, b.CreateExtractElement(x, i)), i);
  b.CreateRet(lanes);

  b.SetInsertPoint(fast);
  auto fmuladd = [&](Value* a, Value* y, Value* z) {
    return b.CreateCall(llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::fmuladd, {vec(f64)}), {a, y, z});
  };
  const double shift = 0x1.8p+47;
  Value* xd = b.CreateFPExt(x, vec(f64));
  Value* kd = b.CreateFAdd(xd, fsplat(shift));
  Value* ki = b.CreateBitCast(kd, vec(i64));
  kd = b.CreateFSub(kd, fsplat(shift));
  Value* r = b.CreateFSub(xd, kd);
  Value* j = b.CreateAnd(ki, splat(i64, 31));
  Value* ptrs = b.CreateGEP(tab_type, tab, {llvm::ConstantInt::get(i64, 0), j});
  Value* t = b.CreateMaskedGather(vec(i64), ptrs, llvm::Align(8));
  t = b.CreateAdd(t, b.CreateShl(ki, splat(i64, 47)));
  Value* sc = b.CreateBitCast(t, vec(f64));
  Value* z = fmuladd(fsplat(0x1.c6af84b912394p-5), r, fsplat(0x1.ebfce50fac4f3p-3));
  Value* r2 = b.CreateFMul(r, r);
  Value* y = fmuladd(fsplat(0x1.62e42ff0c52d6p-1), r, fsplat(1.0));
  y = fmuladd(z, r2, y);
  y = b.CreateFMul(y, sc);
  Value* out = b.CreateBitCast(b.CreateFPTrunc(y, vec(f32)), vec(i32));
  out = b.CreateAnd(out, b.CreateSelect(under, splat(i32, 0), splat(i32, 0xffffffffu)));
  b.CreateRet(b.CreateBitCast(out, vec(f32)));
  return fn;
}

Value* exp2_of(IRBuilder<>& b, Value* x) {
  auto* v = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!v || !v->getElementType()->isFloatTy()) return call_intrinsic(b, llvm::Intrinsic::exp2, x);
  return b.CreateCall(vector_exp2(*b.GetInsertBlock()->getModule(), v->getNumElements()), {x});
}

const std::unordered_map<Op, FloatLowering>& float_lowerings() {
  static const std::unordered_map<Op, FloatLowering> table = {
      {Op::NEG, [](IRBuilder<>& b, const Args& a) { return b.CreateFNeg(a[0]); }},
      {Op::SQRT,
       [](IRBuilder<>& b, const Args& a) { return call_intrinsic(b, llvm::Intrinsic::sqrt, a[0]); }},
      {Op::EXP2, [](IRBuilder<>& b, const Args& a) { return exp2_of(b, a[0]); }},
      {Op::LOG2,
       [](IRBuilder<>& b, const Args& a) { return call_intrinsic(b, llvm::Intrinsic::log2, a[0]); }},
      {Op::SIN, [](IRBuilder<>& b, const Args& a) { return call_intrinsic(b, llvm::Intrinsic::sin, a[0]); }},
      {Op::RECIP,
       [](IRBuilder<>& b, const Args& a) {
         return b.CreateFDiv(llvm::ConstantFP::get(a[0]->getType(), 1.0), a[0]);
       }},
      {Op::ADD, [](IRBuilder<>& b, const Args& a) { return b.CreateFAdd(a[0], a[1]); }},
      {Op::MUL, [](IRBuilder<>& b, const Args& a) { return b.CreateFMul(a[0], a[1]); }},
      {Op::IDIV, [](IRBuilder<>& b, const Args& a) { return b.CreateFDiv(a[0], a[1]); }},
      {Op::MOD, [](IRBuilder<>& b, const Args& a) { return b.CreateFRem(a[0], a[1]); }},
      // ordered compares, as C's > and <: false when either side is NaN
      {Op::MAX,
       [](IRBuilder<>& b, const Args& a) { return b.CreateSelect(b.CreateFCmpOGT(a[0], a[1]), a[0], a[1]); }},
      {Op::CMPLT, [](IRBuilder<>& b, const Args& a) { return b.CreateFCmpOLT(a[0], a[1]); }},
      {Op::CMPNE, [](IRBuilder<>& b, const Args& a) { return b.CreateFCmpUNE(a[0], a[1]); }},
      {Op::WHERE, [](IRBuilder<>& b, const Args& a) { return b.CreateSelect(a[0], a[1], a[2]); }},
      {Op::MULACC,
       [](IRBuilder<>& b, const Args& a) { return b.CreateFAdd(b.CreateFMul(a[0], a[1]), a[2]); }},
  };
  return table;
}

const std::unordered_map<Op, IntLowering>& int_lowerings() {
  static const std::unordered_map<Op, IntLowering> table = {
      {Op::NEG, [](IRBuilder<>& b, const Args& a, bool) { return b.CreateNeg(a[0]); }},
      {Op::RECIP,
       [](IRBuilder<>& b, const Args& a, bool s) {
         Value* one = llvm::ConstantInt::get(a[0]->getType(), 1);
         return s ? b.CreateSDiv(one, a[0]) : b.CreateUDiv(one, a[0]);
       }},
      {Op::ADD, [](IRBuilder<>& b, const Args& a, bool) { return b.CreateAdd(a[0], a[1]); }},
      {Op::MUL, [](IRBuilder<>& b, const Args& a, bool) { return b.CreateMul(a[0], a[1]); }},
      {Op::IDIV, [](IRBuilder<>& b, const Args& a,
                    bool s) { return s ? b.CreateSDiv(a[0], a[1]) : b.CreateUDiv(a[0], a[1]); }},
      {Op::MOD, [](IRBuilder<>& b, const Args& a,
                   bool s) { return s ? b.CreateSRem(a[0], a[1]) : b.CreateURem(a[0], a[1]); }},
      {Op::MAX,
       [](IRBuilder<>& b, const Args& a, bool s) {
         return b.CreateSelect(s ? b.CreateICmpSGT(a[0], a[1]) : b.CreateICmpUGT(a[0], a[1]), a[0], a[1]);
       }},
      {Op::CMPLT, [](IRBuilder<>& b, const Args& a,
                     bool s) { return s ? b.CreateICmpSLT(a[0], a[1]) : b.CreateICmpULT(a[0], a[1]); }},
      {Op::CMPNE, [](IRBuilder<>& b, const Args& a, bool) { return b.CreateICmpNE(a[0], a[1]); }},
      {Op::XOR, [](IRBuilder<>& b, const Args& a, bool) { return b.CreateXor(a[0], a[1]); }},
      {Op::SHL, [](IRBuilder<>& b, const Args& a, bool) { return b.CreateShl(a[0], a[1]); }},
      {Op::SHR, [](IRBuilder<>& b, const Args& a,
                   bool s) { return s ? b.CreateAShr(a[0], a[1]) : b.CreateLShr(a[0], a[1]); }},
      {Op::MULACC,
       [](IRBuilder<>& b, const Args& a, bool) { return b.CreateAdd(b.CreateMul(a[0], a[1]), a[2]); }},
  };
  return table;
}

// ---- the renderer

struct LoopFrame {
  llvm::BasicBlock* header;
  llvm::BasicBlock* exit;
  llvm::PHINode* index;
  std::vector<std::pair<const UOp*, llvm::PHINode*>> acc_phis; // accumulators carried around the loop
  size_t accs_before;                                          // accumulators declared outside it
  bool unroll = false; // a conv's window: llvm.loop.unroll.full (render_c's #pragma GCC unroll)
};

struct IfFrame {
  llvm::BasicBlock* origin; // the block that branches around the body
  llvm::BasicBlock* merge;
  std::vector<Value*> acc_values; // accumulator values when entering the body
};

class LlvmRenderer {
public:
  LlvmRenderer() : module_("tg", ctx_), b_(ctx_) {
    // Only `contract` of tinygrad's MFLAGS (nsz arcp contract afn reassoc): fusing a multiply
    // into its one add is what clang -O2 does for CLANG's C. The others let LLVM evaluate the
    // same expression differently in two kernels (reassociate around what it hoists, share a
    // reciprocal, estimate 1/sqrt), and tinygrad's max and max-pool backward compare a
    // recomputed value with the forward's for equality: a conv -> BatchNorm -> ReLU ->
    // max_pool2d training step got gradients 6% off on its second step.
    llvm::FastMathFlags fmf;
    fmf.setAllowContract();
    b_.setFastMathFlags(fmf);
  }

  std::string render(const std::string& name, const std::vector<const UOp*>& uops, int unroll_window) {
    for (const UOp* u : uops)
      for (const UOp* s : u->src) users_[s]++;
    unrolled_ = window_loops(uops, unroll_window);
    declare_function(name, uops);
    for (const UOp* u : uops) emit(u);
    if (!loops_.empty() || !ifs_.empty()) render_error("RANGE or IF without its END");
    b_.CreateRetVoid();
    std::string verifier_log;
    llvm::raw_string_ostream log(verifier_log);
    if (llvm::verifyModule(module_, &log)) render_error("invalid IR: " + log.str());
    std::string text;
    llvm::raw_string_ostream os(text);
    module_.print(os, nullptr);
    return os.str();
  }

private:
  // ---- function and values

  void declare_function(const std::string& name, const std::vector<const UOp*>& uops) {
    std::vector<const UOp*> params;
    std::unordered_set<const UOp*> stored;
    for (const UOp* u : uops) {
      if (u->op == UOps::DEFINE_GLOBAL || u->op == UOps::DEFINE_VAR) params.push_back(u);
      if (u->op == UOps::STORE) stored.insert(u->src[0]);
    }
    std::vector<Type*> types;
    for (const UOp* p : params)
      types.push_back(p->op == UOps::DEFINE_GLOBAL
                          ? static_cast<Type*>(memory_type(ctx_, *p->dtype)->getPointerTo())
                          : b_.getInt32Ty()); // C's `const int name`
    auto* fn_type = llvm::FunctionType::get(b_.getVoidTy(), types, false);
    fn_ = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, name, module_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    for (size_t i = 0; i < params.size(); i++) {
      llvm::Argument* arg = fn_->getArg(unsigned(i));
      if (params[i]->op == UOps::DEFINE_VAR) {
        arg->setName(std::get<VarArg>(params[i]->arg).name);
      } else {
        arg->setName("data" + std::to_string(std::get<GlobalArg>(params[i]->arg).idx));
        arg->addAttr(llvm::Attribute::NoAlias);
        if (!stored.count(params[i])) arg->addAttr(llvm::Attribute::ReadOnly);
      }
      v_[params[i]] = arg;
    }
    enter(new_block("entry"));
  }

  Value* ref(const UOp* u) const {
    // A PHI names its accumulator's current value: after the loop that is the header's phi,
    // not the value computed in the body.
    while (u->op == UOps::PHI) u = u->src[0];
    auto it = v_.find(u);
    if (it == v_.end()) render_error("UOp used before it is defined: " + std::string(uops_name(u->op)));
    return it->second;
  }

  // Blocks join the function when code goes into them, so the IR reads top to bottom.
  llvm::BasicBlock* new_block(const std::string& name) { return llvm::BasicBlock::Create(ctx_, name); }
  void enter(llvm::BasicBlock* block) {
    if (!block->getParent()) block->insertInto(fn_);
    b_.SetInsertPoint(block);
  }

  Value* constant(const Scalar& v0, DType dt) {
    Scalar v = as_const(v0, dt);
    Type* t = value_type(ctx_, dt);
    if (dt == DType::Bool) return b_.getInt1(v.truthy());
    if (is_int(dt)) return llvm::ConstantInt::get(t, uint64_t(v.i)); // wraps to the width
    if (dt == DType::BFloat16)
      return llvm::ConstantFP::get(t, double(bf16_to_float(float_to_bf16(float(v.f)))));
    if (dt == DType::Float32) return llvm::ConstantFP::get(t, double(float(v.f)));
    if (dt == DType::Float16) { // C's (__fp16)(<double literal>): one rounding, to nearest even
      llvm::APFloat h(v.f);
      bool inexact = false;
      h.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &inexact);
      h.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &inexact);
      return llvm::ConstantFP::get(ctx_, h);
    }
    return llvm::ConstantFP::get(t, v.f);
  }

  // ---- bfloat16, bit for bit render_c's tg_bf16_to_float / tg_float_to_bf16

  Value* bf16_bits_to_float(Value* bits) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16), b_.getFloatTy());
  }

  Value* float_to_bf16_bits(Value* f) {
    Value* u = b_.CreateBitCast(f, b_.getInt32Ty());
    Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(u, 0x7fffffffu), b_.getInt32(0x7f800000u));
    Value* high = b_.CreateLShr(u, 16);
    Value* quiet_nan = b_.CreateOr(high, 0x40u);
    Value* rounded =
        b_.CreateLShr(b_.CreateAdd(b_.CreateAdd(u, b_.getInt32(0x7fffu)), b_.CreateAnd(high, 1u)), 16);
    return b_.CreateTrunc(b_.CreateSelect(is_nan, quiet_nan, rounded), b_.getInt16Ty());
  }

  Value* bf16_round(Value* f) { return bf16_bits_to_float(float_to_bf16_bits(f)); }

  // A float (or double) stored into an __fp16 and read back.
  Value* half_round(Value* f) { return b_.CreateFPExt(b_.CreateFPTrunc(f, b_.getHalfTy()), b_.getFloatTy()); }

  Value* from_memory(Value* raw, DType dt) {
    if (dt == DType::Bool) return b_.CreateICmpNE(raw, b_.getInt8(0));
    if (dt == DType::BFloat16) return bf16_bits_to_float(raw);
    if (dt == DType::Float16) return b_.CreateFPExt(raw, b_.getFloatTy());
    return raw;
  }

  Value* to_memory(Value* v, DType dt) {
    if (dt == DType::Bool) return b_.CreateZExt(v, b_.getInt8Ty());
    if (dt == DType::BFloat16) return float_to_bf16_bits(v);
    if (dt == DType::Float16) return b_.CreateFPTrunc(v, b_.getHalfTy());
    return v;
  }

  // ---- conversions, as clang compiles C's casts

  Value* convert(Value* v, DType from, DType to) {
    if (from == to) return v;
    if (to == DType::BFloat16) return bf16_round(convert(v, from, DType::Float32)); // (float)(x), rounded
    if (to == DType::Float16) // clang rounds a double once, anything else via float
      return from == DType::Float64 ? half_round(v) : half_round(convert(v, from, DType::Float32));
    if (from == DType::BFloat16 || from == DType::Float16) from = DType::Float32; // the value is a float
    if (from == to) return v;
    Type* t = value_type(ctx_, to);
    if (to == DType::Bool)
      return is_float(from) ? b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                            : b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    if (is_float(from) && is_float(to))
      return itemsize(to) > itemsize(from) ? b_.CreateFPExt(v, t) : b_.CreateFPTrunc(v, t);
    // (through i64 for the narrow types: an out-of-range value wraps as in CLANG, not poison)
    if (is_float(from) && float_cast_through_int64(to))
      return b_.CreateTrunc(b_.CreateFPToSI(v, llvm::Type::getInt64Ty(ctx_)), t);
    if (is_float(from)) return is_unsigned(to) ? b_.CreateFPToUI(v, t) : b_.CreateFPToSI(v, t);
    if (is_float(to)) return is_signed_int(from) ? b_.CreateSIToFP(v, t) : b_.CreateUIToFP(v, t);
    return b_.CreateIntCast(v, t, is_signed_int(from));
  }

  Value* bitcast(Value* v, DType from, DType to) {
    // 16-bit floats are bitcast in their memory form, as render_c's precast variable holds them
    Value* bits = is_float(from) && itemsize(from) == 2 ? to_memory(v, from) : v;
    Type* t = is_float(to) && itemsize(to) == 2 ? memory_type(ctx_, to) : value_type(ctx_, to);
    if (bits->getType()->getPrimitiveSizeInBits() != t->getPrimitiveSizeInBits())
      render_error("BITCAST between types of different sizes");
    Value* r = b_.CreateBitCast(bits, t);
    return is_float(to) && itemsize(to) == 2 ? from_memory(r, to) : r;
  }

  // ---- UOps

  void emit(const UOp* u) {
    switch (u->op) {
    case UOps::DEFINE_GLOBAL:
    case UOps::DEFINE_VAR:
    case UOps::SINK:
      break; // parameters are bound in declare_function
    case UOps::NOOP:
      if (!u->src.empty()) v_[u] = ref(u->src[0]);
      break;
    case UOps::DEFINE_LOCAL:
      v_[u] = local_array(u);
      break;
    case UOps::CONST:
      v_[u] = constant(u->value(), *u->dtype);
      break;
    case UOps::DEFINE_ACC:
      v_[u] = splat(u, constant(u->src[0]->value(), *u->dtype));
      accs_.push_back(u);
      break;
    case UOps::GEP:
      v_[u] = b_.CreateExtractElement(ref(u->src[0]), uint64_t(std::get<int>(u->arg)));
      break;
    case UOps::PHI:
      emit_phi(u);
      break;
    case UOps::RANGE:
      emit_range(u);
      break;
    case UOps::ENDRANGE:
      emit_endrange();
      break;
    case UOps::IF:
      emit_if(u);
      break;
    case UOps::ENDIF:
      emit_endif();
      break;
    case UOps::ALU:
      v_[u] = emit_alu(u);
      break;
    case UOps::LOAD:
      emit_load(u);
      break;
    case UOps::STORE:
      emit_store(u);
      break;
    case UOps::CAST:
      v_[u] = u->src.size() > 1 ? vectorize(u) : convert(ref(u->src[0]), *u->src[0]->dtype, *u->dtype);
      break;
    case UOps::BITCAST:
      v_[u] = bitcast(ref(u->src[0]), *u->src[0]->dtype, *u->dtype);
      break;
    default:
      render_error("failed to render " + std::string(uops_name(u->op)));
    }
  }

  // PHI is C's `acc = value`: the accumulator's current value becomes the new one (rounded
  // when the accumulator is an __fp16 variable).
  void emit_phi(const UOp* u) {
    const UOp* acc = u->src[0];
    while (acc->op == UOps::PHI) acc = acc->src[0];
    Value* v = ref(u->src[1]);
    v_[u] = v_[acc] = *acc->dtype == DType::Float16 ? half_round(v) : v;
  }

  // `for (int i = start; i < end; i++)`: a header that tests before the first trip (a loop may
  // run zero times), and one phi per accumulator in scope.
  void emit_range(const UOp* u) {
    llvm::BasicBlock* preheader = b_.GetInsertBlock();
    LoopFrame f{new_block("loop_header"), nullptr, nullptr, {}, accs_.size(), unrolled_.count(u) > 0};
    llvm::BasicBlock* body = new_block("loop_body");
    f.exit = new_block("loop_exit");
    b_.CreateBr(f.header);
    enter(f.header);
    f.index = b_.CreatePHI(b_.getInt32Ty(), 2, "ridx");
    f.index->addIncoming(ref(u->src[0]), preheader);
    for (const UOp* acc : accs_) {
      llvm::PHINode* phi = b_.CreatePHI(ref(acc)->getType(), 2, "acc");
      phi->addIncoming(ref(acc), preheader);
      f.acc_phis.emplace_back(acc, phi);
      v_[acc] = phi;
    }
    b_.CreateCondBr(b_.CreateICmpSLT(f.index, ref(u->src[1])), body, f.exit);
    enter(body);
    v_[u] = f.index;
    loops_.push_back(std::move(f));
  }

  // !{!self, !{"llvm.loop.unroll.full"}}: the loop's own distinct node, as clang emits it
  llvm::MDNode* unroll_full() {
    auto temp = llvm::MDNode::getTemporary(ctx_, llvm::ArrayRef<llvm::Metadata*>());
    llvm::Metadata* full = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")});
    std::vector<llvm::Metadata*> ops{temp.get(), full};
    llvm::MDNode* loop = llvm::MDNode::getDistinct(ctx_, ops);
    loop->replaceOperandWith(0, loop);
    return loop;
  }

  void emit_endrange() {
    if (loops_.empty()) render_error("ENDRANGE without RANGE");
    LoopFrame f = std::move(loops_.back());
    loops_.pop_back();
    llvm::BasicBlock* latch = b_.GetInsertBlock();
    f.index->addIncoming(b_.CreateAdd(f.index, b_.getInt32(1)), latch);
    for (auto& [acc, phi] : f.acc_phis) {
      phi->addIncoming(ref(acc), latch);
      v_[acc] = phi; // after the loop: the value the last test saw
    }
    llvm::BranchInst* back = b_.CreateBr(f.header);
    if (f.unroll) back->setMetadata(llvm::LLVMContext::MD_loop, unroll_full());
    enter(f.exit);
    accs_.resize(f.accs_before); // accumulators of the body are out of scope
  }

  void emit_if(const UOp* u) {
    IfFrame f{b_.GetInsertBlock(), new_block("if_merge"), {}};
    for (const UOp* acc : accs_) f.acc_values.push_back(ref(acc));
    llvm::BasicBlock* then = new_block("if_then");
    b_.CreateCondBr(ref(u->src[0]), then, f.merge);
    enter(then);
    ifs_.push_back(std::move(f));
  }

  // Accumulators assigned inside the IF merge with their values from before it.
  void emit_endif() {
    if (ifs_.empty()) render_error("ENDIF without IF");
    IfFrame f = std::move(ifs_.back());
    ifs_.pop_back();
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(f.merge);
    enter(f.merge);
    accs_.resize(f.acc_values.size());
    for (size_t i = 0; i < accs_.size(); i++) {
      Value* inside = ref(accs_[i]);
      if (inside == f.acc_values[i]) continue;
      llvm::PHINode* phi = b_.CreatePHI(inside->getType(), 2, "acc");
      phi->addIncoming(f.acc_values[i], f.origin);
      phi->addIncoming(inside, then_end);
      v_[accs_[i]] = phi;
    }
  }

  Value* emit_alu(const UOp* u) {
    Op op = u->alu();
    DType dt = *u->dtype;
    DType operand_dt = *u->src[op == Op::WHERE ? 1 : 0]->dtype;
    Args args;
    for (const UOp* s : u->src) args.push_back(splat(u, ref(s))); // (a scalar beside a vector: every lane)
    Value* r = is_float(operand_dt) ? float_alu(op, args) : int_alu(u, args);
    if (dt == DType::BFloat16 && op != Op::WHERE) r = bf16_round(r); // render_c's tg_bf16_round
    if (dt == DType::Float16 && c_names_result(u)) r = half_round(r);
    return r;
  }

  // Whether render_c gives this ALU result a variable of its dtype rather than inlining the
  // expression into its one user: an __fp16 result is rounded to half exactly there, and an
  // inlined one stays a float inside the user's expression.
  bool c_names_result(const UOp* u) const {
    auto it = users_.find(u);
    return (it != users_.end() && it->second > 1) || u->alu() == Op::MAX;
  }

  Value* float_alu(Op op, const Args& args) {
    auto it = float_lowerings().find(op);
    if (it == float_lowerings().end()) render_error(std::string(op_name(op)) + " on floats");
    return it->second(b_, args);
  }

  // C's integer arithmetic: operands promoted to int, the result converted back to the dtype.
  Value* int_alu(const UOp* u, Args args) {
    Op op = u->alu();
    DType operand_dt = *u->src[0]->dtype;
    if (op == Op::WHERE) return b_.CreateSelect(args[0], args[1], args[2]);
    if (op == Op::NEG && operand_dt == DType::Bool) return b_.CreateNot(args[0]); // C's !x
    if (u->vcount > 1 && operand_dt == DType::Bool) { // masks (RendererOpts::vector_masks)
      if (op == Op::MUL) return b_.CreateAnd(args[0], args[1]);
      if (op == Op::CMPNE) return b_.CreateXor(args[0], args[1]);
    }
    auto it = int_lowerings().find(op);
    if (it == int_lowerings().end()) render_error(std::string(op_name(op)) + " on integers");
    for (size_t i = 0; i < args.size(); i++) {
      DType sdt = *u->src[i]->dtype;
      if (promotes_to_int(sdt)) args[i] = b_.CreateIntCast(args[i], b_.getInt32Ty(), is_signed_int(sdt));
      // a shift count (or a stray mixed operand) takes the first operand's type
      if (i > 0) args[i] = b_.CreateIntCast(args[i], args[0]->getType(), signed_arithmetic(sdt));
    }
    Value* r = it->second(b_, args, signed_arithmetic(operand_dt));
    DType dt = *u->dtype;
    if (r->getType()->isIntegerTy(1)) return r; // a compare
    if (dt == DType::Bool) return b_.CreateICmpNE(r, llvm::ConstantInt::get(r->getType(), 0));
    return b_.CreateIntCast(r, value_type(ctx_, dt), signed_arithmetic(operand_dt));
  }

  // ---- vectors (tg's host optimizer): float32 only, as the optimizer gives lanes to float32 kernels

  // x as a value of u's width: a scalar is broadcast to every lane
  Value* splat(const UOp* u, Value* x) {
    if (u->vcount == 1 || x->getType()->isVectorTy()) return x;
    return b_.CreateVectorSplat(unsigned(u->vcount), x);
  }

  Value* vectorize(const UOp* u) {
    Value* v =
        llvm::PoisonValue::get(llvm::FixedVectorType::get(value_type(ctx_, *u->dtype), unsigned(u->vcount)));
    for (size_t i = 0; i < u->src.size(); i++) v = b_.CreateInsertElement(v, ref(u->src[i]), uint64_t(i));
    return v;
  }

  // The <lanes x float> type of value v, read from or written to buffer buf (both float32)
  llvm::FixedVectorType* float_vector(const UOp* v, const UOp* buf) {
    if (*v->dtype != DType::Float32 || *buf->dtype != DType::Float32)
      render_error("a vector access to a non-float32 buffer");
    return llvm::FixedVectorType::get(b_.getFloatTy(), unsigned(v->vcount));
  }

  // A packed panel (codegen/pack_panels.h): a float array on the stack, whole cache lines. The
  // alloca goes in the entry block, where it is made once, however deep the loop that uses it.
  Value* local_array(const UOp* u) {
    llvm::BasicBlock& entry = fn_->getEntryBlock();
    IRBuilder<> at(&entry, entry.begin());
    llvm::AllocaInst* a =
        at.CreateAlloca(memory_type(ctx_, *u->dtype), b_.getInt64(uint64_t(std::get<LocalArg>(u->arg).size)),
                        std::get<LocalArg>(u->arg).name);
    a->setAlignment(llvm::Align(64));
    return a;
  }

  // consecutive elements; buffers are only element-aligned
  Value* load_vector(const UOp* u) {
    return b_.CreateAlignedLoad(float_vector(u, u->src[0]), element_pointer(u->src[0], u->src[1]),
                                llvm::Align(4));
  }

  // lanes lo <= l < hi of buf[idx + l], the others 0: a masked load touches only those lanes
  Value* load_lane_range(const UOp* u) {
    llvm::FixedVectorType* t = float_vector(u, u->src[0]);
    const unsigned n = unsigned(u->vcount);
    std::vector<llvm::Constant*> ids;
    for (unsigned i = 0; i < n; i++) ids.push_back(b_.getInt32(i));
    Value* iota = llvm::ConstantVector::get(ids);
    Value *lo = splat(u, ref(u->src[2])), *hi = splat(u, ref(u->src[3]));
    Value* mask = b_.CreateAnd(b_.CreateICmpSGE(iota, lo), b_.CreateICmpSLT(iota, hi));
    Value* base = element_pointer(u->src[0], u->src[1]);
    if (std::get<LaneRange>(u->arg).stride == 2) {
      // elements 2lo .. 2hi-2 as two masked loads of n and the even lanes, as CLANG's helper
      // does: a masked gather goes element by element (a 1x1 stride-2 conv 4x slower)
      Value *lo2 = splat(u, b_.CreateMul(ref(u->src[2]), b_.getInt32(2))),
            *hi2 = splat(u, b_.CreateSub(b_.CreateMul(ref(u->src[3]), b_.getInt32(2)), b_.getInt32(1)));
      std::vector<llvm::Constant*> upper, even;
      for (unsigned i = 0; i < n; i++) upper.push_back(b_.getInt32(n + i));
      for (unsigned i = 0; i < n; i++) even.push_back(b_.getInt32(2 * i));
      Value* iota1 = llvm::ConstantVector::get(upper);
      Value* m0 = b_.CreateAnd(b_.CreateICmpSGE(iota, lo2), b_.CreateICmpSLT(iota, hi2));
      Value* m1 = b_.CreateAnd(b_.CreateICmpSGE(iota1, lo2), b_.CreateICmpSLT(iota1, hi2));
      Value* x0 = b_.CreateMaskedLoad(t, base, llvm::Align(4), m0, llvm::Constant::getNullValue(t));
      Value* x1 = b_.CreateMaskedLoad(t, b_.CreateInBoundsGEP(t->getElementType(), base, b_.getInt32(n)),
                                      llvm::Align(4), m1, llvm::Constant::getNullValue(t));
      return b_.CreateShuffleVector(x0, x1, llvm::ConstantVector::get(even));
    }
    if (const int stride = std::get<LaneRange>(u->arg).stride; stride != 1) { // every stride-th element
      Value* offsets = b_.CreateMul(iota, llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(n),
                                                                         b_.getInt32(unsigned(stride))));
      Value* ptrs = b_.CreateInBoundsGEP(t->getElementType(), base, offsets);
      return b_.CreateMaskedGather(t, ptrs, llvm::Align(4), mask, llvm::Constant::getNullValue(t));
    }
    return b_.CreateMaskedLoad(t, base, llvm::Align(4), mask, llvm::Constant::getNullValue(t));
  }

  Value* element_pointer(const UOp* buf, const UOp* index) {
    return b_.CreateInBoundsGEP(memory_type(ctx_, *buf->dtype), ref(buf), ref(index));
  }

  Value* load_element(const UOp* u) {
    DType buf_dt = *u->src[0]->dtype;
    if (u->vcount > 1) return load_vector(u);
    Value* raw = b_.CreateLoad(memory_type(ctx_, buf_dt), element_pointer(u->src[0], u->src[1]));
    return convert(from_memory(raw, buf_dt), buf_dt, *u->dtype);
  }

  // A gated load (buf, idx, gate, alt) branches around the read: with the gate false no
  // memory is touched, as in C's `gate ? buf[idx] : alt`.
  void emit_load(const UOp* u) {
    if (std::holds_alternative<LaneRange>(u->arg)) {
      v_[u] = load_lane_range(u);
      return;
    }
    if (u->src.size() <= 3) {
      v_[u] = load_element(u);
      return;
    }
    Value* alt = splat(u, ref(u->src[3]));
    if (*u->dtype == DType::Float16) alt = half_round(alt); // `val = gate ? buf[idx] : alt` is an __fp16
    llvm::BasicBlock* origin = b_.GetInsertBlock();
    llvm::BasicBlock* read = new_block("load_gated");
    llvm::BasicBlock* merge = new_block("load_merge");
    b_.CreateCondBr(ref(u->src[2]), read, merge);
    enter(read);
    Value* loaded = load_element(u);
    llvm::BasicBlock* read_end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    enter(merge);
    llvm::PHINode* phi = b_.CreatePHI(loaded->getType(), 2, "val");
    phi->addIncoming(loaded, read_end);
    phi->addIncoming(alt, origin);
    v_[u] = phi;
  }

  void emit_store(const UOp* u) {
    DType buf_dt = *u->src[0]->dtype;
    llvm::BasicBlock* merge = nullptr;
    if (u->src.size() > 3) {
      llvm::BasicBlock* write = new_block("store_gated");
      merge = new_block("store_merge");
      b_.CreateCondBr(ref(u->src[3]), write, merge);
      enter(write);
    }
    if (u->src[2]->vcount > 1) {
      float_vector(u->src[2], u->src[0]); // (the check: a float32 vector into a float32 buffer)
      b_.CreateAlignedStore(ref(u->src[2]), element_pointer(u->src[0], u->src[1]), llvm::Align(4));
    } else {
      Value* v = to_memory(convert(ref(u->src[2]), *u->src[2]->dtype, buf_dt), buf_dt);
      b_.CreateStore(v, element_pointer(u->src[0], u->src[1]));
    }
    if (merge) {
      b_.CreateBr(merge);
      enter(merge);
    }
  }

  llvm::LLVMContext ctx_;                   // declared first: destroyed after the module and builder
  std::unordered_set<const UOp*> unrolled_; // RANGEs that get llvm.loop.unroll.full (window_loops)
  llvm::Module module_;
  IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  std::unordered_map<const UOp*, Value*> v_;
  std::unordered_map<const UOp*, int> users_; // uses of each UOp as a source, as render_c counts them
  std::vector<const UOp*> accs_;              // DEFINE_ACCs in scope, outermost first
  std::vector<LoopFrame> loops_;
  std::vector<IfFrame> ifs_;
};

} // namespace

std::string render_llvm_ir(const std::string& function_name, const std::vector<const UOp*>& uops,
                           int unroll_window) {
  return LlvmRenderer().render(function_name, uops, unroll_window);
}

} // namespace tg
