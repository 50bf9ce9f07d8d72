// tensor layer: device names between a script and the graph.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "lazy/multi.h"
#include "util/device_name.h"
#include "tensor/tensor.h"

namespace tg {

// A script's device name as the graph stores it: canonical ("clang:1" -> "CLANG:1"), and ""
// for Device.DEFAULT ("CLANG", "CLANG:0").
std::string graph_device_name(const std::string& name);

// A random tensor made where `like` lives (Tensor.rand(..., device=like.device)): with numpy's
// generator each device of a sharded tensor draws its own numbers (one custom_random each, as
// tinygrad); threefry computes the same numbers on every device.
Tensor draw_placed(const std::function<Tensor()>& draw, const std::vector<std::string>& graph_devices);
Tensor draw_placed_like(const std::function<Tensor()>& draw, const Tensor& like);

} // namespace tg
