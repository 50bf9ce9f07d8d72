#include "util/huge_pages.h"

#include <cstdint>
#include <sys/mman.h>

namespace tg {

void prefer_huge_pages(void* data, size_t size) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (size < 2 * kHuge) return;
  uintptr_t begin = (uintptr_t(data) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t end = (uintptr_t(data) + size) & ~(kHuge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)size;
#endif
}

} // namespace tg
