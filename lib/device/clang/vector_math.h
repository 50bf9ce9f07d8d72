// device layer, CLANG: transcendentals on whole vectors (vector_math.cpp).
#pragma once
#include <string>

namespace tg {

// C for tg_vexp2_floatxN(floatxN), exp2 of every lane: glibc's exp2f computed in vectors, the
// same double-precision steps and table, so each lane is bit for bit what exp2f gives (checked
// on all 2^32 floats). Lanes with |x| >= 128 or NaN take exp2f itself. Guarded by #ifndef, so
// a source may hold it once per width.
std::string vector_exp2_helper(int lanes);

} // namespace tg
