// device layer, CLANG: exp2 and log2 on whole vectors. A sigmoid or softmax kernel with lanes
// spent most of its time in 16 calls of exp2f per vector (an LSTM's gate kernel: 5 exp2 per
// element). glibc's exp2f and log2f (sysdeps/ieee754/flt-32/e_exp2f.c, e_log2f.c) are
// straight-line double arithmetic over small tables: exp2 splits x = k/32 + r and takes 2^(k/32)
// from a table and 2^r from a cubic; log2 takes 1/c and log2(c) for one of 16 subintervals and
// log2(1+r) from a polynomial. Done on vectors they give every lane exp2f's and log2f's exact
// bits: kernels with and without lanes, and tinygrad's CLANG kernels (which call libm), keep
// computing the same numbers. The polynomials are written as glibc's source writes them, so
// that where the CPU has FMA and glibc runs its FMA build, clang contracts the same products as
// gcc did.
#include "device/clang/vector_math.h"

#include <cctype>
#include <cstdio>

#include "device/exp2f_table.h"

namespace tg {

namespace {

// tg_exp2f_tab, as C: kExp2fTable, four entries a line
std::string exp2_table() {
  std::string out = "static const unsigned long long tg_exp2f_tab[32] = {\n";
  char entry[32];
  for (int i = 0; i < 32; ++i) {
    std::snprintf(entry, sizeof entry, "0x%016llxull", static_cast<unsigned long long>(kExp2fTable[i]));
    out += std::string(i % 4 ? "," : i ? ",\n    " : "    ") + entry;
  }
  return out + "};\n";
}

// glibc's __log2f_data (e_log2f_data.c): for 16 subintervals of [0x1.66p-1, 0x1.66p+0), 1/c and
// log2(c) for c near the centre, and the polynomial for log2(1+r)
constexpr const char* kLog2Table =
    "static const double tg_log2f_invc[16] = {\n"
    "    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010b0p+0, 0x1.3c995b0b80385p+0,\n"
    "    0x1.30d190c8864a5p+0, 0x1.25e227b0b8ea0p+0, 0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,\n"
    "    0x1.0953f419900a7p+0, 0x1.0000000000000p+0, 0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aa0p-1,\n"
    "    0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1};\n"
    "static const double tg_log2f_logc[16] = {\n"
    "    -0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,\n"
    "    -0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7af0p-3, -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4,\n"
    "    -0x1.a6f9db6475fcep-5, 0x0.0p+0, 0x1.338ca9f24f53dp-4, 0x1.476a9543891bap-3,\n"
    "    0x1.e840b4ac4e4d2p-3, 0x1.40645f0c6651cp-2, 0x1.88e9c2c1b9ff8p-2, 0x1.ce0a44eb17bccp-2};\n";

// The vector types both helpers use, beside floatxN and intxN (the renderer's own).
std::string math_types(int lanes) {
  std::string n = std::to_string(lanes);
  return "#ifndef TG_VMATH_TYPES_" + n + "\n#define TG_VMATH_TYPES_" + n + "\n" +
         "typedef unsigned int tg_uintx" + n + " __attribute__((vector_size(" + n + " * 4)));\n" +
         "typedef double tg_doublex" + n + " __attribute__((vector_size(" + n + " * 8)));\n" +
         "typedef unsigned long long tg_ulongx" + n + " __attribute__((vector_size(" + n + " * 8)));\n" +
         "#endif\n";
}

// a[0] | a[1] | ... and {t[a[0] & m], t[a[1] & m], ...} written out lane by lane: kernels compile
// with -fno-unroll-loops, and a loop here would run as one (4x slower than exp2f itself)
std::string any_lane(const std::string& a, int lanes) {
  std::string out;
  for (int i = 0; i < lanes; ++i) out += (i ? " | " : "") + a + "[" + std::to_string(i) + "]";
  return out;
}
std::string gather(const std::string& table, const std::string& index, int lanes) {
  std::string out;
  for (int i = 0; i < lanes; ++i)
    out += (i ? ", " : "") + table + "[" + index + "[" + std::to_string(i) + "]]";
  return out;
}

// `type var = {table[index[0]], table[index[1]], ...}` for a table of 16 or 32 8-byte entries
// and a vector `index` of 64-bit lanes (`type` tg_ulongxN or tg_doublexN). With AVX-512 and 8
// or 16 lanes the table is held in registers and looked up with vpermi2q (16 entries a permute;
// 32 take two and a select on bit 4): exp2 of 16 floats 0.69 -> 0.53 ns a float on a Zen 4,
// where the lane-by-lane loads and inserts were a quarter of its time. Elsewhere (and for gcc,
// whose builtin differs, as C exported by tg-codegen --emit c may meet) the gather.
std::string lookup(const std::string& type, const std::string& var, const std::string& table,
                   const std::string& index, int lanes, int entries) {
  const bool permute = lanes == 8 || lanes == 16;
  std::string out = "  " + type + " " + var + ";\n";
  if (permute) {
    out += "#if defined(__AVX512F__) && defined(__clang__)\n  {\n";
    out += "    typedef long long tg_q8 __attribute__((vector_size(64)));\n";
    out += "    tg_q8 q[4];\n";
    out += "    __builtin_memcpy(q, " + table + ", " + std::to_string(entries * 8) + ");\n";
    auto half = [&](const std::string& h) {
      std::string lo = "__builtin_ia32_vpermi2varq512(q[0], " + h + ", q[1])";
      if (entries == 16) return lo;
      std::string hi = "__builtin_ia32_vpermi2varq512(q[2], " + h + ", q[3])";
      return "((" + lo + " & ~-((" + h + " >> 4) & 1)) | (" + hi + " & -((" + h + " >> 4) & 1)))";
    };
    if (lanes == 8) {
      out += "    " + var + " = (" + type + ")" + half("((tg_q8)" + index + ")") + ";\n";
    } else {
      out += "    tg_q8 h0 = (tg_q8)__builtin_shufflevector(" + index + ", " + index +
             ", 0, 1, 2, 3, 4, 5, 6, 7);\n";
      out += "    tg_q8 h1 = (tg_q8)__builtin_shufflevector(" + index + ", " + index +
             ", 8, 9, 10, 11, 12, 13, 14, 15);\n";
      out += "    " + var + " = (" + type + ")__builtin_shufflevector(" + half("h0") + ", " + half("h1") +
             ", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);\n";
    }
    out += "  }\n#else\n";
  }
  out += "  " + var + " = (" + type + "){" + gather(table, index, lanes) + "};\n";
  if (permute) out += "#endif\n";
  return out;
}

// The start of tg_v<name>_floatxN: its guard and signature, and the lanes `odd` (an intxN
// expression of the float bits ix) marks sent to libm's `libm` whole, as the scalar kernel would.
std::string opening(const std::string& name, const std::string& libm, const std::string& odd, int lanes) {
  std::string n = std::to_string(lanes), f = "floatx" + n, guard = "TG_V" + name + "_" + f;
  for (char& c : guard) c = char(std::toupper(static_cast<unsigned char>(c)));
  return "#ifndef " + guard + "\n#define " + guard + "\nstatic inline " + f + " tg_v" + name + "_" + f + "(" +
         f + " x) {\n  tg_uintx" + n + " ix = (tg_uintx" + n + ")x;\n  intx" + n + " odd = " + odd +
         ";\n  if (" + any_lane("odd", lanes) + ") {\n    " + f + " v;\n    for (int i = 0; i < " + n +
         "; i++) v[i] = " + libm + "(x[i]);\n    return v;\n  }\n";
}

} // namespace

std::string vector_log2_helper(int lanes) {
  std::string n = std::to_string(lanes);
  std::string f = "floatx" + n, mask = "intx" + n, u = "tg_uintx" + n, d = "tg_doublex" + n,
              q = "tg_ulongx" + n;
  std::string out = "#ifndef TG_LOG2F_TAB\n#define TG_LOG2F_TAB\n" + std::string(kLog2Table) + "#endif\n";
  out += math_types(lanes);
  // subnormal, 0, negative, inf, nan
  out += opening("log2", "log2f", "(ix - 0x00800000u) >= 0x7f000000u", lanes);
  out += "  " + u + " tmp = ix - 0x3f330000u;\n";
  out += "  " + u + " i = (tmp >> 19) & 15u;\n";
  out += "  " + u + " iz = ix - (tmp & 0xff800000u);\n";
  out += "  " + mask + " k = (" + mask + ")tmp >> 23;\n";
  out += "  " + q + " iq = __builtin_convertvector(i, " + q + ");\n";
  out += lookup(d, "invc", "tg_log2f_invc", "iq", lanes, 16);
  out += lookup(d, "logc", "tg_log2f_logc", "iq", lanes, 16);
  out += "  " + d + " z = __builtin_convertvector((" + f + ")iz, " + d + ");\n";
  out += "  " + d + " r = z * invc - 1;\n";
  out += "  " + d + " y0 = logc + __builtin_convertvector(k, " + d + ");\n";
  out += "  " + d + " r2 = r * r;\n";
  out += "  " + d + " y = 0x1.ecabf496832e0p-2 * r + -0x1.715479ffae3dep-1;\n";
  out += "  y = -0x1.712b6f70a7e4dp-2 * r2 + y;\n";
  out += "  " + d + " p = 0x1.715475f35c8b8p+0 * r + y0;\n";
  out += "  y = y * r2 + p;\n";
  out += "  return __builtin_convertvector(y, " + f + ");\n";
  out += "}\n#endif\n";
  return out;
}

std::string vector_exp2_helper(int lanes) {
  std::string n = std::to_string(lanes);
  std::string f = "floatx" + n, d = "tg_doublex" + n, q = "tg_ulongx" + n;
  std::string out = "#ifndef TG_EXP2F_TAB\n#define TG_EXP2F_TAB\n" + exp2_table() + "#endif\n";
  out += math_types(lanes);
  // exp2f's special cases (|x| >= 128, inf, nan) go to libm, except x <= -150 and -inf: exp2f
  // returns +0 for those, and they are common (a causal mask's -inf in a softmax sent every
  // vector of a GPT-2 block's attention to 8 calls of exp2f: 0.22 ms for 16K elements)
  out += "#ifndef TG_EXP2_UNDER\n#define TG_EXP2_UNDER(ix) (((ix) >= 0xc3160000u) & ((ix) <= "
         "0xff800000u))\n#endif\n";
  out += opening("exp2", "exp2f", "(((ix >> 20) & 0x7ffu) >= 0x430u) & ~TG_EXP2_UNDER(ix)", lanes);
  out += "  " + d + " xd = __builtin_convertvector(x, " + d + ");\n";
  out += "  " + d + " kd = xd + 0x1.8p+47;\n";
  out += "  " + q + " ki = (" + q + ")kd;\n";
  out += "  kd -= 0x1.8p+47;\n";
  out += "  " + d + " r = xd - kd;\n";
  out += "  " + q + " j = ki & 31;\n";
  out += lookup(q, "t", "tg_exp2f_tab", "j", lanes, 32);
  out += "  t += ki << 47;\n";
  out += "  " + d + " s = (" + d + ")t;\n";
  out += "  " + d + " z = 0x1.c6af84b912394p-5 * r + 0x1.ebfce50fac4f3p-3;\n";
  out += "  " + d + " r2 = r * r;\n";
  out += "  " + d + " y = 0x1.62e42ff0c52d6p-1 * r + 1;\n";
  out += "  y = z * r2 + y;\n";
  out += "  y = y * s;\n";
  out += "  return (" + f + ")((intx" + n + ")__builtin_convertvector(y, " + f + ") & ~TG_EXP2_UNDER(ix));\n";
  out += "}\n#endif\n";
  return out;
}

} // namespace tg
