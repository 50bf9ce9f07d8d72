// onnx layer: values known while a model is imported (initializers, Constants, Shapes, and what
// is computed from them). ONNX passes shapes, axes and pads as tensors; the importer reads them
// from here, as tinygrad's extra/onnx.py reads them with .numpy().
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "shape/shapetracker.h"

namespace onnx {
class TensorProto;
}

namespace tg {

class Tensor;

struct Known {
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<uint8_t> data;

  size_t count() const { return data.size() / size_t(itemsize(dtype)); }
  Scalar at(size_t i) const;
  std::vector<int64_t> ints() const;
  std::vector<double> floats() const;
};

// ONNX's TensorProto data type as tg's dtype; nullopt for one tg does not import.
std::optional<DType> dtype_of_onnx(int t);
// A TensorProto's values; `where` names the file in errors.
Known known_of(const onnx::TensorProto& t, const std::string& where);
// Values of `dtype` (each converted as store_element converts) in `shape`.
Known known_values(DType dtype, const Shape& shape, const std::vector<Scalar>& values);
Known known_ints(const std::vector<int64_t>& v);
// A constant buffer holding the values.
Tensor tensor_of(const Known& k);

} // namespace tg
