// device layer, CLANG: exp2 and log2 on whole vectors (vector_math.cpp).
#pragma once
#include <string>

namespace tg {

// C for tg_vexp2_floatxN(floatxN), exp2 of every lane: glibc's exp2f computed in vectors, the
// same double-precision steps and table, so each lane is bit for bit what exp2f gives (checked
// on all 2^32 floats). Lanes with |x| >= 128 or NaN take exp2f itself. Guarded by #ifndef, so
// a source may hold it once per width.
std::string vector_exp2_helper(int lanes);

// C for tg_vlog2_floatxN(floatxN): glibc's log2f on vectors, as exp2 above (its 16-entry table
// and polynomial); lanes that are subnormal, zero, negative, inf or NaN take log2f itself.
std::string vector_log2_helper(int lanes);

} // namespace tg
