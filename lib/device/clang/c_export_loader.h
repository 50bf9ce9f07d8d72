// CLANG device, C export: NAME_load's safetensors reader, as C source for NAME.c.
#pragma once
#include <string>

namespace tg {

// C11 defining NAME_load(NAME*, const char* path) and NAME_error(NAME*). It reads the table
// NAME_weights (name, dtype, shape, buffer, bytes) and the struct's buf, error and loaded
// fields, which export_c_library defines before it.
std::string safetensors_loader_c(const std::string& N);

} // namespace tg
