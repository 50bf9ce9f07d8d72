#include "device/cuda/cuda_renderer.h"

#include <algorithm>
#include <cctype>

#include "device/cuda/cuda_api.h"
#include "util/error.h"

namespace tg {

// tinygrad's CUDA tensor core: mma.sync m16n8k16, half inputs, float accumulators (sm_80 and
// later). (Its bfloat16 one needs nv_bfloat16 vectors; tg's CUDA bfloat16 is unsigned short.)
TensorCore cuda_tensor_core() {
  return {{8, 16, 16},
          DType::Float16,
          DType::Float32,
          {{0, 2}, {0, 2}, {1, 2}, {1, 2}, {0, 2}},
          {{{0}, {0}, {5}, {-2}, {0}, {-1, 1, 2, -3}, {3, 4}},
           {{3}, {4}, {0}, {0}, {5}, {-1, 1, 2, -2}, {0}},
           {{-1}, {1}, {5}, {-2}, {2}, {0}, {3, 4}}},
          {{2, 2, 2}, {2, 2}, {2, 2}}};
}

namespace {

// "sm_80" -> 80 ("sm_90a" -> 90)
int arch_number(const std::string& arch) {
  int n = 0;
  for (size_t i = 3; i < arch.size() && std::isdigit((unsigned char)arch[i]); i++)
    n = n * 10 + (arch[i] - '0');
  return n;
}

RendererOpts cuda_opts(const std::string& arch) {
  RendererOpts o;
  o.device = "CUDA";
  o.has_local = true;
  o.has_shared = true;
  o.global_max = {2147483647, 65535, 65535};
  o.local_max = {1024, 1024, 64};
  o.shared_max = 49152;
  o.supports_float4 = true;
  o.half_vectors = true;
  if (arch_number(arch) >= 80) o.tensor_cores = {cuda_tensor_core()};
  return o;
}

CStyleRenderer::Language cuda_language() {
  CStyleRenderer::Language l;
  l.kernel_prefix = "extern \"C\" __global__ ";
  l.smem_prefix = "__shared__ ";
  l.barrier = "__syncthreads();";
  l.group_id = "blockIdx.%c";
  l.local_id = "threadIdx.%c";
  l.global_id = "(blockIdx.%c*blockDim.%c+threadIdx.%c)";
  l.float4 = "make_float4";
  l.smem_prefix_for_cast = false;
  return l;
}

} // namespace

// (the architecture of this machine's GPU, TG_CUDA_ARCH, or sm_80: as tinygrad's, the kernels
// are the target's)
CUDARenderer::CUDARenderer() : CStyleRenderer(cuda_opts(cuda_default_arch()), cuda_language()) {}

std::string CUDARenderer::render_dtype(DType dtype, bool value) const {
  if (dtype == DType::Float16) return "half";
  return CStyleRenderer::render_dtype(dtype, value);
}

std::string CUDARenderer::code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const {
  if (dtype == DType::Float16) {
    switch (op) {
    case Op::RECIP:
      return "hrcp(" + a[0] + ")";
    case Op::MAX:
      return "__hmax(" + a[0] + "," + a[1] + ")";
    case Op::SQRT:
      return "hsqrt(" + a[0] + ")";
    case Op::SIN:
      return "hsin(" + a[0] + ")";
    case Op::LOG2:
      return "hlog2(" + a[0] + ")";
    case Op::EXP2:
      return "hexp2(" + a[0] + ")";
    default:
      break;
    }
  }
  // tinygrad's CUDA writes a float reciprocal unparenthesised: `(val0*1/x)` is (val0*1)/x there
  if (op == Op::RECIP && dtype != DType::BFloat16) return "1/" + a[0];
  return CStyleRenderer::code_for_op(op, a, dtype);
}

std::string CUDARenderer::render_bitcast(const std::string& x, DType from, DType to) const {
  if (from == DType::BFloat16 || to == DType::BFloat16)
    fail("RuntimeError", "render: bitcast of bfloat16 is not supported on CUDA");
  return "(*((" + render_dtype(to) + "*)&" + x + "))";
}

std::string CUDARenderer::render_const(const Scalar& value, DType dtype) const {
  // -2147483648 is a long in C++: max(int, long) would be ambiguous
  if (dtype == DType::Int32 && as_const(value, dtype).i == INT32_MIN) return "(-2147483647-1)";
  return CStyleRenderer::render_const(value, dtype);
}

std::string CUDARenderer::render_prefix(const std::vector<const UOp*>& uops) const {
  std::string out =
      "#define INFINITY (__int_as_float(0x7f800000))\n#define NAN (__int_as_float(0x7fffffff))\n";
  bool half = false, bf16 = false;
  for (const UOp* u : uops) {
    half |= u->dtype == DType::Float16;
    bf16 |= u->dtype == DType::BFloat16;
  }
  // (tinygrad's _make_cuda_dtype: the vector types of half that float4 grouping makes)
  if (half)
    out +=
        "#include <cuda_fp16.h>\n"
        // (guarded: a program's kernels compile as one unit)
        "#ifndef TG_HALF_VECTORS\n#define TG_HALF_VECTORS\n"
        "struct half4 { half x, y, z, w; }; __device__ half4 make_half4(half x, half y, half z, half w) { "
        "half4 r={x, y, z, w}; return r; }\n"
        "struct half8 { half x, y, z, w, a, b, c, d; }; __device__ half8 make_half8(half x, half y, half z, "
        "half w, half a, half b, half c, half d) { half8 r={x, y, z, w, a, b, c, d}; return r; }\n#endif\n";
  // one device function per tensor core used (guarded, as the half vectors)
  std::vector<std::string> wmmas;
  for (const UOp* u : uops)
    if (u->op == UOps::WMMA &&
        std::find(wmmas.begin(), wmmas.end(), std::get<WmmaArg>(u->arg).name) == wmmas.end()) {
      const WmmaArg& w = std::get<WmmaArg>(u->arg);
      wmmas.push_back(w.name);
      const std::string ti(c_name(w.dtype_in)), to(c_name(w.dtype_out));
      const std::string ci = w.dtype_in == DType::Float16 ? "f16" : "f32",
                        co = w.dtype_out == DType::Float16 ? "f16" : "f32";
      out += "#ifndef TG_" + w.name + "\n#define TG_" + w.name + "\n__device__ " + to + "4 __" + w.name +
             "(" + ti + "8 a, " + ti + "4 b, " + to +
             "4 c) { int *a_pk = (int *) (&a), *b_pk = (int *) (&b);\n"
             "asm( \"mma.sync.aligned.m16n8k16.row.col." +
             co + "." + ci + "." + ci + "." + co +
             " { %0, %1, %2, %3 }, { %4, %5, %6, %7 }, { %8, %9 }, { %0, %1, %2, %3 };\"\n"
             "  : \"+f\"(c.x), \"+f\"(c.y), \"+f\"(c.z), \"+f\"(c.w) : \"r\"(a_pk[0]), \"r\"(a_pk[1]), "
             "\"r\"(a_pk[2]),  \"r\"(a_pk[3]), \"r\"(b_pk[0]), \"r\"(b_pk[1]) );\nreturn c;}\n#endif\n";
    }
  if (bf16)
    out += bf16_helpers({"__device__ static inline ", "unsigned short", "unsigned int", "__uint_as_float(%s)",
                         "__float_as_uint(%s)"});
  return out;
}

} // namespace tg
