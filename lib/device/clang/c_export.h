// CLANG device, standalone C export (`tg-codegen --emit c --name NAME -o DIR`): a program's
// kernels, buffers, constants and states as a dependency-free C11 library, NAME.h and NAME.c,
// that a C programmer compiles with `cc -O2 -c` and calls with no tg at run time (tinygrad's
// extra/export_model.py for C). Every global symbol starts with NAME_, so two exported programs
// link into one binary. The API (see the header's comment):
//   NAME* NAME_new(void);      buffers allocated, constants copied in, init kernels run (states'
//                              first values); NULL when out of memory
//   int NAME_run(NAME*, inputs..., outputs...);   one step: inputs copied in, outputs copied out
//   void* NAME_state(NAME*, const char* name, size_t* bytes);  a state's storage, read or write
//   int NAME_set_threads(NAME*, int n);   kernels that split their outer loop run on n threads
//   void NAME_free(NAME*);
//   int NAME_load(NAME*, const char* path);   the script's safe_load weights from a safetensors file
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/codegen.h"

namespace tg {

struct CLibrary {
  std::string header, source;     // NAME.h, NAME.c
  std::vector<std::string> notes; // for stderr: what --weights left in NAME.c
};

// NAME must be a C identifier. Kernels run on one thread unless NAME_set_threads asks for more
// (C11 threads, split as tg-run splits them, so the bits do not change). Refused
// with a clear error: programs that draw random numbers on the host (tinygrad's default RNG;
// THREEFRY=1 draws in kernels) and symbolic variables.
// A tensor of the safetensors file a script loaded (tg-codegen --weights reads it).
// Or a named constant of the schedule itself (`buffer` its id): what safe_load read, by the
// key it had in the file.
struct FileTensor {
  std::string name, dtype; // dtype as safetensors names it: "F32"
  DType type;
  std::vector<int64_t> shape;
  std::string_view bytes;
  int buffer = -1; // >= 0: this constant buffer; -1: the constant whose bytes are these
};

// With `weights` (the tensors of the file the script loaded, or the schedule's named constants),
// the constants that are exactly one of them are left out of NAME.c: NAME_load(m, path) reads
// them by name, checked.
CLibrary export_c_library(const Schedule& schedule, const std::string& name,
                          const CodegenOptions& options = {},
                          const std::vector<FileTensor>* weights = nullptr);

} // namespace tg
