// render layer, C: tinygrad 0.9.1's ClangRenderer (renderer/cstyle.py). Walks linearized
// UOps top to bottom and prints one C function:
//   void r_4_8(float* restrict data0, const float* restrict data1) { ... }
// Single-use ALU results are inlined into their user; everything else gets an SSA name
// (alu0, val0, acc0, cast0). Types: bool is _Bool, half is __fp16 (storage; arithmetic in
// float, as tinygrad), bfloat16 is stored as unsigned short and computed as float rounded
// to bfloat16 after every op through small helpers the source carries.
#pragma once
#include <string>
#include <vector>

#include "codegen/uops.h"

namespace tg {

// Complete translation unit: includes, any helpers the kernel needs, then the function.
std::string render_c(const std::string& function_name, const std::vector<const UOp*>& uops);

// A constant as C source, exact for inf/nan and every dtype ("1.5f", "(-1)", "INFINITY").
std::string render_c_const(const Scalar& value, DType dtype);

// The C type a kernel uses for values (value=true) or buffer elements (value=false).
std::string c_type(DType dtype, bool value = true);

} // namespace tg
