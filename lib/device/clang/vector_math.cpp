// device layer, CLANG: exp2 on whole vectors. A sigmoid or softmax kernel with lanes spent most
// of its time in 16 calls of exp2f per vector (an LSTM's gate kernel: 5 exp2 per element).
// glibc's exp2f (sysdeps/ieee754/flt-32/e_exp2f.c) is straight-line double arithmetic over a
// 32-entry table: x = k/32 + r, 2^(k/32) from the table, 2^r from a cubic. Done on vectors it
// gives every lane exp2f's exact bits: kernels with and without lanes, and tinygrad's CLANG
// kernels (which call exp2f), keep computing the same numbers. The cubic is written as glibc's
// source writes it, so that where the CPU has FMA and glibc runs its FMA build, clang contracts
// the same products as gcc did.
#include "device/clang/vector_math.h"

namespace tg {

namespace {

// 2^(i/32) rounded to double, as bits, less i << 47 (glibc's __exp2f_data.tab)
constexpr const char* kTable =
    "static const unsigned long long tg_exp2f_tab[32] = {\n"
    "    0x3ff0000000000000ull,0x3fefd9b0d3158574ull,0x3fefb5586cf9890full,0x3fef9301d0125b51ull,\n"
    "0x3fef72b83c7d517bull,0x3fef54873168b9aaull,0x3fef387a6e756238ull,0x3fef1e9df51fdee1ull,\n"
    "0x3fef06fe0a31b715ull,0x3feef1a7373aa9cbull,0x3feedea64c123422ull,0x3feece086061892dull,\n"
    "0x3feebfdad5362a27ull,0x3feeb42b569d4f82ull,0x3feeab07dd485429ull,0x3feea47eb03a5585ull,\n"
    "0x3feea09e667f3bcdull,0x3fee9f75e8ec5f74ull,0x3feea11473eb0187ull,0x3feea589994cce13ull,\n"
    "0x3feeace5422aa0dbull,0x3feeb737b0cdc5e5ull,0x3feec49182a3f090ull,0x3feed503b23e255dull,\n"
    "0x3feee89f995ad3adull,0x3feeff76f2fb5e47ull,0x3fef199bdd85529cull,0x3fef3720dcef9069ull,\n"
    "0x3fef5818dcfba487ull,0x3fef7c97337b9b5full,0x3fefa4afa2a490daull,0x3fefd0765b6e4540ull};\n";

} // namespace

std::string vector_exp2_helper(int lanes) {
  std::string n = std::to_string(lanes);
  std::string f = "floatx" + n, mask = "intx" + n, u = "tg_uintx" + n, d = "tg_doublex" + n,
              q = "tg_ulongx" + n;
  std::string out = "#ifndef TG_EXP2F_TAB\n#define TG_EXP2F_TAB\n" + std::string(kTable) + "#endif\n";
  out += "#ifndef TG_VEXP2_" + f + "\n#define TG_VEXP2_" + f + "\n";
  out += "typedef unsigned int " + u + " __attribute__((vector_size(" + n + " * 4)));\n";
  out += "typedef double " + d + " __attribute__((vector_size(" + n + " * 8)));\n";
  out += "typedef unsigned long long " + q + " __attribute__((vector_size(" + n + " * 8)));\n";
  out += "static inline " + f + " tg_vexp2_" + f + "(" + f + " x) {\n";
  out += "  " + u + " top = ((" + u + ")x >> 20) & 0x7ffu;\n";
  // written out lane by lane: kernels compile with -fno-unroll-loops, and a loop here would
  // run as one (4x slower than exp2f itself)
  std::string any, gather;
  for (int i = 0; i < lanes; ++i) {
    std::string l = std::to_string(i);
    any += (i ? " | " : "") + std::string("big[") + l + "]";
    gather += (i ? ", " : "") + std::string("tg_exp2f_tab[ki[") + l + "] & 31]";
  }
  out += "  " + mask + " big = top >= 0x430u; /* |x| >= 128, inf, nan */\n";
  out += "  if (" + any + ") {\n";
  out += "    " + f + " v;\n";
  out += "    for (int i = 0; i < " + n + "; i++) v[i] = exp2f(x[i]);\n";
  out += "    return v;\n";
  out += "  }\n";
  out += "  " + d + " xd = __builtin_convertvector(x, " + d + ");\n";
  out += "  " + d + " kd = xd + 0x1.8p+47;\n";
  out += "  " + q + " ki = (" + q + ")kd;\n";
  out += "  kd -= 0x1.8p+47;\n";
  out += "  " + d + " r = xd - kd;\n";
  out += "  " + q + " t = (" + q + "){" + gather + "};\n";
  out += "  t += ki << 47;\n";
  out += "  " + d + " s = (" + d + ")t;\n";
  out += "  " + d + " z = 0x1.c6af84b912394p-5 * r + 0x1.ebfce50fac4f3p-3;\n";
  out += "  " + d + " r2 = r * r;\n";
  out += "  " + d + " y = 0x1.62e42ff0c52d6p-1 * r + 1;\n";
  out += "  y = z * r2 + y;\n";
  out += "  y = y * s;\n";
  out += "  return __builtin_convertvector(y, " + f + ");\n";
  out += "}\n#endif\n";
  return out;
}

} // namespace tg
