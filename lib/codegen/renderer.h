// codegen layer, Renderer: what a code generator target is to codegen (tinygrad's Renderer):
// its capabilities, which the Kernel's optimizer and the linearizer read, and `render`, which
// turns one kernel's linearized UOps into source. Devices implement it (lib/device/<name>/);
// codegen never names a device.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/uops.h"

namespace tg {

// A matrix-multiply-accumulate instruction across a warp of threads (tinygrad's TensorCore):
// D = A * B + C, A (M x K), B (K x N), C and D (M x N).
struct TensorCore {
  std::array<int, 3> dims; // N, M, K
  DType dtype_in, dtype_out;
  std::vector<std::pair<int, int>> threads; // (TC dim, amount): the warp's thread structure
  // per operand (A, B, C/D): [thread_1 .. thread_n, upcast_1 (unrolled), upcast_2 ...]; an entry
  // lists what its index is made of: i > 0 the i-th local index, -i the i-th thread index
  std::vector<std::vector<std::vector<int>>> thread_local_aliases;
  std::vector<std::vector<int>> thread_local_sizes; // per operand: elements each thread holds
  std::string name() const;                         // "WMMA_8_16_16_half_float"
  int num_upcasts() const { return int(thread_local_aliases[0].size() - threads.size()); }
  bool operator==(const TensorCore&) const = default;
};

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
  std::vector<TensorCore> tensor_cores; // tried in order by the TC optimization
  // Host targets: a kernel whose outermost global loop is independent and has enough work is
  // rendered with that loop over [core_start, core_end) and launched split across threads.
  bool splits_outer_loop = false;
  // Host targets with local arrays on the stack: a strided panel that a global loop reads again
  // and again is copied into one first (codegen/pack_panels.h), up to this many bytes a kernel
  // (0: never).
  int64_t pack_panel_bytes = 0;
  // The renderer computes RECIP, EXP2 and LOG2 on whole vectors (CLANG: a division and
  // tg_vexp2/tg_vlog2_floatxN, exp2f's and log2f's exact bits); elsewhere they go lane by lane.
  bool vector_math = false;
  // Compares of float vectors are vectors of masks (C: intxN of -1 and 0; LLVM: <N x i1>) that
  // WHERE selects with, MUL ands, CMPNE xors and NEG inverts; elsewhere they go lane by lane.
  bool vector_masks = false;
  // Host targets: a kernel with range loads unrolls its reduce loops of at most this many
  // iterations nested in another (a conv's window; codegen/uops.h window_loops); 0: never.
  int unroll_window = 0;
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
