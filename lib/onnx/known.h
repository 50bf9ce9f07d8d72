// onnx layer: values known while a model is imported (initializers, Constants, Shapes, and what
// is computed from them). ONNX passes shapes, axes and pads as tensors; the importer reads them
// from here, as tinygrad's extra/onnx.py reads them with .numpy().
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "shape/shapetracker.h"
#include "util/blob.h"

namespace onnx {
class TensorProto;
}

namespace tg {

class Tensor;

struct Known {
  DType dtype = DType::Float32;
  Shape shape;
  Blob data; // raw initializers alias the parsed model's bytes

  size_t count() const { return data.size() / size_t(itemsize(dtype)); }
  Scalar at(size_t i) const;
  std::vector<int64_t> ints() const;
  std::vector<double> floats() const;
};

// ONNX's TensorProto data type as tg's dtype; nullopt for one tg does not import.
std::optional<DType> dtype_of_onnx(int t);
// A TensorProto's values; `where` names the file in errors. Raw data is shared with `owner`
// (what keeps `t` alive) when given, else copied; `raw`, when given, is the raw data the parse
// left out of `t` (onnx_wire.h), whose own raw_data is then empty.
Known known_of(const onnx::TensorProto& t, const std::string& where,
               const std::shared_ptr<const void>& owner = nullptr, const Blob* raw = nullptr);
// Values of `dtype` (each converted as store_element converts) in `shape`.
Known known_values(DType dtype, const Shape& shape, const std::vector<Scalar>& values);
Known known_ints(const std::vector<int64_t>& v);
// A constant buffer holding the values.
Tensor tensor_of(const Known& k);

} // namespace tg
