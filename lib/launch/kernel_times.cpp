// tg-run --time's report. See kernel_times.h.
#include "launch/kernel_times.h"

#include <algorithm>

namespace tg {

namespace {

// per second, in units of 1e9; 0 for a kernel too fast to time
double giga_per_second(double amount, double seconds) { return seconds > 0 ? amount / seconds / 1e9 : 0.0; }

} // namespace

void print_kernel_times(const Program& program, const std::vector<double>& seconds, std::FILE* out) {
  size_t width = 24;
  for (const ProgramKernel& k : program.kernels) width = std::max(width, k.name.size());
  double total_s = 0, flops = 0, bytes = 0;
  for (size_t i = 0; i < seconds.size() && i < program.kernels.size(); ++i) {
    const ProgramKernel& k = program.kernels[i];
    std::fprintf(out, "tg-run: kernel %4zu %-*s %10.3f ms %9.2f GFLOP/s %8.2f GB/s\n", i, int(width),
                 k.name.c_str(), seconds[i] * 1e3, giga_per_second(double(k.op_estimate), seconds[i]),
                 giga_per_second(double(k.mem_estimate), seconds[i]));
    total_s += seconds[i];
    flops += double(k.op_estimate);
    bytes += double(k.mem_estimate);
  }
  std::fprintf(out, "tg-run: total  %4zu %-*s %10.3f ms %9.2f GFLOP/s %8.2f GB/s (%.4g GFLOP, %.4g MB)\n",
               seconds.size(), int(width), "kernels", total_s * 1e3, giga_per_second(flops, total_s),
               giga_per_second(bytes, total_s), flops / 1e9, bytes / 1e6);
}

} // namespace tg
