// GPU device, renderer: tinygrad 0.9.1's OpenCLRenderer (renderer/cstyle.py): OpenCL C with
// __kernel/__global, work-group ids for the global dims, local ids for the local dims.
// Differences on purpose: bool buffers are uchar (OpenCL forbids bool kernel arguments; the
// bytes are the same), bfloat16 is unsigned short with the helpers tg's C uses.
#pragma once
#include "render/cstyle.h"

namespace tg {

class OpenCLRenderer : public CStyleRenderer {
public:
  OpenCLRenderer();
  std::string render_dtype(DType dtype, bool value = true) const override;
  std::string render_bitcast(const std::string& x, DType from, DType to) const override;
  std::string render_const(const Scalar& value, DType dtype) const override;
  std::string render_prefix(const std::vector<const UOp*>& uops) const override;
};

} // namespace tg
