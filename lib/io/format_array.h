// io layer: a HostBuffer as text for people: `name: shape=(2, 3) dtype=float32` and the values
// laid out like numpy's array repr (nested brackets, aligned columns, shortest round-trip floats).
#pragma once
#include <string>

#include "io/host_buffer.h"

namespace tg {

std::string format_array(const HostBuffer& buffer);

} // namespace tg
