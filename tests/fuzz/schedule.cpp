// libFuzzer target: see targets.h.
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::schedule({reinterpret_cast<const char*>(data), size});
  return 0;
}
