#include "device/registry.h"

#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "device/clang/clang_device.h"
#include "device/cuda/cuda_device.h"
#include "device/llvm/llvm_device.h"
#include "device/opencl/opencl_device.h"
#include "util/error.h"
#include "util/printable.h"

namespace tg {

namespace {

struct Entry {
  const char* name;
  std::unique_ptr<Device> (*make)();
};

// The first is the default device.
constexpr Entry kDevices[] = {
    {"CLANG", make_clang_device},
    {"LLVM", make_llvm_device},
    {"GPU", make_opencl_device},
    {"CUDA", make_cuda_device},
};

} // namespace

std::vector<std::string> device_names() {
  std::vector<std::string> out;
  for (const Entry& e : kDevices) out.push_back(e.name);
  return out;
}

std::string default_device() { return kDevices[0].name; }

Device& device(const std::string& given) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Device>> made;
  std::string name = canonical_device_name(given);
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = made.find(name); it != made.end()) return *it->second;
  for (const Entry& e : kDevices)
    if (name == e.name) return *made.emplace(name, e.make()).first->second;
  std::string known;
  for (const Entry& e : kDevices) known += (known.empty() ? "" : ", ") + std::string(e.name);
  fail("RuntimeError", "unknown device '" + printable(given) + "' (known: " + known + ")");
}

} // namespace tg
