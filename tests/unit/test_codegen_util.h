// Helpers for codegen/runtime tests: build kernel ASTs and one-kernel schedules by hand and
// move data in and out of HostBuffers.
#pragma once
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "device/registry.h"
#include "launch/runner.h"

namespace tg::testing {

// Unit tests compile C into a cache; keep it out of the user's ~/.cache unless TG_CACHE_DIR
// says where it goes.
inline const bool kTestCacheDirChosen = [] {
  if (!std::getenv("TG_CACHE_DIR"))
    setenv("TG_CACHE_DIR", (std::filesystem::temp_directory_path() / "tg-unit-tests-cache").c_str(), 0);
  return true;
}();

inline ShapeTracker st_of(const Shape& s) { return ShapeTracker::from_shape(s); }

inline LazyOpPtr load(int idx, DType dt, const ShapeTracker& st) {
  return LazyOp::make(Op::LOAD, {}, MemBuffer{idx, dt, st});
}
inline LazyOpPtr cnst(Scalar v, DType dt, const ShapeTracker& st) {
  return LazyOp::make(Op::CONST, {}, ConstBuffer{v, dt, st});
}
inline LazyOpPtr store(int idx, DType dt, const ShapeTracker& st, LazyOpPtr src) {
  return LazyOp::make(Op::STORE, {std::move(src)}, MemBuffer{idx, dt, st});
}
inline LazyOpPtr alu(Op op, std::vector<LazyOpPtr> src) { return LazyOp::make(op, std::move(src)); }
inline LazyOpPtr reduce(Op op, LazyOpPtr src, Axes axes) {
  return LazyOp::make(op, {std::move(src)}, std::move(axes));
}
inline LazyOpPtr cast(LazyOpPtr src, DType dt) { return LazyOp::make(Op::CAST, {std::move(src)}, dt); }

template <class T> HostBuffer host(DType dt, Shape shape, const std::vector<T>& values) {
  HostBuffer hb{dt, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(T))};
  std::memcpy(hb.data.data(), values.data(), hb.data.size());
  return hb;
}
template <class T> std::vector<T> values_of(const HostBuffer& hb) {
  std::vector<T> v(hb.data.size() / sizeof(T));
  std::memcpy(v.data(), hb.data.data(), hb.data.size());
  return v;
}
template <class T> std::vector<T> iota_values(size_t n, T start = T(0), T step = T(1)) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; i++) v[i] = T(start + T(i) * step);
  return v;
}

struct BufSpec {
  std::string name; // "" for an intermediate
  DType dtype;
  Shape shape;
  BufferRole role;
};

// A schedule of `kernels` (each an AST list + buffer ids) over `specs` (buffer id = index).
inline Schedule
make_schedule(const std::vector<BufSpec>& specs,
              const std::vector<std::pair<std::vector<LazyOpPtr>, std::vector<int>>>& kernels) {
  Schedule s;
  for (size_t i = 0; i < specs.size(); i++) {
    const BufSpec& b = specs[i];
    s.buffers.push_back(BufferInfo{int(i), b.dtype, prod(b.shape), b.role, b.name, {}});
    if (b.role == BufferRole::Input) s.inputs.push_back(NamedBuffer{b.name, int(i), b.shape, b.dtype});
    if (b.role == BufferRole::Output) s.outputs.push_back(NamedBuffer{b.name, int(i), b.shape, b.dtype});
  }
  for (auto& [ast, bufs] : kernels) s.kernels.push_back(ScheduleKernel{ast, bufs, false, {}});
  return s;
}

inline std::map<std::string, HostBuffer>
run(const Schedule& s, const std::map<std::string, HostBuffer>& inputs, CodegenOptions opts = {}) {
  return run_program(codegen_schedule(s, device_renderer("CLANG"), opts), inputs);
}

} // namespace tg::testing
