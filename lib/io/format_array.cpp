#include "io/format_array.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tg {
namespace {

template <class T> T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

bool is_integral_dtype(DType dt) { return dt != DType::Bool && !is_float(dt); }

double element_as_double(DType dt, const uint8_t* p) {
  switch (dt) {
  case DType::Float16: return half_to_float(load<uint16_t>(p));
  case DType::BFloat16: return bf16_to_float(load<uint16_t>(p));
  case DType::Float32: return load<float>(p);
  case DType::Float64: return load<double>(p);
  default: return 0;
  }
}

std::string element_text(DType dt, const uint8_t* p) {
  char buf[64];
  switch (dt) {
  case DType::Bool: return *p ? "True" : "False";
  case DType::Int8: return std::to_string(load<int8_t>(p));
  case DType::UInt8: return std::to_string(load<uint8_t>(p));
  case DType::Int16: return std::to_string(load<int16_t>(p));
  case DType::UInt16: return std::to_string(load<uint16_t>(p));
  case DType::Int32: return std::to_string(load<int32_t>(p));
  case DType::UInt32: return std::to_string(load<uint32_t>(p));
  case DType::Int64: return std::to_string(load<int64_t>(p));
  case DType::UInt64: return std::to_string(load<uint64_t>(p));
  default: break;
  }
  double v = element_as_double(dt, p);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // numpy prints at most 8 significant digits, dropping trailing zeros but keeping the point.
  std::snprintf(buf, sizeof buf, "%.8g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".";
  return s;
}

} // namespace

std::string format_shape(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string format_array(const HostBuffer& b) {
  int64_t n = 1;
  for (int64_t d : b.shape) n *= d;
  size_t isz = size_t(itemsize(b.dtype));
  std::vector<std::string> cells;
  cells.reserve(size_t(n));
  size_t width = 0;
  for (int64_t i = 0; i < n; ++i) {
    cells.push_back(element_text(b.dtype, b.data.data() + size_t(i) * isz));
    width = std::max(width, cells.back().size());
  }
  bool right_align = is_integral_dtype(b.dtype) || is_float(b.dtype);
  std::string out;
  if (b.shape.empty()) return cells.empty() ? "" : cells[0];
  // Walk the elements, opening and closing brackets where indices roll over, like numpy.
  size_t rank = b.shape.size();
  std::vector<int64_t> idx(rank, 0);
  if (n == 0) return std::string(rank, '[') + std::string(rank, ']');
  for (int64_t i = 0; i < n; ++i) {
    size_t opened = 0;
    for (size_t d = rank; d-- > 0;)
      if (idx[d] == 0) ++opened;
      else break;
    if (i > 0) {
      // numpy separates blocks by one newline per closed bracket, then indents to the depth.
      if (opened > 0) out += std::string(opened, '\n') + std::string(rank - opened, ' ');
      else out += ' ';
    }
    out += std::string(opened, '[');
    const std::string& c = cells[size_t(i)];
    if (right_align && c.size() < width) out += std::string(width - c.size(), ' ');
    out += c;
    // advance the index and close brackets for every dimension that completes
    size_t closed = 0;
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < b.shape[d]) break;
      idx[d] = 0;
      ++closed;
    }
    out += std::string(closed, ']');
  }
  return out;
}

} // namespace tg
