// Values known while importing. See known.h.
#include "onnx/known.h"

#include <onnx/onnx_pb.h>

#include <cstring>

#include "dtype/dtype_bytes.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"
#include "util/error.h"

namespace tg {

Scalar Known::at(size_t i) const {
  if (i >= count())
    fail("ValueError", "a constant input has " + std::to_string(count()) + " values, and value " +
                           std::to_string(i) + " is needed");
  return load_element(&data[i * size_t(itemsize(dtype))], dtype);
}

std::vector<int64_t> Known::ints() const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < count(); ++i) out.push_back(at(i).as_int());
  return out;
}

std::vector<double> Known::floats() const {
  std::vector<double> out;
  for (size_t i = 0; i < count(); ++i) out.push_back(at(i).as_double());
  return out;
}

std::optional<DType> dtype_of_onnx(int t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return DType::Float32;
  case onnx::TensorProto::UINT8:
    return DType::UInt8;
  case onnx::TensorProto::INT8:
    return DType::Int8;
  case onnx::TensorProto::UINT16:
    return DType::UInt16;
  case onnx::TensorProto::INT16:
    return DType::Int16;
  case onnx::TensorProto::INT32:
    return DType::Int32;
  case onnx::TensorProto::INT64:
    return DType::Int64;
  case onnx::TensorProto::BOOL:
    return DType::Bool;
  case onnx::TensorProto::FLOAT16:
    return DType::Float16;
  case onnx::TensorProto::DOUBLE:
    return DType::Float64;
  case onnx::TensorProto::UINT32:
    return DType::UInt32;
  case onnx::TensorProto::UINT64:
    return DType::UInt64;
  case onnx::TensorProto::BFLOAT16:
    return DType::BFloat16;
  default:
    return std::nullopt;
  }
}

Known known_of(const onnx::TensorProto& t, const std::string& where, const std::shared_ptr<const void>& owner,
               const Blob* raw) {
  std::optional<DType> dt = dtype_of_onnx(t.data_type());
  if (!dt)
    fail("NotImplementedError", where + ": tensor '" + t.name() + "' has ONNX data type " +
                                    std::to_string(t.data_type()) + ", which tg does not import");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    fail("NotImplementedError", where + ": tensor '" + t.name() + "' keeps its data in an external file");
  Known k{*dt, Shape(t.dims().begin(), t.dims().end()), {}};
  uint64_t count = 1;
  for (int64_t d : k.shape) {
    if (d < 0) fail("ValueError", where + ": tensor '" + t.name() + "' has a negative dimension");
    count = d == 0 || count == 0 ? 0 : count <= UINT64_MAX / uint64_t(d) ? count * uint64_t(d) : UINT64_MAX;
  }
  // Every element takes at least one byte of the message (raw bytes, a varint, a float): dims
  // that promise more than the tensor carries are refused before anything is allocated.
  uint64_t carried = uint64_t(t.ByteSizeLong());
  if (raw) { // the message's size as it was: the left-out bytes, and their length prefix past one byte
    carried += raw->size();
    for (uint64_t left = raw->size() >> 7; left; left >>= 7) ++carried;
  }
  if (count > carried)
    fail("ValueError", where + ": tensor '" + t.name() + "' has dims " + shape_repr(k.shape) +
                           " but carries only " + std::to_string(carried) + " bytes");
  const size_t n = size_t(count), isz = size_t(itemsize(*dt));
  if (t.has_raw_data() || raw) {
    const size_t held = raw ? raw->size() : t.raw_data().size();
    if (held != n * isz)
      fail("ValueError", where + ": tensor '" + t.name() + "' holds " + std::to_string(held) +
                             " bytes, its shape needs " + std::to_string(n * isz));
    if (raw) {
      k.data = *raw;
      return k;
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(t.raw_data().data());
    k.data = owner ? Blob(owner, bytes, n * isz) : Blob(std::vector<uint8_t>(bytes, bytes + n * isz));
    return k;
  }
  std::vector<uint8_t> data(n * isz);
  auto fill = [&](const auto& field, auto convert) {
    if (size_t(field.size()) != n)
      fail("ValueError", where + ": tensor '" + t.name() + "' holds " + std::to_string(field.size()) +
                             " values, its shape needs " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) convert(&data[i * isz], field.Get(int(i)));
  };
  auto as_scalar = [&](uint8_t* p, auto v) {
    using V = decltype(v);
    if constexpr (std::is_floating_point_v<V>)
      store_element(p, Scalar::of_float(double(v)), *dt);
    else
      store_element(p, Scalar::of_int(int64_t(v)), *dt);
  };
  switch (*dt) {
  case DType::Float32:
    fill(t.float_data(), as_scalar);
    break;
  case DType::Float64:
    fill(t.double_data(), as_scalar);
    break;
  case DType::Int64:
    fill(t.int64_data(), as_scalar);
    break;
  case DType::UInt32:
  case DType::UInt64:
    fill(t.uint64_data(), as_scalar);
    break;
  case DType::Float16:
  case DType::BFloat16: // the bits, in int32_data
    fill(t.int32_data(), [&](uint8_t* p, int32_t v) {
      uint16_t bits = uint16_t(v);
      std::memcpy(p, &bits, 2);
    });
    break;
  default:
    fill(t.int32_data(), as_scalar);
    break;
  }
  k.data = std::move(data);
  return k;
}

Known known_values(DType dtype, const Shape& shape, const std::vector<Scalar>& values) {
  const size_t isz = size_t(itemsize(dtype));
  std::vector<uint8_t> data(values.size() * isz);
  for (size_t i = 0; i < values.size(); ++i) store_element(&data[i * isz], values[i], dtype);
  return Known{dtype, shape, std::move(data)};
}

Known known_ints(const std::vector<int64_t>& v) {
  std::vector<uint8_t> data(v.size() * 8);
  std::memcpy(data.data(), v.data(), data.size());
  return Known{DType::Int64, Shape{int64_t(v.size())}, std::move(data)};
}

Tensor tensor_of(const Known& k) { return Tensor(LazyBuffer::from_data(k.data, k.shape, k.dtype)); }

} // namespace tg
