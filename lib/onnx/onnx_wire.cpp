#include "onnx/onnx_wire.h"

#include <cstdint>
#include <map>

namespace tg {

namespace {

// Field numbers in onnx.proto.
constexpr uint64_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;
constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

bool read_varint(const char*& p, const char* end, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p != end; shift += 7) {
    auto b = uint8_t(*p++);
    v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

void put_varint(std::string& out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out += char(uint8_t(v) | 0x80);
  out += char(v);
}

struct Field {
  uint64_t number = 0;
  int wire = 0;
  std::string_view whole;   // tag and value, as they lie
  std::string_view payload; // a length-delimited field's bytes
};

// The field at p (advanced past it); false for bytes that are not a field (groups included:
// ONNX has none).
bool next_field(const char*& p, const char* end, Field& f) {
  const char* begin = p;
  uint64_t tag = 0, v = 0;
  if (!read_varint(p, end, tag)) return false;
  f.number = tag >> 3;
  f.wire = int(tag & 7);
  switch (f.wire) {
  case kVarint:
    if (!read_varint(p, end, v)) return false;
    break;
  case kFixed64:
  case kFixed32: {
    size_t n = f.wire == kFixed64 ? 8 : 4;
    if (size_t(end - p) < n) return false;
    p += n;
    break;
  }
  case kLengthDelimited:
    if (!read_varint(p, end, v) || v > uint64_t(end - p)) return false;
    f.payload = {p, size_t(v)};
    p += v;
    break;
  default:
    return false;
  }
  f.whole = {begin, size_t(p - begin)};
  return true;
}

void put_length_delimited(std::string& out, uint64_t number, std::string_view payload) {
  put_varint(out, number << 3 | kLengthDelimited);
  put_varint(out, payload.size());
  out.append(payload);
}

class Stripper {
public:
  explicit Stripper(size_t min_bytes) : min_bytes_(min_bytes) {}

  // Copies the fields of `msg` into `out`, `inner` rewriting the length-delimited field
  // `number` (its payload in, the rewritten payload out); false on malformed bytes.
  template <class Inner> bool rewrite(std::string_view msg, uint64_t number, std::string& out, Inner inner) {
    const char *p = msg.data(), *end = p + msg.size();
    Field f;
    while (p != end) {
      if (!next_field(p, end, f)) return false;
      if (f.number == number && f.wire == kLengthDelimited) {
        std::string sub;
        if (!inner(f.payload, sub)) return false;
        put_length_delimited(out, number, sub);
      } else {
        out.append(f.whole);
      }
    }
    return true;
  }

  bool model(std::string_view bytes, std::string& out) {
    return rewrite(bytes, kModelGraph, out, [&](std::string_view g, std::string& o) { return graph(g, o); });
  }

  std::map<int, std::string_view> raw; // by initializer index: the last raw_data wins, as in protobuf

private:
  bool graph(std::string_view bytes, std::string& out) {
    return rewrite(bytes, kGraphInitializer, out,
                   [&](std::string_view t, std::string& o) { return tensor(t, o); });
  }
  bool tensor(std::string_view bytes, std::string& out) {
    const int index = next_initializer_++;
    const char *p = bytes.data(), *end = p + bytes.size();
    Field f;
    while (p != end) {
      if (!next_field(p, end, f)) return false;
      if (f.number == kTensorRawData && f.wire == kLengthDelimited && f.payload.size() >= min_bytes_) {
        raw[index] = f.payload;
        put_length_delimited(out, kTensorRawData, {}); // present, empty: the importer fills it
      } else {
        if (f.number == kTensorRawData) raw.erase(index);
        out.append(f.whole);
      }
    }
    return true;
  }

  size_t min_bytes_;
  int next_initializer_ = 0; // graphs that repeat merge: their initializers append in order
};

} // namespace

std::optional<StrippedModel> strip_raw_data(std::string_view model, size_t min_bytes) {
  Stripper s(min_bytes);
  StrippedModel out;
  if (!s.model(model, out.bytes) || s.raw.empty()) return std::nullopt;
  out.raw.assign(s.raw.begin(), s.raw.end());
  return out;
}

} // namespace tg
