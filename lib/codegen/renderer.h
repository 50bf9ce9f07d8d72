// codegen layer, Renderer: what a code generator target is to codegen (tinygrad's Renderer):
// its capabilities, which the Kernel's optimizer and the linearizer read, and `render`, which
// turns one kernel's linearized UOps into source. Devices implement it (lib/device/<name>/);
// codegen never names a device.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/uops.h"

namespace tg {

struct RendererOpts {
  std::string device;              // the name it is registered under ("CLANG")
  bool has_local = false;          // global dims are work-items (SPECIAL), not loops
  bool has_shared = false;         // local (shared) memory
  bool supports_float4 = false;    // vector loads and stores
  bool half_vectors = false;       // with supports_float4: half buffers too (half4; CUDA computes half)
  int vector_lanes = 0;            // >0: renders vectors of this many lanes (host SIMD width in floats)
  bool vector_lane_ranges = false; // renders LOADs of a LaneRange (masked vector loads)
  // Launch limits per dimension, (x, y, z); empty: no limit (loops).
  std::vector<int64_t> global_max, local_max;
  int64_t shared_max = 32768;
  // Host targets: a kernel whose outermost global loop is independent and has enough work is
  // rendered with that loop over [core_start, core_end) and launched split across threads.
  bool splits_outer_loop = false;
};

// The names of the two int parameters of a split kernel's outer loop.
inline constexpr const char* kSplitStartVar = "core_start";
inline constexpr const char* kSplitEndVar = "core_end";

class Renderer {
public:
  explicit Renderer(RendererOpts opts) : opts_(std::move(opts)) {}
  virtual ~Renderer() = default;
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  const RendererOpts& opts() const { return opts_; }
  // One kernel's complete source (a translation unit, or an IR module) from its UOps.
  virtual std::string render(const std::string& function_name, const std::vector<const UOp*>& uops) const = 0;

private:
  RendererOpts opts_;
};

} // namespace tg
