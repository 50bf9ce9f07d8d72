// CUDA device, renderer: tinygrad 0.9.1's CUDARenderer (renderer/cstyle.py): CUDA C++ with
// extern "C" __global__ kernels, blockIdx for the global dims, threadIdx for the local dims,
// half ops through cuda_fp16.h. bfloat16 is unsigned short with the helpers tg's C uses.
#pragma once
#include "render/cstyle.h"

namespace tg {

// tinygrad's CUDA tensor core (WMMA_8_16_16_half_float), which CUDARenderer offers on sm_80 and later.
TensorCore cuda_tensor_core();

class CUDARenderer : public CStyleRenderer {
public:
  CUDARenderer(); // for the architecture cuda_default_arch() names
  std::string render_dtype(DType dtype, bool value = true) const override;
  std::string code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const override;
  std::string render_bitcast(const std::string& x, DType from, DType to) const override;
  std::string render_const(const Scalar& value, DType dtype) const override;
  std::string render_prefix(const std::vector<const UOp*>& uops) const override;
};

} // namespace tg
