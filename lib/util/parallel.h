// util layer, parallel loops: independent work items (one per kernel in codegen) spread over
// threads whose stacks are as deep as a tool's main thread, since lowering recurses over
// kernel ASTs thousands of ops deep.
#pragma once
#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

namespace tg {

// Threads for host-side work (lowering kernels, clang units, the parts of a kernel launch):
// $TG_THREADS if set (1 = none; not a positive number: 1), else the machine's hardware threads.
int host_threads();

// Calls item(i) for every i in [0, n) and returns each item's exception, if any, by index, so
// the caller can rethrow in the order a sequential loop would have met them. With threads > 1
// the items run on up to `threads` workers with deep stacks while the caller waits; else on
// the caller.
std::vector<std::exception_ptr> parallel_for(size_t n, int threads, const std::function<void(size_t)>& item);

} // namespace tg
