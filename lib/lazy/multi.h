// lazy layer: settings of multi-device tensors (multi.cpp holds MultiLazyBuffer's rules).
#pragma once
#include <string>
#include <vector>

namespace tg {

// tinygrad's RING (helpers.py ContextVar, default 1): 2 forces the ring all-reduce, 0 never
// uses it; 1 uses it for more than 2 devices and more than 256,000 elements. The RING
// environment variable, unless a script's Context(RING=...) set it.
int ring_setting();
void set_ring_setting(int value); // -1: back to the environment's

// The graph's device name as a script sees it: "" (the default device) is Device.DEFAULT, "CLANG".
std::string script_device_name(const std::string& graph_name);
// A tuple of devices as Python prints it: ('CLANG:1', 'CLANG:2').
std::string devices_repr(const std::vector<std::string>& graph_names);
} // namespace tg
