// The LLVM device's renderer and JIT: UOp lists built by hand are rendered to IR, compiled
// to a shared object, loaded into this process and run on host arrays. Expected values are what the
// C renderer's kernels compute (C's integer and conversion rules, render_c's bfloat16).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <unordered_set>

#include "codegen/uops.h"
#include "device/llvm/plugin/llvm_jit.h"
#include "device/llvm/plugin/llvm_renderer.h"
#include "util/error.h"

namespace tg {

namespace {

// Records the UOps of one kernel in the order they are built: the linearized list.
class KernelBuilder {
public:
  const UOp* global(int idx, DType dt, bool written = false) {
    return push(g_.make(UOps::DEFINE_GLOBAL, dt, {}, GlobalArg{idx, written}));
  }
  const UOp* var(const std::string& name) {
    return push(g_.make(UOps::DEFINE_VAR, DType::Int32, {}, VarArg{name, 0, 1000}));
  }
  const UOp* c(DType dt, double v) {
    return push(g_.cnst(dt, is_float(dt) ? Scalar::of_float(v) : Scalar::of_int(int64_t(v))));
  }
  const UOp* i32(int64_t v) { return c(DType::Int32, double(v)); }
  const UOp* alu(Op op, std::vector<const UOp*> src) { return push(g_.alu(op, std::move(src))); }
  const UOp* cast(const UOp* x, DType dt) { return push(g_.cast(x, dt)); }
  const UOp* bitcast(const UOp* x, DType dt) { return push(g_.make(UOps::BITCAST, dt, {x})); }
  const UOp* range(const UOp* start, const UOp* end, bool reduce = false) {
    return push(g_.make(UOps::RANGE, DType::Int32, {start, end}, LoopArg{reduce ? 2 : 1, 0, reduce}));
  }
  void end_range(const UOp* r) { push(g_.make(UOps::ENDRANGE, std::nullopt, {r})); }
  void if_(const UOp* cond) { if_stack_.push_back(push(g_.make(UOps::IF, std::nullopt, {cond}))); }
  void end_if() {
    push(g_.make(UOps::ENDIF, std::nullopt, {if_stack_.back()}));
    if_stack_.pop_back();
  }
  const UOp* load(const UOp* buf, const UOp* idx) {
    return push(g_.make(UOps::LOAD, buf->dtype, {buf, idx}));
  }
  const UOp* load_gated(const UOp* buf, const UOp* idx, const UOp* gate, const UOp* alt) {
    return push(g_.make(UOps::LOAD, buf->dtype, {buf, idx, gate, alt}));
  }
  void store(const UOp* buf, const UOp* idx, const UOp* value, const UOp* gate = nullptr) {
    std::vector<const UOp*> src{buf, idx, value};
    if (gate) src.push_back(gate);
    push(g_.make(UOps::STORE, std::nullopt, src));
  }
  const UOp* acc(DType dt, double init) {
    return push(g_.make(UOps::DEFINE_ACC, dt, {c(dt, init)}, AccArg{0, 0}));
  }
  const UOp* phi(const UOp* acc, const UOp* value) {
    return push(g_.make(UOps::PHI, acc->dtype, {acc, value}));
  }

  std::string ir(const std::string& name) const { return render_llvm_ir(name, uops_); }

  // One elementwise loop over [0, n): out[i] = f(in[i]) for every input buffer.
  void map(const UOp* out, std::vector<const UOp*> ins, int n,
           const std::function<const UOp*(const std::vector<const UOp*>&)>& f) {
    const UOp* i = range(i32(0), i32(n));
    std::vector<const UOp*> vals;
    for (const UOp* in : ins) vals.push_back(load(in, i));
    store(out, i, f(vals));
    end_range(i);
  }

private:
  const UOp* push(const UOp* u) {
    if (seen_.insert(u).second) uops_.push_back(u);
    return u;
  }
  UOpGraph g_;
  std::vector<const UOp*> uops_;
  std::unordered_set<const UOp*> seen_;
  std::vector<const UOp*> if_stack_;
};

// Kernels built into a shared object (as the LLVM device does) and dlopen'ed.
class Loaded {
public:
  explicit Loaded(const std::vector<std::pair<std::string, std::string>>& kernels) {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("tg-test-llvm-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".so");
    build_llvm_shared_object(kernels, path_);
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw Error("RuntimeError", dlerror());
  }
  ~Loaded() {
    dlclose(handle_);
    std::filesystem::remove(path_);
  }
  LlvmLauncher launcher(const std::string& kernel) const {
    void* sym = dlsym(handle_, llvm_launcher_name(kernel).c_str());
    if (!sym) throw Error("RuntimeError", "no launcher for " + kernel);
    return reinterpret_cast<LlvmLauncher>(sym);
  }

private:
  std::filesystem::path path_;
  void* handle_ = nullptr;
};

// Compiles one kernel, loads it, and runs it once.
void run(const KernelBuilder& k, std::vector<void*> bufs, std::vector<int32_t> vars = {}) {
  Loaded loaded({{"k", k.ir("k")}});
  loaded.launcher("k")(bufs.data(), vars.data());
}

// A unary elementwise kernel from `from` to `to`, run over `in`.
template <class To, class From>
std::vector<To> map1(DType from, DType to, const std::vector<From>& in,
                     const std::function<const UOp*(KernelBuilder&, const UOp*)>& f) {
  KernelBuilder k;
  const UOp* out = k.global(0, to, true);
  const UOp* a = k.global(1, from);
  k.map(out, {a}, int(in.size()), [&](auto& v) { return f(k, v[0]); });
  std::vector<To> result(in.size());
  std::vector<From> input = in;
  run(k, {result.data(), input.data()});
  return result;
}

template <class T>
std::vector<T> map2(DType dt, DType out_dt, const std::vector<T>& a, const std::vector<T>& b, Op op) {
  KernelBuilder k;
  const UOp* out = k.global(0, out_dt, true);
  const UOp* x = k.global(1, dt);
  const UOp* y = k.global(2, dt);
  k.map(out, {x, y}, int(a.size()), [&](auto& v) { return k.alu(op, {v[0], v[1]}); });
  std::vector<T> result(a.size()), av = a, bv = b;
  run(k, {result.data(), av.data(), bv.data()});
  return result;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

} // namespace

TEST(LlvmRenderer, signature_lists_buffers_then_vars_in_uop_order) {
  KernelBuilder k;
  const UOp* out = k.global(0, DType::Float32, true);
  const UOp* in = k.global(1, DType::BFloat16);
  const UOp* n = k.var("n");
  k.store(out, k.i32(0), k.cast(k.load(in, n), DType::Float32));
  std::string ir = k.ir("k");
  EXPECT_NE(ir.find("define void @k(ptr noalias %data0, ptr noalias readonly %data1, i32 %n)"),
            std::string::npos)
      << ir;
}

TEST(LlvmRenderer, unknown_uop_is_a_runtime_error) {
  UOpGraph g;
  std::vector<const UOp*> uops{g.make(UOps::SPECIAL, DType::Int32, {}, VarArg{"gidx0", 0, 3})};
  try {
    render_llvm_ir("k", uops);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
    EXPECT_NE(std::string(e.what()).find("render_llvm: "), std::string::npos);
  }
}

TEST(LlvmJit, elementwise_add) {
  auto out = map2<float>(DType::Float32, DType::Float32, {1, 2, 3, 4.5f}, {10, 20, 30, 0.25f}, Op::ADD);
  EXPECT_EQ(out, (std::vector<float>{11, 22, 33, 4.75f}));
}

TEST(LlvmJit, reduce_loop_sums_with_an_accumulator_and_a_var_bound) {
  KernelBuilder k;
  const UOp* out = k.global(0, DType::Int32, true);
  const UOp* n = k.var("n");
  const UOp* acc = k.acc(DType::Int32, 0);
  const UOp* r = k.range(k.i32(0), n, true);
  k.phi(acc, k.alu(Op::ADD, {acc, r}));
  k.end_range(r);
  k.store(out, k.i32(0), acc);
  for (int32_t count : {10, 1, 0}) {
    int32_t result = -1;
    run(k, {&result}, {count});
    EXPECT_EQ(result, count * (count - 1) / 2) << "n=" << count; // n=0 runs the loop zero times
  }
}

TEST(LlvmJit, nested_loops_reduce_rows) {
  KernelBuilder k;
  const UOp* out = k.global(0, DType::Float32, true);
  const UOp* in = k.global(1, DType::Float32);
  const UOp* row = k.range(k.i32(0), k.i32(3));
  const UOp* acc = k.acc(DType::Float32, 0);
  const UOp* col = k.range(k.i32(0), k.i32(4), true);
  k.phi(acc, k.alu(Op::ADD, {k.load(in, k.alu(Op::ADD, {k.alu(Op::MUL, {row, k.i32(4)}), col})), acc}));
  k.end_range(col);
  k.store(out, row, acc);
  k.end_range(row);
  std::vector<float> input(12), result(3);
  for (int i = 0; i < 12; i++) input[size_t(i)] = float(i);
  run(k, {result.data(), input.data()});
  EXPECT_EQ(result, (std::vector<float>{6, 22, 38}));
}

TEST(LlvmJit, gated_load_reads_no_memory_when_the_gate_is_false) {
  // three floats at the end of a page whose successor cannot be read
  long page = sysconf(_SC_PAGESIZE);
  auto* mem = static_cast<char*>(
      mmap(nullptr, size_t(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(mem, MAP_FAILED);
  mprotect(mem + page, size_t(page), PROT_NONE);
  auto* in = reinterpret_cast<float*>(mem + page) - 3;
  in[0] = 1, in[1] = 2, in[2] = 3;
  KernelBuilder k;
  const UOp* out = k.global(0, DType::Float32, true);
  const UOp* a = k.global(1, DType::Float32);
  const UOp* i = k.range(k.i32(0), k.i32(6));
  const UOp* valid = k.alu(Op::CMPLT, {i, k.i32(3)});
  k.store(out, i, k.load_gated(a, i, valid, k.c(DType::Float32, -1)));
  k.end_range(i);
  std::vector<float> result(6);
  run(k, {result.data(), in});
  EXPECT_EQ(result, (std::vector<float>{1, 2, 3, -1, -1, -1}));
  munmap(mem, size_t(2 * page));
}

TEST(LlvmJit, gated_store_and_if_write_only_where_the_gate_holds) {
  KernelBuilder k;
  const UOp* out = k.global(0, DType::Int32, true);
  const UOp* i = k.range(k.i32(0), k.i32(4));
  k.store(out, i, k.i32(7), k.alu(Op::CMPLT, {i, k.i32(2)}));
  k.if_(k.alu(Op::CMPNE, {i, k.i32(1)}));
  k.store(out, k.alu(Op::ADD, {i, k.i32(4)}), i);
  k.end_if();
  k.end_range(i);
  std::vector<int32_t> result(8, -1);
  run(k, {result.data()});
  EXPECT_EQ(result, (std::vector<int32_t>{7, 7, -1, -1, 0, -1, 2, 3}));
}

TEST(LlvmJit, accumulator_assigned_inside_an_if_keeps_its_value_outside) {
  KernelBuilder k;
  const UOp* out = k.global(0, DType::Int32, true);
  const UOp* acc = k.acc(DType::Int32, 0);
  const UOp* r = k.range(k.i32(0), k.i32(10), true);
  k.if_(k.alu(Op::CMPLT, {r, k.i32(4)}));
  k.phi(acc, k.alu(Op::ADD, {acc, r}));
  k.end_if();
  k.end_range(r);
  k.store(out, k.i32(0), acc);
  int32_t result = -1;
  run(k, {&result});
  EXPECT_EQ(result, 0 + 1 + 2 + 3);
}

TEST(LlvmJit, int_division_and_modulo_truncate_like_c) {
  std::vector<int32_t> a{-7, 7, -7, 7, -1}, b{2, -2, -2, 2, 5};
  EXPECT_EQ(map2<int32_t>(DType::Int32, DType::Int32, a, b, Op::IDIV),
            (std::vector<int32_t>{-3, -3, 3, 3, 0}));
  EXPECT_EQ(map2<int32_t>(DType::Int32, DType::Int32, a, b, Op::MOD),
            (std::vector<int32_t>{-1, 1, -1, 1, -1}));
}

TEST(LlvmJit, narrow_ints_promote_to_int_like_c) {
  // (signed char)(-128 / -1) is 128 in int, truncated back to -128; no trap
  std::vector<int8_t> a{-128, -7, 100}, b{-1, 2, 3};
  EXPECT_EQ(map2<int8_t>(DType::Int8, DType::Int8, a, b, Op::IDIV), (std::vector<int8_t>{-128, -3, 33}));
  std::vector<uint8_t> x{200, 255, 3};
  EXPECT_EQ(map2<uint8_t>(DType::UInt8, DType::UInt8, x, {100, 2, 7}, Op::ADD),
            (std::vector<uint8_t>{44, 1, 10}));
  EXPECT_EQ(map2<uint8_t>(DType::UInt8, DType::UInt8, x, {1, 2, 7}, Op::SHL),
            (std::vector<uint8_t>{144, 252, 128}));
}

TEST(LlvmJit, max_is_a_greater_than_select_like_c) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto f = map2<float>(DType::Float32, DType::Float32, {1, -2, nan, 1}, {0.5f, 3, 1, nan}, Op::MAX);
  EXPECT_EQ(f[0], 1);
  EXPECT_EQ(f[1], 3);
  EXPECT_EQ(f[2], 1);            // (NaN > 1) is false: the second operand
  EXPECT_TRUE(std::isnan(f[3])); // (1 > NaN) is false: the second operand
  EXPECT_EQ(map2<int32_t>(DType::Int32, DType::Int32, {-5, 4}, {-6, 9}, Op::MAX),
            (std::vector<int32_t>{-5, 9}));
  EXPECT_EQ(map2<uint32_t>(DType::UInt32, DType::UInt32, {0xffffffffu, 1}, {1, 2}, Op::MAX),
            (std::vector<uint32_t>{0xffffffffu, 2}));
}

TEST(LlvmJit, compares_are_false_on_nan_except_not_equal) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a{1, nan, 2}, b{2, 1, nan};
  KernelBuilder k;
  const UOp* lt = k.global(0, DType::Bool, true);
  const UOp* ne = k.global(1, DType::Bool, true);
  const UOp* x = k.global(2, DType::Float32);
  const UOp* y = k.global(3, DType::Float32);
  const UOp* i = k.range(k.i32(0), k.i32(3));
  const UOp* xv = k.load(x, i);
  const UOp* yv = k.load(y, i);
  k.store(lt, i, k.alu(Op::CMPLT, {xv, yv}));
  k.store(ne, i, k.alu(Op::CMPNE, {xv, yv}));
  k.end_range(i);
  std::vector<uint8_t> lt_out(3, 9), ne_out(3, 9);
  run(k, {lt_out.data(), ne_out.data(), a.data(), b.data()});
  EXPECT_EQ(lt_out, (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(ne_out, (std::vector<uint8_t>{1, 1, 1}));
}

TEST(LlvmJit, casts_follow_c_conversions) {
  auto cast_to = [](DType to) { return [to](KernelBuilder& k, const UOp* x) { return k.cast(x, to); }; };
  std::vector<float> f{-2.7f, 2.7f, 0.0f, -0.0f, 0.5f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ((map1<int32_t, float>(DType::Float32, DType::Int32, {-2.7f, 2.7f, 0.0f, 100.9f},
                                  cast_to(DType::Int32))),
            (std::vector<int32_t>{-2, 2, 0, 100}));
  EXPECT_EQ((map1<uint8_t, float>(DType::Float32, DType::Bool, f, cast_to(DType::Bool))),
            (std::vector<uint8_t>{1, 1, 0, 0, 1, 1}));
  EXPECT_EQ((map1<uint8_t, float>(DType::Float32, DType::UInt8, {200.7f, 3.2f}, cast_to(DType::UInt8))),
            (std::vector<uint8_t>{200, 3}));
  EXPECT_EQ((map1<uint8_t, int32_t>(DType::Int32, DType::Bool, {2, 0, -1}, cast_to(DType::Bool))),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ((map1<int32_t, uint8_t>(DType::Bool, DType::Int32, {1, 0}, cast_to(DType::Int32))),
            (std::vector<int32_t>{1, 0}));
  EXPECT_EQ((map1<float, int32_t>(DType::Int32, DType::Float32, {-3, 16777217}, cast_to(DType::Float32))),
            (std::vector<float>{-3.0f, 16777216.0f}));
  EXPECT_EQ((map1<int8_t, int32_t>(DType::Int32, DType::Int8, {300, -129}, cast_to(DType::Int8))),
            (std::vector<int8_t>{44, 127}));
  EXPECT_EQ((map1<int32_t, int8_t>(DType::Int8, DType::Int32, {-5}, cast_to(DType::Int32))),
            (std::vector<int32_t>{-5}));
  EXPECT_EQ((map1<int32_t, uint8_t>(DType::UInt8, DType::Int32, {250}, cast_to(DType::Int32))),
            (std::vector<int32_t>{250}));
  EXPECT_EQ((map1<double, float>(DType::Float32, DType::Float64, {0.1f}, cast_to(DType::Float64))),
            (std::vector<double>{double(0.1f)}));
}

TEST(LlvmJit, bitcast_keeps_the_bits) {
  auto out = map1<int32_t, float>(DType::Float32, DType::Int32, {1.0f, -0.0f},
                                  [](KernelBuilder& k, const UOp* x) { return k.bitcast(x, DType::Int32); });
  EXPECT_EQ(out, (std::vector<int32_t>{0x3f800000, int32_t(0x80000000u)}));
}

TEST(LlvmJit, bf16_casts_round_to_nearest_even) {
  float nan = std::bit_cast<float>(0x7f800001u); // a signalling NaN: quieted, as tg_float_to_bf16
  std::vector<float> in{1.0f, 1.00390625f, 1.01171875f, 1.0f + 1e-6f, -3.14159f, 3.0e38f, nan};
  auto out = map1<uint16_t, float>(DType::Float32, DType::BFloat16, in,
                                   [](KernelBuilder& k, const UOp* x) { return k.cast(x, DType::BFloat16); });
  for (size_t i = 0; i < in.size(); i++) EXPECT_EQ(out[i], float_to_bf16(in[i])) << "at " << i;
  EXPECT_EQ(out[1], 0x3f80); // a tie rounds to even
  EXPECT_EQ(out[2], 0x3f82);
}

TEST(LlvmJit, bf16_alu_results_are_rounded_each_op) {
  // (a*b)+c with a rounding after the multiply and after the add, like render_c's tg_bf16_round
  std::vector<uint16_t> a{float_to_bf16(1.0078125f), float_to_bf16(3.0f)};
  std::vector<uint16_t> b{float_to_bf16(1.0078125f), float_to_bf16(-7.5f)};
  KernelBuilder k;
  const UOp* out = k.global(0, DType::BFloat16, true);
  const UOp* x = k.global(1, DType::BFloat16);
  const UOp* y = k.global(2, DType::BFloat16);
  k.map(out, {x, y}, 2, [&](auto& v) {
    return k.alu(Op::ADD, {k.alu(Op::MUL, {v[0], v[1]}), k.c(DType::BFloat16, 0.001)});
  });
  std::vector<uint16_t> result(2);
  run(k, {result.data(), a.data(), b.data()});
  for (size_t i = 0; i < 2; i++) {
    float product = bf16_to_float(float_to_bf16(bf16_to_float(a[i]) * bf16_to_float(b[i])));
    float sum = product + bf16_to_float(float_to_bf16(0.001f));
    EXPECT_EQ(result[i], float_to_bf16(sum)) << "at " << i;
  }
}

TEST(LlvmJit, half_is_stored_as_ieee_half) {
  std::vector<uint16_t> a{float_to_half(1.5f), float_to_half(-2.25f)},
      b{float_to_half(0.25f), float_to_half(1000.0f)};
  auto out = map2<uint16_t>(DType::Float16, DType::Float16, a, b, Op::ADD);
  EXPECT_EQ(out, (std::vector<uint16_t>{float_to_half(1.75f), float_to_half(997.75f)}));
  auto halves =
      map1<uint16_t, float>(DType::Float32, DType::Float16, {0.1f, 65504.0f, 1e-8f},
                            [](KernelBuilder& k, const UOp* x) { return k.cast(x, DType::Float16); });
  EXPECT_EQ(halves,
            (std::vector<uint16_t>{float_to_half(0.1f), float_to_half(65504.0f), float_to_half(1e-8f)}));
}

// render_c inlines a single-use __fp16 expression (computed in float, rounded once when
// stored) and gives a value with two users a variable (rounded to half there).
TEST(LlvmJit, half_intermediates_round_where_c_names_them) {
  float a = 1.0009765625f, c = 0.00048828125f; // a*a = 1 + 2^-9 + 2^-20, exact in float
  auto kernel = [&](bool product_has_two_users) {
    KernelBuilder k;
    const UOp* out = k.global(0, DType::Float16, true);
    const UOp* x = k.global(1, DType::Float16);
    const UOp* xv = k.load(x, k.i32(0));
    const UOp* product = k.alu(Op::MUL, {xv, xv});
    k.store(out, k.i32(0), k.alu(Op::ADD, {product, k.c(DType::Float16, c)}));
    if (product_has_two_users) k.store(out, k.i32(1), product);
    std::vector<uint16_t> in{float_to_half(a)}, result(2);
    run(k, {result.data(), in.data()});
    return result[0];
  };
  EXPECT_EQ(kernel(false), float_to_half(a * a + c));
  EXPECT_EQ(kernel(true), float_to_half(half_to_float(float_to_half(a * a)) + c));
  EXPECT_NE(kernel(false), kernel(true));
}

TEST(LlvmJit, transcendentals_match_libm) {
  std::vector<float> in{0.5f, 2.0f, 10.0f};
  auto unary = [&](Op op) {
    return map1<float, float>(DType::Float32, DType::Float32, in,
                              [op](KernelBuilder& k, const UOp* x) { return k.alu(op, {x}); });
  };
  auto sq = unary(Op::SQRT), e = unary(Op::EXP2), l = unary(Op::LOG2), s = unary(Op::SIN);
  for (size_t i = 0; i < in.size(); i++) {
    EXPECT_EQ(bits(sq[i]), bits(std::sqrt(in[i])));
    EXPECT_EQ(bits(e[i]), bits(exp2f(in[i])));
    EXPECT_EQ(bits(l[i]), bits(log2f(in[i])));
    EXPECT_EQ(bits(s[i]), bits(sinf(in[i])));
  }
}

TEST(LlvmJit, one_object_holds_every_kernel_of_a_program) {
  KernelBuilder add, mul;
  for (auto [builder, alu_op] : {std::pair{&add, Op::ADD}, std::pair{&mul, Op::MUL}}) {
    KernelBuilder* k = builder; // clang 14 cannot capture a structured binding
    Op op = alu_op;
    const UOp* out = k->global(0, DType::Int32, true);
    const UOp* in = k->global(1, DType::Int32);
    k->map(out, {in}, 2, [&](auto& v) { return k->alu(op, {v[0], k->i32(3)}); });
  }
  Loaded loaded({{"add3", add.ir("add3")}, {"mul3", mul.ir("mul3")}});
  std::vector<int32_t> in{1, 2}, sum(2), product(2);
  std::vector<void*> bufs{sum.data(), in.data()};
  loaded.launcher("add3")(bufs.data(), nullptr);
  bufs[0] = product.data();
  loaded.launcher("mul3")(bufs.data(), nullptr);
  EXPECT_EQ(sum, (std::vector<int32_t>{4, 5}));
  EXPECT_EQ(product, (std::vector<int32_t>{3, 6}));
}

TEST(LlvmJit, bad_ir_is_a_runtime_error_with_the_diagnostic) {
  try {
    compile_llvm_object({{"k", "define void @k() { ret i32 0 }"}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
    EXPECT_EQ(std::string(e.what()).rfind("LLVM failed: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(compile_llvm_object({{"k", "not IR at all"}}), Error);
  EXPECT_THROW(compile_llvm_object({{"k", "define void @other() { ret void }"}}), Error); // no @k
}

TEST(LlvmJit, a_failed_link_leaves_no_file) {
  auto out =
      std::filesystem::temp_directory_path() / ("tg-test-llvm-bad-" + std::to_string(getpid()) + ".so");
  EXPECT_THROW(
      build_llvm_shared_object(std::vector<std::pair<std::string, std::string>>{{"k", "not IR"}}, out),
      Error);
  EXPECT_FALSE(std::filesystem::exists(out));
  auto object = out;
  object += ".o";
  EXPECT_FALSE(std::filesystem::exists(object));
}

TEST(LlvmJit, target_identity_names_the_host_and_llvm_version) {
  std::string id = llvm_target_identity();
  EXPECT_NE(id.find("llvm 15."), std::string::npos) << id;
  EXPECT_NE(id.find("cpu="), std::string::npos) << id;
  EXPECT_EQ(id, llvm_target_identity());
}

} // namespace tg
