// GPU device, renderer: tinygrad 0.9.1's OpenCLRenderer (renderer/cstyle.py): OpenCL C with
// __kernel/__global, work-group ids for the global dims, local ids for the local dims.
// Differences on purpose, so that every dtype runs on every OpenCL device (PoCL has no
// cl_khr_fp16): bool buffers are uchar (OpenCL forbids bool kernel arguments; the bytes are the
// same); half is a storage type (vload_half/vstore_half) computed in float and rounded where
// CLANG's __fp16 variables round, so results match CLANG's bit for bit; bfloat16 is unsigned
// short with the helpers tg's C uses; INT_MIN is written so that it stays an int.
#pragma once
#include "render/cstyle.h"

namespace tg {

class OpenCLRenderer : public CStyleRenderer {
public:
  OpenCLRenderer();
  std::string render_dtype(DType dtype, bool value = true) const override;
  std::string render_bitcast(const std::string& x, DType from, DType to) const override;
  std::string render_const(const Scalar& value, DType dtype) const override;
  std::string render_cast(const std::string& x, DType from, DType to) const override;
  std::string render_load(const std::string& buf, DType buf_dtype, const std::string& idx) const override;
  std::string render_store(const std::string& buf, DType buf_dtype, const std::string& idx,
                           const std::string& value) const override;
  std::string render_assign(DType dtype, const std::string& value) const override;
  std::string render_prefix(const std::vector<const UOp*>& uops) const override;
};

} // namespace tg
