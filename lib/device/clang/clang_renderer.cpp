#include "device/clang/clang_renderer.h"

#include <algorithm>
#include <set>

#include "device/clang/vector_math.h"
#include "runtime/host_cpu.h"
#include "util/error.h"

namespace tg {

namespace {

RendererOpts clang_opts() {
  RendererOpts o;
  o.device = "CLANG";
  o.splits_outer_loop = true;
  o.vector_lanes = host_vector_floats();
  o.vector_lane_ranges = true;
  o.vector_math = true;
  o.vector_masks = true;
  o.unroll_window = 7; // 3x3, 5x5 and 7x7 windows: #pragma GCC unroll
  o.pack_panel_bytes = host_pack_bytes();
  return o;
}

CStyleRenderer::Language clang_language() {
  CStyleRenderer::Language l;
  l.buffer_suffix = " restrict";
  l.smem_align = "__attribute__((aligned(64))) "; // packed panels (pack_panels.h): whole cache lines
  return l;
}

} // namespace

ClangRenderer::ClangRenderer() : CStyleRenderer(clang_opts(), clang_language()) {}

std::string ClangRenderer::render_dtype(DType dtype, bool value) const {
  if (dtype == DType::Bool) return "_Bool";
  if (dtype == DType::Float16) return "__fp16";
  return CStyleRenderer::render_dtype(dtype, value);
}

std::string ClangRenderer::code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const {
  if (op == Op::MAX) return "((" + a[0] + ">" + a[1] + ")?" + a[0] + ":" + a[1] + ")";
  return CStyleRenderer::code_for_op(op, a, dtype);
}

std::string ClangRenderer::render_bitcast(const std::string& x, DType from, DType to) const {
  std::string bits = from == DType::BFloat16 ? "tg_float_to_bf16(" + x + ")" : x;
  if (to == DType::BFloat16) return "tg_bf16_to_float(__builtin_bit_cast(unsigned short, " + bits + "))";
  return "__builtin_bit_cast(" + render_dtype(to) + ", " + bits + ")";
}

namespace {

// "from,from+step,..." (n numbers): vector initializers and shuffle indices of the helpers.
std::string index_list(int from, int n, int step = 1) {
  std::string out;
  for (int i = 0; i < n; i++) out += (i ? "," : "") + std::to_string(from + i * step);
  return out;
}

// With AVX, tg_vload2_range's 2*lanes elements as masked loads of 8 (4 for 4 lanes) that read
// elements 2*lo .. 2*hi-2 only, then the even ones: no branches, as avx_masked_load.
std::string avx_masked_load2(const std::string& elem, int lanes) {
  if (elem != "float" || (lanes != 4 && lanes != 8 && lanes != 16)) return "";
  const int w = lanes == 4 ? 4 : 8, chunks = 2 * lanes / w;
  const std::string v = "v" + std::to_string(w), m = "m" + std::to_string(w);
  std::string out = "#if defined(__AVX__)\n  typedef float " + v + " __attribute__((vector_size(" +
                    std::to_string(4 * w) + ")));\n  typedef int " + m + " __attribute__((vector_size(" +
                    std::to_string(4 * w) + ")));\n  " + m + " z = {0};\n";
  const std::string load = w == 4 ? "__builtin_ia32_maskloadps" : "__builtin_ia32_maskloadps256";
  for (int c = 0; c < chunks; c++) {
    const std::string j = "j" + std::to_string(c), x = "x" + std::to_string(c);
    out += "  " + m + " " + j + " = {" + index_list(c * w, w) + "};\n  " + v + " " + x + " = " + load +
           "((const " + v + "*)(p + " + std::to_string(c * w) + "), (" + j + " >= z + 2 * lo) & (" + j +
           " < z + 2 * hi - 1));\n";
  }
  if (chunks == 2)
    return out + "  return __builtin_shufflevector(x0, x1, " + index_list(0, lanes, 2) + ");\n#endif\n";
  // 16 lanes: the even elements of each pair of chunks, then both halves
  return out + "  " + v + " e0 = __builtin_shufflevector(x0, x1, " + index_list(0, 8, 2) +
         "), e1 = __builtin_shufflevector(x2, x3, " + index_list(0, 8, 2) +
         ");\n  return __builtin_shufflevector(e0, e1, " + index_list(0, 16) + ");\n#endif\n";
}

// tg_vload2_range: lanes lo..hi-1 of p[2*l], the others 0. When the 2*lanes elements lie inside
// the buffer, two vector loads and one shuffle of their even elements (a stride-2 conv reads its
// image so), else lane by lane.
std::string stride2_load(const std::string& elem, const std::string& vec, const std::string& mask,
                         int lanes) {
  const std::string n = std::to_string(lanes), iota = index_list(0, lanes),
                    evens = "," + index_list(0, lanes, 2);
  return "static inline " + vec + " tg_vload2_range_" + vec + "(const " + elem +
         "* p, int lo, int hi, _Bool whole) {\n" + avx_masked_load2(elem, lanes) + "  if (whole) {\n    " +
         vec + " v = __builtin_shufflevector(tg_vload_" + vec + "(p), tg_vload_" + vec + "(p + " + n + ")" +
         evens + ");\n    if (lo <= 0 && hi >= " + n + ") return v;\n    " + mask + " l = {" + iota +
         "}, z = {0};\n    " + mask + " m = (l >= z + lo) & (l < z + hi);\n    return (" + vec + ")((" +
         mask + ")v & m);\n  }\n  " + vec + " v = tg_splat_" + vec +
         "(0);\n  for (int i = lo < 0 ? 0 : lo; i < (hi < " + n + " ? hi : " + n +
         "); i++) v[i] = p[2 * i];\n  return v;\n}\n";
}

// The vector typedef and helpers for one element type and width. Loads and stores go through
// memcpy (buffers are only element-aligned); MAX keeps C's (a>b)?a:b lane by lane, NaNs included;
// a range load reads lanes lo..hi-1: one vector load when that is all of them, or when all of
// them lie inside the buffer (`whole`) a vector load with the others masked to 0, else lane by lane.
// With AVX, lanes lo..hi-1 as one masked load (vmaskmovps: the other lanes read as 0, are not
// read and cannot fault), without branches: the generic body below (a vector load when every
// lane is valid, else the lanes one by one) costs a conv's inner loop more than its FMAs. A 3x3
// conv of UNet (64 channels, 64x64) ran 11.2 -> 7.4 ms with it, 4.7 ms with its window unrolled
// (RendererOpts::unroll_window), the speed of its unmasked loads. Float vectors of 4, 8 or 16 lanes
// (16: two 8-lane halves, so that it needs no AVX-512).
std::string avx_masked_load(const std::string& elem, const std::string& vec, const std::string& mask,
                            int lanes) {
  if (elem != "float" || (lanes != 4 && lanes != 8 && lanes != 16)) return "";
  const std::string iota = index_list(0, lanes);
  std::string out = "#if defined(__AVX__)\n  " + mask + " l = {" + iota + "}, z = {0};\n  " + mask +
                    " m = (l >= z + lo) & (l < z + hi);\n";
  if (lanes == 4) return out + "  return __builtin_ia32_maskloadps((const " + vec + "*)p, m);\n#endif\n";
  if (lanes == 8) return out + "  return __builtin_ia32_maskloadps256((const " + vec + "*)p, m);\n#endif\n";
  return out + "  typedef float v8 __attribute__((vector_size(32)));\n  typedef int m8 "
               "__attribute__((vector_size(32)));\n"
               "  m8 m0 = __builtin_shufflevector(m, m, 0,1,2,3,4,5,6,7), m1 = __builtin_shufflevector(m, m, "
               "8,9,10,11,12,13,14,15);\n"
               "  v8 a = __builtin_ia32_maskloadps256((const v8*)p, m0), b = "
               "__builtin_ia32_maskloadps256((const v8*)(p + "
               "8), m1);\n"
               "  return __builtin_shufflevector(a, b, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15);\n#endif\n";
}

std::string vector_helpers(const std::string& elem, const std::string& vec, const std::string& mask,
                           int lanes) {
  const std::string n = std::to_string(lanes), bytes = "sizeof(" + vec + ")";
  const std::string iota = index_list(0, lanes);
  // the lanes written out, not a loop: kernels compile with -fno-unroll-loops, and clang left the
  // loop in (a 32-way concatenation's padding zeros took 0.12 ms of splat loops for 4096 floats)
  std::string splat_list;
  for (int i = 0; i < lanes; ++i) splat_list += i ? ",x" : "x";
  // (gcc warns that passing a wide vector by value depends on -mavx512f: not for static inlines)
  return "#ifndef TG_VECTOR_" + vec + "\n#define TG_VECTOR_" + vec +
         "\n#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC diagnostic ignored "
         "\"-Wpsabi\"\n#endif\ntypedef " +
         elem + " " + vec + " __attribute__((vector_size(" + n + " * sizeof(" + elem + "))));\n" +
         "typedef int " + mask + " __attribute__((vector_size(" + n + " * sizeof(int))));\n" +
         "static inline " + vec + " tg_vload_" + vec + "(const " + elem + "* p) { " + vec +
         " v; __builtin_memcpy(&v, p, " + bytes + "); return v; }\n" + "static inline void tg_vstore_" + vec +
         "(" + elem + "* p, " + vec + " v) { __builtin_memcpy(p, &v, " + bytes + "); }\n" + "static inline " +
         vec + " tg_splat_" + vec + "(" + elem + " x) { " + vec + " v = {" + splat_list + "}; return v; }\n" +
         "static inline " + vec + " tg_vmax_" + vec + "(" + vec + " a, " + vec + " b) { " + mask +
         " m = a > b; return (" + vec + ")(((" + mask + ")a & m) | ((" + mask + ")b & ~m)); }\n" +
         "static inline " + vec + " tg_vsel_" + vec + "(" + mask + " m, " + vec + " a, " + vec +
         " b) { return (" + vec + ")(((" + mask + ")a & m) | ((" + mask + ")b & ~m)); }\n" +
         "static inline " + vec + " tg_vload_range_" + vec + "(const " + elem +
         "* p, int lo, int hi, _Bool whole) {\n" + avx_masked_load(elem, vec, mask, lanes) +
         "  if (lo <= 0 && hi >= " + n + ") return tg_vload_" + vec + "(p);\n  if (whole) {\n    " + mask +
         " l = {" + iota + "}, z = {0};\n    " + mask + " m = (l >= z + lo) & (l < z + hi);\n    return (" +
         vec + ")((" + mask + ")tg_vload_" + vec + "(p) & m);\n  }\n  " + vec + " v = tg_splat_" + vec +
         "(0);\n  for (int i = lo < 0 ? 0 : lo; i < (hi < " + n + " ? hi : " + n +
         "); i++) v[i] = p[i];\n  return v;\n}\n" + stride2_load(elem, vec, mask, lanes) + "#endif\n";
}

} // namespace

std::string ClangRenderer::render_vector_dtype(DType dtype, int lanes) const {
  if (dtype == DType::Bool) return "intx" + std::to_string(lanes); // a mask: -1 or 0 per lane
  if (dtype != DType::Float32) return CStyleRenderer::render_vector_dtype(dtype, lanes);
  return "floatx" + std::to_string(lanes);
}

std::string ClangRenderer::render_vector_load(const std::string& buf, DType buf_dtype, const std::string& idx,
                                              int lanes, bool) const {
  return "tg_vload_" + render_vector_dtype(buf_dtype, lanes) + "(" + buf + "+" + idx + ")";
}

std::string ClangRenderer::render_vector_store(const std::string& buf, DType buf_dtype,
                                               const std::string& idx, const std::string& value, int lanes,
                                               bool) const {
  return "tg_vstore_" + render_vector_dtype(buf_dtype, lanes) + "(" + buf + "+" + idx + ", " + value + ");";
}

std::string ClangRenderer::render_vector_load_range(const std::string& buf, DType buf_dtype,
                                                    const std::string& idx, const std::string& lo,
                                                    const std::string& hi, const std::string& whole,
                                                    int lanes, int stride) const {
  return (stride == 2 ? "tg_vload2_range_" : "tg_vload_range_") + render_vector_dtype(buf_dtype, lanes) +
         "(" + buf + "+" + idx + ", " + lo + ", " + hi + ", " + whole + ")";
}

std::string ClangRenderer::render_splat(DType dtype, int lanes, const std::string& scalar) const {
  return "tg_splat_" + render_vector_dtype(dtype, lanes) + "(" + scalar + ")";
}

std::string ClangRenderer::code_for_vector_op(Op op, const std::vector<std::string>& a, DType dtype,
                                              int lanes) const {
  if (op == Op::MAX) return "tg_vmax_" + render_vector_dtype(dtype, lanes) + "(" + a[0] + ", " + a[1] + ")";
  if (op == Op::EXP2) return "tg_vexp2_" + render_vector_dtype(dtype, lanes) + "(" + a[0] + ")";
  if (op == Op::LOG2) return "tg_vlog2_" + render_vector_dtype(dtype, lanes) + "(" + a[0] + ")";
  if (op == Op::RECIP) return "(1.0f/" + a[0] + ")"; // an IEEE division per lane: scalar 1/x's bits
  // masks (RendererOpts::vector_masks): a compare of vectors gives -1 or 0 per lane
  if (op == Op::WHERE)
    return "tg_vsel_" + render_vector_dtype(dtype, lanes) + "(" + a[0] + ", " + a[1] + ", " + a[2] + ")";
  if (dtype == DType::Bool && op == Op::NEG) return "(~" + a[0] + ")";
  if (dtype == DType::Bool && op == Op::MUL) return "(" + a[0] + "&" + a[1] + ")";
  return CStyleRenderer::code_for_op(op, a, dtype);
}

// clang 14 lowers a double -> half cast to a call of libgcc's __truncdfhf2, whose _Float16
// return (xmm0 in GCC 12's ABI) it reads from another register: garbage. tg_d2h takes two steps
// that give the one correct rounding: double -> float rounded to odd (tg_float_odd: truncate,
// then set the sticky bit when inexact), then float -> half, which the CPU does inline.
//
// A float converted to an integer type it does not fit is undefined in C, and clang -O2 then
// folds e.g. (short)(unsigned char)f into one conversion to short: -4.5f -> uint8 came out -4
// in one kernel and 252 in another. Through long long, a float of magnitude below 2^63 wraps
// into the narrower type as numpy gives it on x86 (252), in every kernel.
std::string ClangRenderer::render_cast(const std::string& x, DType from, DType to) const {
  if (from == DType::Float64 && to == DType::Float16)
    return "(" + render_dtype(to) + ")tg_float_odd(" + x + ")";
  if (is_float(from) && float_cast_through_int64(to))
    return "(" + render_dtype(to) + ")(long long)(" + x + ")";
  return CStyleRenderer::render_cast(x, from, to);
}

std::string ClangRenderer::half_cast_prefix(const std::vector<const UOp*>& uops, const std::string& bits,
                                            const std::string& from_bits) const {
  bool used = false;
  for (const UOp* u : uops)
    used |= u->op == UOps::CAST && u->src.size() == 1 && u->dtype == DType::Float16 &&
            u->src[0]->dtype == DType::Float64;
  if (!used) return "";
  auto fill = [](std::string fmt, const std::string& arg) { return fmt.replace(fmt.find("%s"), 2, arg); };
  return "#ifndef TG_D2H\n#define TG_D2H\nstatic inline float tg_float_odd(double d) {\n  float f = "
         "(float)d;\n"
         "  if ((double)f != d && f == f) {\n    if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);\n"
         "    unsigned int u = " +
         fill(bits, "f") + " | 1u;\n    f = " + fill(from_bits, "u") +
         ";\n  }\n"
         "  return f;\n}\n#endif\n";
}

std::string ClangRenderer::vector_prefix(const std::vector<const UOp*>& uops) const {
  std::set<std::pair<DType, int>> vectors;
  for (const UOp* u : uops)
    if (u->vcount > 1 && u->dtype && u->dtype != DType::Bool) vectors.insert({*u->dtype, u->vcount});
  std::string out;
  for (auto [dt, lanes] : vectors)
    out += vector_helpers(render_dtype(dt), render_vector_dtype(dt, lanes), "intx" + std::to_string(lanes),
                          lanes);
  std::set<std::pair<Op, int>> math;
  for (const UOp* u : uops)
    if (u->op == UOps::ALU && u->vcount > 1 && (u->alu() == Op::EXP2 || u->alu() == Op::LOG2))
      math.insert({u->alu(), u->vcount});
  for (auto [op, lanes] : math) out += op == Op::EXP2 ? vector_exp2_helper(lanes) : vector_log2_helper(lanes);
  return out;
}

std::string ClangRenderer::render_prefix(const std::vector<const UOp*>& uops) const {
  std::string out =
      "#include <tgmath.h>\n" + vector_prefix(uops) +
      half_cast_prefix(uops, "__builtin_bit_cast(unsigned int, %s)", "__builtin_bit_cast(float, %s)");
  if (uses_dtype(uops, DType::BFloat16))
    return out + bf16_helpers({"static inline ", "unsigned short", "unsigned int",
                               "__builtin_bit_cast(float, %s)", "__builtin_bit_cast(unsigned int, %s)"});
  return out;
}

} // namespace tg
