// util layer: asks the kernel to back a large buffer with transparent huge pages (where it
// runs THP in "madvise" mode, as Debian does). Filling 100 MB of fresh memory in 4 KB pages
// takes 25,600 page faults, each charged to the memory cgroup: most of what a tool spent
// passing a model's weights along. Call it on memory not yet touched; a no-op for small
// buffers and where the kernel says no.
#pragma once
#include <cstddef>

namespace tg {

void prefer_huge_pages(void* data, size_t size);

} // namespace tg
