#include "runtime/runner.h"

#include <algorithm>
#include <chrono>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sstream>

#include "runtime/clang_compiler.h"
#include "util/error.h"

namespace tg {

namespace {

struct AlignedFree {
  void operator()(uint8_t* p) const { std::free(p); }
};
using DeviceMemory = std::unique_ptr<uint8_t, AlignedFree>;

DeviceMemory allocate(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
  if (!p) fail("RuntimeError", "out of memory allocating " + std::to_string(bytes) + " bytes");
  std::memset(p, 0, rounded);
  return DeviceMemory(p);
}

const BufferInfo& buffer_by_id(const Program& p, int id) {
  for (const BufferInfo& b : p.buffers)
    if (b.id == id) return b;
  fail("RuntimeError", "program refers to unknown buffer " + std::to_string(id));
}

} // namespace

std::string program_translation_unit(const Program& p) {
  std::ostringstream os;
  for (const ProgramKernel& k : p.kernels) os << k.src << "\n";
  for (const ProgramKernel& k : p.kernels) {
    os << "void tg_launch_" << k.name << "(void** args) { " << k.name << "(";
    for (size_t i = 0; i < k.bufs.size(); i++) os << (i ? ", " : "") << "args[" << i << "]";
    os << "); }\n";
  }
  return os.str();
}

LoadedProgram::LoadedProgram(const Program& p) {
  check(p.device == "CLANG", "RuntimeError", "unknown device '" + p.device + "' (known: CLANG)");
  if (p.kernels.empty()) return;
  ClangCompiler compiler;
  ClangCompiler::Result r = compiler.compile(program_translation_unit(p));
  library_ = r.library.string();
  cache_hit_ = r.cache_hit;
  handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) fail("RuntimeError", std::string("cannot load ") + library_ + ": " + dlerror());
  for (const ProgramKernel& k : p.kernels) {
    void* sym = dlsym(handle_, ("tg_launch_" + k.name).c_str());
    if (!sym) fail("RuntimeError", "kernel '" + k.name + "' missing from " + library_);
    launchers_.push_back(reinterpret_cast<void (*)(void**)>(sym));
  }
}

LoadedProgram::~LoadedProgram() {
  if (handle_) dlclose(handle_);
}

void LoadedProgram::launch(size_t i, void** args) const { launchers_.at(i)(args); }

std::map<std::string, HostBuffer> run_program(const Program& p,
                                              const std::map<std::string, HostBuffer>& inputs,
                                              const RunOptions& options) {
  for (const auto& [name, _] : inputs) {
    bool known = false;
    for (const NamedBuffer& nb : p.inputs) known |= nb.name == name;
    if (!known) {
      std::string names;
      for (const NamedBuffer& nb : p.inputs) names += (names.empty() ? "" : ", ") + nb.name;
      fail("ValueError",
           "unknown input '" + name + "' (the program's inputs: " + (names.empty() ? "none" : names) + ")");
    }
  }
  for (const NamedBuffer& nb : p.inputs) {
    auto it = inputs.find(nb.name);
    if (it == inputs.end()) fail("ValueError", "missing input '" + nb.name + "'");
    const HostBuffer& hb = it->second;
    if (hb.shape != nb.shape)
      fail("ValueError",
           "input '" + nb.name + "': expected shape " + shape_repr(nb.shape) + ", got " + shape_repr(hb.shape));
    if (hb.dtype != nb.dtype)
      fail("ValueError", "input '" + nb.name + "': expected dtype " + std::string(py_name(nb.dtype)) +
                             ", got " + std::string(py_name(hb.dtype)));
    size_t want = size_t(prod(nb.shape)) * size_t(itemsize(nb.dtype));
    if (hb.data.size() != want)
      fail("ValueError", "input '" + nb.name + "': expected " + std::to_string(want) +
                             " bytes of data, got " + std::to_string(hb.data.size()));
  }

  LoadedProgram loaded(p);

  std::map<int, DeviceMemory> memory;
  for (const BufferInfo& b : p.buffers) {
    size_t bytes = size_t(b.size) * size_t(itemsize(b.dtype));
    DeviceMemory m = allocate(bytes);
    if (b.role == BufferRole::Constant) {
      check(b.data.size() == bytes, "RuntimeError",
            "constant buffer " + std::to_string(b.id) + " carries " + std::to_string(b.data.size()) +
                " bytes, expected " + std::to_string(bytes));
      std::memcpy(m.get(), b.data.data(), bytes);
    }
    memory[b.id] = std::move(m);
  }
  for (const NamedBuffer& nb : p.inputs) {
    const HostBuffer& hb = inputs.at(nb.name);
    size_t cap = size_t(buffer_by_id(p, nb.buffer).size) * size_t(itemsize(buffer_by_id(p, nb.buffer).dtype));
    check(hb.data.size() <= cap, "RuntimeError", "input '" + nb.name + "' does not fit its buffer");
    std::memcpy(memory.at(nb.buffer).get(), hb.data.data(), hb.data.size());
  }

  std::vector<void*> args;
  if (options.kernel_seconds) options.kernel_seconds->assign(p.kernels.size(), 0.0);
  for (size_t i = 0; i < p.kernels.size(); i++) {
    args.clear();
    for (int id : p.kernels[i].bufs) {
      auto it = memory.find(id);
      if (it == memory.end())
        fail("RuntimeError", "kernel '" + p.kernels[i].name + "' uses unknown buffer " + std::to_string(id));
      args.push_back(it->second.get());
    }
    if (!options.kernel_seconds) {
      loaded.launch(i, args.data());
      continue;
    }
    // Timed: the best of `repeat` launches (kernels here only write their outputs, so a
    // relaunch computes the same values).
    double best = 0;
    for (int r = 0; r < std::max(1, options.repeat); ++r) {
      auto t0 = std::chrono::steady_clock::now();
      loaded.launch(i, args.data());
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = r == 0 ? dt : std::min(best, dt);
    }
    (*options.kernel_seconds)[i] = best;
  }

  std::map<std::string, HostBuffer> out;
  for (const NamedBuffer& nb : p.outputs) {
    const BufferInfo& b = buffer_by_id(p, nb.buffer);
    size_t bytes = size_t(prod(nb.shape)) * size_t(itemsize(nb.dtype));
    check(bytes <= size_t(b.size) * size_t(itemsize(b.dtype)), "RuntimeError",
          "output '" + nb.name + "' is larger than its buffer");
    HostBuffer hb{nb.dtype, nb.shape, std::vector<uint8_t>(bytes)};
    if (bytes) std::memcpy(hb.data.data(), memory.at(nb.buffer).get(), bytes);
    out[nb.name] = std::move(hb);
  }
  return out;
}

} // namespace tg
