// codegen layer, a kernel's interface as its source declares it: the parameters of its entry
// function (C, OpenCL C and CUDA C, or LLVM IR) and, for kernels launched on a grid, the sizes
// the renderer wrote beside each work-item index ("int gidx0 = get_group_id(0); /* 5 */").
// tg-run checks a program against this before it compiles or runs anything: a program is code,
// and a hand-edited one whose buffer list, variables or launch sizes disagree with its source
// would read or write memory it does not own.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

struct KernelInterface {
  std::vector<bool> buffer_written; // per buffer parameter, in order: not declared const/readonly
  int ints = 0;                     // int parameters (variables), after the buffers
  // The grid the source was rendered for, per axis (x, y, z): group counts and work-group sizes;
  // nullopt where the source names no such index (size 1) or none at all.
  std::optional<std::array<int64_t, 3>> groups, local;
};

// nullopt when `src` defines no function `name` (a message says why in `why`).
std::optional<KernelInterface> kernel_interface(std::string_view src, std::string_view name,
                                                std::string& why);

} // namespace tg
