// launch layer: `tg-run --time`'s report, as tinygrad's DEBUG=2: per kernel its time and, from
// the program's op and memory estimates, GFLOP/s and GB/s; then the totals.
#pragma once
#include <cstdio>
#include <vector>

#include "codegen/program.h"

namespace tg {

// seconds[i]: kernel i's time (the best of --repeat launches).
void print_kernel_times(const Program& program, const std::vector<double>& seconds, std::FILE* out);

} // namespace tg
