// nn layer, safetensors reader and writer. See safetensors.h.
#include <cereal/archives/json.hpp> // configures rapidjson (throwing assertions) before we use it

#include "nn/safetensors.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "io/file.h"
#include "io/json_numbers.h"
#include "util/error.h"

namespace tg::nn {

namespace {

struct Name {
  const char* st;
  DType dt;
};
constexpr Name kNames[] = {
    {"BOOL", DType::Bool},   {"I8", DType::Int8},     {"U8", DType::UInt8},      {"I16", DType::Int16},
    {"U16", DType::UInt16},  {"I32", DType::Int32},   {"U32", DType::UInt32},    {"I64", DType::Int64},
    {"U64", DType::UInt64},  {"F16", DType::Float16}, {"BF16", DType::BFloat16}, {"F32", DType::Float32},
    {"F64", DType::Float64},
};

} // namespace

std::string_view safetensors_dtype_name(DType dt) {
  for (const Name& n : kNames)
    if (n.dt == dt) return n.st;
  return "?";
}

std::optional<DType> safetensors_dtype(std::string_view name) {
  for (const Name& n : kNames)
    if (name == n.st) return n.dt;
  return std::nullopt;
}

SafeFile parse_safetensors(const std::string& bytes, const std::string& filename) {
  auto bad = [&](const std::string& why) -> void {
    throw Error("RuntimeError", filename + ": not a valid safetensors file: " + why);
  };
  if (bytes.size() < 8) bad("shorter than the 8-byte header length");
  uint64_t n = 0;
  for (int k = 7; k >= 0; k--) n = (n << 8) | uint8_t(bytes[k]);
  if (n > bytes.size() - 8)
    bad("header length " + std::to_string(n) + " exceeds the file size " + std::to_string(bytes.size()));
  const char* hdr = bytes.data() + 8;
  const size_t data_start = 8 + size_t(n);
  const uint64_t data_size = bytes.size() - data_start;

  if (io::first_unreadable_number(std::string_view(hdr, size_t(n)))) bad("malformed JSON header");
  rapidjson::Document doc;
  doc.Parse(hdr, size_t(n)); // trailing spaces (padding) are allowed, anything else is not
  if (doc.HasParseError()) bad("malformed JSON header");
  if (!doc.IsObject()) bad("the JSON header is not an object");

  SafeFile out;
  std::set<std::string> seen;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string name(it->name.GetString(), it->name.GetStringLength());
    if (!seen.insert(name).second) bad("duplicate key '" + name + "'");
    const rapidjson::Value& v = it->value;
    if (name == "__metadata__") {
      if (!v.IsObject()) bad("__metadata__ is not an object");
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        if (!m->value.IsString()) bad("__metadata__ values must be strings");
        out.metadata.emplace_back(std::string(m->name.GetString(), m->name.GetStringLength()),
                                  std::string(m->value.GetString(), m->value.GetStringLength()));
      }
      continue;
    }
    const std::string where = "tensor '" + name + "': ";
    if (!v.IsObject()) bad(where + "entry is not an object");
    auto dt = v.FindMember("dtype");
    auto sh = v.FindMember("shape");
    auto off = v.FindMember("data_offsets");
    if (dt == v.MemberEnd() || sh == v.MemberEnd() || off == v.MemberEnd())
      bad(where + "needs dtype, shape and data_offsets");
    if (!dt->value.IsString()) bad(where + "dtype is not a string");
    std::string dname(dt->value.GetString(), dt->value.GetStringLength());
    std::optional<DType> dtype = safetensors_dtype(dname);
    if (!dtype) bad(where + "unknown dtype '" + dname + "'");
    if (!sh->value.IsArray()) bad(where + "shape is not a list");
    SafeTensor t;
    t.name = name;
    t.dtype = *dtype;
    uint64_t numel = 1;
    bool zero = false;
    for (auto& d : sh->value.GetArray()) {
      if (!d.IsUint64()) bad(where + "shape entries must be non-negative integers");
      uint64_t x = d.GetUint64();
      if (x == 0)
        zero = true;
      else if (!zero && numel > (uint64_t(1) << 62) / x)
        bad(where + "shape is too large");
      else if (!zero)
        numel *= x;
      if (x > uint64_t(INT64_MAX)) bad(where + "shape is too large");
      t.shape.push_back(int64_t(x));
    }
    if (zero) numel = 0;
    if (!off->value.IsArray() || off->value.Size() != 2 || !off->value[0].IsUint64() ||
        !off->value[1].IsUint64())
      bad(where + "data_offsets must be two non-negative integers");
    uint64_t b = off->value[0].GetUint64(), e = off->value[1].GetUint64();
    if (b > e || e > data_size)
      bad(where + "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) +
          "] out of range (data is " + std::to_string(data_size) + " bytes)");
    uint64_t isz = uint64_t(itemsize(t.dtype));
    if (numel > data_size / isz + 1 || e - b != numel * isz)
      bad(where + "data_offsets span " + std::to_string(e - b) + " bytes but shape and dtype need " +
          (numel > data_size ? std::string("more") : std::to_string(numel * isz)));
    t.data.assign(bytes.begin() + ptrdiff_t(data_start + b), bytes.begin() + ptrdiff_t(data_start + e));
    ranges.emplace_back(b, e);
    out.tensors.push_back(std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t k = 1; k < ranges.size(); k++)
    if (ranges[k].first < ranges[k - 1].second && ranges[k].first != ranges[k].second)
      bad("data_offsets of two tensors overlap");
  return out;
}

std::string write_safetensors(const SafeFile& file) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto string = [&](const std::string& x) { w.String(x.data(), rapidjson::SizeType(x.size())); };
  w.StartObject();
  uint64_t pos = 0;
  for (const SafeTensor& t : file.tensors) {
    uint64_t numel = 1;
    for (int64_t d : t.shape) numel *= uint64_t(d);
    check(t.data.size() == numel * uint64_t(itemsize(t.dtype)), "RuntimeError",
          "safe_save: tensor '" + t.name + "' has the wrong number of bytes");
    string(t.name);
    w.StartObject();
    w.Key("dtype");
    string(std::string(safetensors_dtype_name(t.dtype)));
    w.Key("shape");
    w.StartArray();
    for (int64_t d : t.shape) w.Int64(d);
    w.EndArray();
    w.Key("data_offsets");
    w.StartArray();
    w.Uint64(pos);
    w.Uint64(pos + t.data.size());
    w.EndArray();
    w.EndObject();
    pos += t.data.size();
  }
  if (!file.metadata.empty()) {
    w.Key("__metadata__");
    w.StartObject();
    for (const auto& [key, value] : file.metadata) string(key), string(value);
    w.EndObject();
  }
  w.EndObject();
  std::string j(buffer.GetString(), buffer.GetSize());
  j.append((8 - j.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = j.size();
  for (int k = 0; k < 8; k++) out[k] = char((n >> (8 * k)) & 0xff);
  out += j;
  for (const SafeTensor& t : file.tensors)
    out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return out;
}

SafeFile load_safetensors(const std::string& path) { return parse_safetensors(read_file(path), path); }

void save_safetensors(const SafeFile& file, const std::string& path) {
  write_file_atomic(path, write_safetensors(file));
}

} // namespace tg::nn
