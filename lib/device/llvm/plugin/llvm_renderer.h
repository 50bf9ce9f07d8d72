// LLVM device, renderer: tinygrad 0.9.1's renderer/llvmir.py. Turns a linearized UOp list into
// one LLVM IR function `void @<name>(<elem>* noalias %data0, ..., i32 %<var>, ...)`, parameters
// in the order of the DEFINE_GLOBAL / DEFINE_VAR UOps, and returns the module as text.
//
// The values it computes are the C renderer's (render/render_c.cpp): C's integer promotions
// and truncating division, MAX as (a>b)?a:b, compares that are false on NaN, bool as 0/1
// bytes in memory, bfloat16 stored as uint16 and every bfloat16 result rounded to nearest
// even. Float ops may contract (a multiply fused into its add, as clang -O2 does); tinygrad's
// other fast-math flags (nsz arcp afn reassoc) are left out, so every kernel evaluates an
// expression the same way (see the renderer).
// The LLVM headers stay inside the .cpp.
#pragma once
#include <string>
#include <vector>

#include "codegen/uops.h"

namespace tg {

// Throws tg::Error("RuntimeError", "render_llvm: ...") for a UOp it cannot lower.
// unroll_window: RendererOpts::unroll_window (codegen/uops.h window_loops).
std::string render_llvm_ir(const std::string& function_name, const std::vector<const UOp*>& uops,
                           int unroll_window = 0);

} // namespace tg
