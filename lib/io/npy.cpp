#include "io/npy.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "io/file.h"
#include "util/error.h"

namespace tg {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

[[noreturn]] void npy_fail(std::string_view name, const std::string& message) {
  fail("ValueError", std::string(name) + ": " + message);
}

struct NpyType {
  DType dtype;
  char kind; // numpy kind: b i u f
};
// numpy kind + itemsize for every dtype that has one (bfloat16 has none).
constexpr NpyType kNpyTypes[] = {
    {DType::Bool, 'b'},   {DType::Int8, 'i'},    {DType::Int16, 'i'},   {DType::Int32, 'i'},
    {DType::Int64, 'i'},  {DType::UInt8, 'u'},   {DType::UInt16, 'u'},  {DType::UInt32, 'u'},
    {DType::UInt64, 'u'}, {DType::Float16, 'f'}, {DType::Float32, 'f'}, {DType::Float64, 'f'},
};

std::optional<char> npy_kind(DType dt) {
  for (const NpyType& t : kNpyTypes)
    if (t.dtype == dt) return t.kind;
  return std::nullopt;
}

// A value in the header's Python dict literal: a string, a bool, an int or a tuple of ints.
struct HeaderValue {
  enum class Kind { Str, Bool, Int, Tuple, Other } kind = Kind::Other;
  std::string str;
  bool boolean = false;
  int64_t integer = 0;
  std::vector<int64_t> tuple;
};

// Parser for the header dict numpy writes: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(std::string_view text, std::string_view name) : s_(text), name_(name) {}

  std::vector<std::pair<std::string, HeaderValue>> parse_dict() {
    std::vector<std::pair<std::string, HeaderValue>> out;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      HeaderValue key = parse_value();
      if (key.kind != HeaderValue::Kind::Str) bad("dictionary key is not a string");
      expect(':');
      out.emplace_back(key.str, parse_value());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') bad("expected ',' or '}'");
    }
    return out;
  }

private:
  std::string_view s_;
  std::string_view name_;
  size_t pos_ = 0;

  [[noreturn]] void bad(const std::string& why) {
    npy_fail(name_, "malformed .npy header (" + why + " at column " + std::to_string(pos_) + ")");
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  HeaderValue parse_value() {
    skip_space();
    HeaderValue v;
    char c = peek();
    if (c == '\'' || c == '"') {
      ++pos_;
      size_t end = s_.find(c, pos_);
      if (end == std::string_view::npos) bad("unterminated string");
      v.kind = HeaderValue::Kind::Str;
      v.str = std::string(s_.substr(pos_, end - pos_));
      pos_ = end + 1;
    } else if (c == '(' || c == '[') {
      char close = c == '(' ? ')' : ']';
      ++pos_;
      v.kind = HeaderValue::Kind::Tuple;
      while (true) {
        skip_space();
        if (peek() == close) break;
        HeaderValue item = parse_value();
        if (item.kind != HeaderValue::Kind::Int) v.kind = HeaderValue::Kind::Other;
        v.tuple.push_back(item.integer);
        skip_space();
        if (peek() == ',')
          ++pos_;
        else if (peek() != close)
          bad(std::string("expected ',' or '") + close + "'");
      }
      ++pos_;
    } else if (s_.substr(pos_, 4) == "True" || s_.substr(pos_, 5) == "False") {
      v.kind = HeaderValue::Kind::Bool;
      v.boolean = c == 'T';
      pos_ += v.boolean ? 4 : 5;
    } else if ((c >= '0' && c <= '9') || c == '-') {
      v.kind = HeaderValue::Kind::Int;
      bool negative = c == '-';
      if (negative) ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) bad("expected a digit");
      uint64_t value = 0;
      while (peek() >= '0' && peek() <= '9') {
        value = value * 10 + uint64_t(peek() - '0');
        if (value > uint64_t(INT64_MAX)) bad("integer out of range");
        ++pos_;
      }
      if (peek() == 'L') ++pos_; // Python 2 longs in old files
      v.integer = negative ? -int64_t(value) : int64_t(value);
    } else {
      bad("unexpected character");
    }
    return v;
  }
};

struct NpyHeader {
  DType dtype;
  bool big_endian = false;
  bool fortran_order = false;
  Shape shape;
};

DType parse_descr(const std::string& descr, std::string_view name, bool& big_endian) {
  auto unsupported = [&]() -> DType { npy_fail(name, "unsupported dtype '" + descr + "'"); };
  if (descr.size() < 3) return unsupported();
  char order = descr[0], kind = descr[1];
  if (order != '<' && order != '>' && order != '|' && order != '=') return unsupported();
  std::string digits = descr.substr(2);
  if (digits.size() > 1 || digits[0] < '1' || digits[0] > '8') return unsupported();
  int size = digits[0] - '0';
  big_endian = order == '>' && size > 1;
  for (const NpyType& t : kNpyTypes)
    if (t.kind == kind && itemsize(t.dtype) == size) return t.dtype;
  return unsupported();
}

NpyHeader parse_header(std::string_view text, std::string_view name) {
  NpyHeader h;
  bool have_descr = false, have_order = false, have_shape = false;
  for (auto& [key, value] : HeaderParser(text, name).parse_dict()) {
    if (key == "descr") {
      if (value.kind != HeaderValue::Kind::Str)
        npy_fail(name, "unsupported dtype (structured arrays are not supported)");
      h.dtype = parse_descr(value.str, name, h.big_endian);
      have_descr = true;
    } else if (key == "fortran_order") {
      if (value.kind != HeaderValue::Kind::Bool)
        npy_fail(name, "malformed .npy header ('fortran_order' is not a bool)");
      h.fortran_order = value.boolean;
      have_order = true;
    } else if (key == "shape") {
      if (value.kind != HeaderValue::Kind::Tuple)
        npy_fail(name, "malformed .npy header ('shape' is not a tuple of ints)");
      for (int64_t d : value.tuple)
        if (d < 0) npy_fail(name, "malformed .npy header (negative dimension in 'shape')");
      h.shape = shape_from_ints(value.tuple);
      have_shape = true;
    }
  }
  if (!have_descr || !have_order || !have_shape)
    npy_fail(name, "malformed .npy header (needs 'descr', 'fortran_order' and 'shape')");
  return h;
}

// Element count * itemsize, or nullopt on overflow.
std::optional<uint64_t> byte_size(const Shape& shape, int item) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0; // (2**62, 0) is empty
  unsigned __int128 n = uint64_t(item);
  for (int64_t d : shape) {
    n *= uint64_t(d);
    if (n > (unsigned __int128)(1) << 62) return std::nullopt;
  }
  return uint64_t(n);
}

std::vector<uint8_t> fortran_to_c(const uint8_t* src, const Shape& shape, int item) {
  size_t count = 1;
  for (int64_t d : shape) count *= size_t(d);
  std::vector<uint8_t> out(count * size_t(item));
  if (count == 0) return out;
  size_t ndim = shape.size();
  std::vector<size_t> fstride(ndim, 1), idx(ndim, 0);
  for (size_t k = 1; k < ndim; ++k) fstride[k] = fstride[k - 1] * size_t(shape[k - 1]);
  size_t foff = 0;
  for (size_t c = 0; c < count; ++c) {
    std::memcpy(out.data() + c * item, src + foff * item, size_t(item));
    for (size_t k = ndim; k-- > 0;) { // advance the C-order index, last dim fastest
      if (++idx[k] < size_t(shape[k])) {
        foff += fstride[k];
        break;
      }
      foff -= fstride[k] * (idx[k] - 1);
      idx[k] = 0;
    }
  }
  return out;
}

} // namespace

NpyView view_npy(std::string_view bytes, std::string_view name) {
  if (bytes.size() < 8 || bytes.substr(0, 6) != kMagic) npy_fail(name, "not a .npy file");
  uint8_t major = uint8_t(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    if (bytes.size() < 10) npy_fail(name, "truncated .npy header");
    header_len = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) npy_fail(name, "truncated .npy header");
    header_len = 0;
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | uint8_t(bytes[8 + i]);
    header_start = 12;
  } else {
    npy_fail(name, "unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(uint8_t(bytes[7])));
  }
  if (bytes.size() - header_start < header_len) npy_fail(name, "truncated .npy header");
  NpyHeader h = parse_header(bytes.substr(header_start, header_len), name);
  int item = itemsize(h.dtype);
  std::optional<uint64_t> need = byte_size(h.shape, item);
  if (!need) npy_fail(name, "array too large: shape " + shape_repr(h.shape));
  size_t data_start = header_start + header_len;
  size_t have = bytes.size() - data_start;
  if (have < *need)
    npy_fail(name,
             "truncated: expected " + std::to_string(*need) + " bytes of data, got " + std::to_string(have));
  return {h.dtype,
          h.shape,
          h.fortran_order && h.shape.size() > 1,
          h.big_endian,
          reinterpret_cast<const uint8_t*>(bytes.data()) + data_start,
          size_t(*need)};
}

HostBuffer npy_view_to_buffer(const NpyView& v) {
  HostBuffer out{v.dtype, v.shape, {}};
  int item = itemsize(v.dtype);
  if (v.fortran_order)
    out.data = fortran_to_c(v.data, v.shape, item);
  else
    out.data.assign(v.data, v.data + v.bytes);
  if (v.big_endian)
    for (size_t i = 0; i < out.data.size(); i += size_t(item))
      std::reverse(out.data.begin() + i, out.data.begin() + i + item);
  return out;
}

HostBuffer read_npy_bytes(std::string_view bytes, std::string_view name) {
  return npy_view_to_buffer(view_npy(bytes, name));
}

HostBuffer read_npy(const std::string& path) { return read_npy_bytes(read_file(path), path); }

std::string npy_bytes(const HostBuffer& buffer, std::string_view name) {
  std::optional<char> kind = npy_kind(buffer.dtype);
  if (!kind) npy_fail(name, std::string(py_name(buffer.dtype)) + " has no numpy dtype");
  for (int64_t d : buffer.shape)
    if (d < 0) npy_fail(name, "negative dimension in shape " + shape_repr(buffer.shape));
  int item = itemsize(buffer.dtype);
  std::optional<uint64_t> need = byte_size(buffer.shape, item);
  if (!need || *need != buffer.data.size())
    npy_fail(name, "buffer holds " + std::to_string(buffer.data.size()) + " bytes, shape " +
                       shape_repr(buffer.shape) + " of " + std::string(py_name(buffer.dtype)) + " needs " +
                       (need ? std::to_string(*need) : std::string("more")));
  std::string descr = std::string(item == 1 ? "|" : "<") + *kind + std::to_string(item);
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_repr(buffer.shape) + ", }";
  size_t prefix = header.size() + 1 >= 65536 - 10 ? 12 : 10; // version 2.0 for huge headers
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic);
  out += char(prefix == 10 ? 1 : 2);
  out += char(0);
  size_t len = header.size();
  for (size_t i = 0; i < prefix - 8; ++i) out += char((len >> (8 * i)) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(buffer.data.data()), buffer.data.size());
  return out;
}

void write_npy(const std::string& path, const HostBuffer& buffer) {
  write_file_atomic(path, npy_bytes(buffer, path));
}

} // namespace tg
