// io layer, private: the building blocks artifact.cpp encodes and decodes with. Include only
// from lib/io/*.cpp (it pulls in cereal). Every function is templated on the cereal archive:
// binary archives ignore names and write tags and enums as bytes; the JSON archive writes
// names ("float32", "BinaryOps.ADD"), single-key objects for variants, base64 for byte blobs
// and strings for non-finite floats. cereal's own std::vector/std::string serializers are
// not used: sequences go through ArrayOut/ArrayIn, so a corrupt length is checked against the
// bytes left before anything is allocated, and a failure records where it happened.
// cereal's json.hpp configures rapidjson (throwing assertions, full-precision parsing): any
// translation unit that includes rapidjson must include cereal/archives/json.hpp first.
#pragma once
#include <cereal/archives/json.hpp>
#include <cereal/archives/portable_binary.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/base64.h"
#include "io/weights_file.h"
#include "ops/ops.h"
#include "shape/symbolic_text.h"
#include "util/blob.h"
#include "util/error.h"

namespace tg::codec {

using JsonOut = cereal::JSONOutputArchive;
using JsonIn = cereal::JSONInputArchive;
using BinOut = cereal::PortableBinaryOutputArchive;
using BinIn = cereal::PortableBinaryInputArchive;
template <class A> constexpr bool kJson = std::is_same_v<A, JsonOut> || std::is_same_v<A, JsonIn>;

// A decoding failure inside the payload: where ("nodes[3].src") and why. Becomes "truncated or
// corrupt <kind> artifact: nodes[3].src: why".
struct Corrupt {
  std::string path;
  std::string reason;
  std::string message() const { return path.empty() ? reason : path.substr(path[0] == '.') + ": " + reason; }
};
[[noreturn]] inline void corrupt(const std::string& why) { throw Corrupt{"", why}; }

inline std::string cereal_reason(const cereal::Exception& e) {
  std::string what = e.what();
  if (what.rfind("Failed to read", 0) == 0) return "unexpected end of data";
  if (what.rfind("rapidjson internal assertion failure", 0) == 0) return "a JSON value has the wrong type";
  if (what.rfind("JSON Parsing failed - provided NVP", 0) == 0) return "missing field";
  if (what.rfind("No more objects in input", 0) == 0) return "missing value";
  return what;
}

// ---------------------------------------------------------------------------------------------
// Input over a string_view without copying; knows how many bytes are left, which bounds every
// length read from a binary payload.
class ViewBuf : public std::streambuf {
public:
  explicit ViewBuf(std::string_view s) {
    char* p = const_cast<char*>(s.data());
    setg(p, p, p + s.size());
  }
  size_t remaining() const { return size_t(egptr() - gptr()); }
  // The next n bytes (n <= remaining()), consumed in place.
  const uint8_t* take(size_t n) {
    char* at = gptr();
    setg(eback(), at + n, egptr());
    return reinterpret_cast<const uint8_t*>(at);
  }
};
inline thread_local ViewBuf* g_binary_input = nullptr;
// Set while decoding a binary artifact whose bytes are shared: byte blobs alias them instead
// of being copied out (100 MB of weights per tool).
inline thread_local std::shared_ptr<const void> g_blob_owner;

inline void check_length(uint64_t n, uint64_t min_bytes_each) {
  if (g_binary_input && n > g_binary_input->remaining() / min_bytes_each)
    corrupt("length " + std::to_string(n) + " exceeds the " + std::to_string(g_binary_input->remaining()) +
            " bytes left");
}

// ---------------------------------------------------------------------------------------------
// Building blocks: a lambda as a JSON object or array node (in binary: just its contents).
template <class F> struct ObjectOut {
  F f;
  template <class A> void save(A& ar) const { f(ar); }
};
template <class F> struct ArrayOut {
  size_t n;
  F f; // f(ar, i) writes element i
  template <class A> void save(A& ar) const {
    ar(cereal::make_size_tag(cereal::size_type(n)));
    for (size_t i = 0; i < n; ++i) f(ar, i);
  }
};
template <class F> struct ObjectIn {
  F f;
  template <class A> void load(A& ar) { f(ar); }
};
template <class F> struct ArrayIn {
  F f; // f(ar) reads one element
  template <class A> void load(A& ar) {
    cereal::size_type n = 0;
    ar(cereal::make_size_tag(n));
    check_length(n, 1);
    for (cereal::size_type i = 0; i < n; ++i) {
      try {
        f(ar);
      } catch (Corrupt& e) {
        e.path = "[" + std::to_string(i) + "]" + e.path;
        throw;
      }
    }
  }
};

// A named field in an object, or (name == nullptr) the next element of an array.
// Runs f, a read of the field `name`; a failure inside gets the name prepended to its path.
template <class F> auto in_field(const char* name, F f) {
  try {
    return f();
  } catch (const cereal::Exception& e) {
    throw Corrupt{name ? "." + std::string(name) : "", cereal_reason(e)};
  } catch (Corrupt& e) {
    if (name) e.path = "." + std::string(name) + e.path;
    throw;
  }
}
// The same for a leaf value whose reader may already have named the field.
template <class F> auto in_leaf(const char* name, F f) {
  try {
    return f();
  } catch (const cereal::Exception& e) {
    throw Corrupt{name ? "." + std::string(name) : "", cereal_reason(e)};
  } catch (Corrupt& e) {
    if (name && e.path.empty()) e.path = "." + std::string(name);
    throw;
  }
}

template <class A, class T> void field(A& ar, const char* name, T&& value) {
  if constexpr (A::is_loading::value) {
    in_field(name, [&] {
      if (name)
        ar(cereal::make_nvp(name, std::forward<T>(value)));
      else
        ar(std::forward<T>(value));
    });
  } else {
    if (name)
      ar(cereal::make_nvp(name, std::forward<T>(value)));
    else
      ar(std::forward<T>(value));
  }
}
template <class A, class F> void put_object(A& ar, const char* name, F f) {
  field(ar, name, ObjectOut<F>{f});
}
template <class A, class F> void put_array(A& ar, const char* name, size_t n, F f) {
  field(ar, name, ArrayOut<F>{n, f});
}
template <class A, class F> void get_object(A& ar, const char* name, F f) {
  ObjectIn<F> in{f};
  field(ar, name, in);
}
template <class A, class F> void get_array(A& ar, const char* name, F f) {
  ArrayIn<F> in{f};
  field(ar, name, in);
}
template <class T, class A> T get(A& ar, const char* name) {
  if constexpr (std::is_same_v<T, bool> && !kJson<A>) {
    uint8_t v = get<uint8_t>(ar, name);
    if (v > 1) corrupt("bool byte " + std::to_string(v) + " is not 0 or 1");
    return v == 1;
  } else {
    T v{};
    field(ar, name, v);
    return v;
  }
}

// JSON: is the named field null? (cereal cannot peek at a value's type; a failed null load
// leaves the archive where it was.)
inline bool json_is_null(JsonIn& ar, const char* name) {
  try {
    std::nullptr_t n;
    ar(cereal::make_nvp(name, n));
    return true;
  } catch (const cereal::Exception&) {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Strings and byte blobs.
// Strings never hold NUL: names become file names and C identifiers, sources go to compilers,
// and cereal's JSON reader would cut a string at its first \u0000.
template <class A> void put_string(A& ar, const char* name, const std::string& s) {
  if (s.find('\0') != std::string::npos)
    fail("ValueError",
         std::string("cannot write the ") + (name ? name : "string") + " field: it holds a NUL character");
  if constexpr (kJson<A>) {
    field(ar, name, s);
  } else {
    ar(cereal::make_size_tag(cereal::size_type(s.size())));
    ar(cereal::binary_data(s.data(), s.size()));
  }
}
template <class A> std::string get_string(A& ar, const char* name) {
  return in_leaf(name, [&] {
    std::string s;
    if constexpr (kJson<A>) {
      field(ar, name, s);
    } else {
      cereal::size_type n = 0;
      ar(cereal::make_size_tag(n));
      check_length(n, 1);
      s.resize(n);
      ar(cereal::binary_data(s.data(), n));
      if (s.find('\0') != std::string::npos) corrupt("a string holds a NUL character");
    }
    return s;
  });
}

// Set while a binary archive writes a Blob's bytes: the output may point at them instead of
// copying them (artifact.cpp, PieceSink), as a Blob's data lives as long as what holds it.
inline thread_local bool g_blob_output = false;

// A byte blob. Binary (version 11 on): a byte saying where the bytes are, then either the bytes
// (kInline: a size and the bytes) or where in a weights file they lie (kInFile: path, offset,
// size, the file's size and modification time; io/weights_file.h). JSON: base64, always inline.
enum class BytesAt : uint8_t { kInline = 0, kInFile = 1 };

template <class A> void put_bytes(A& ar, const char* name, const Blob& data) {
  if constexpr (kJson<A>) {
    field(ar, name, base64_encode(data.data(), data.size()));
  } else {
    if (std::optional<FileSpan> span = weights_span(data.data(), data.size())) {
      ar(uint8_t(BytesAt::kInFile));
      put_string(ar, nullptr, span->path);
      ar(span->offset, span->size, span->file_size, span->mtime_ns);
      return;
    }
    ar(uint8_t(BytesAt::kInline));
    ar(cereal::make_size_tag(cereal::size_type(data.size())));
    g_blob_output = true;
    try {
      ar(cereal::binary_data(data.data(), data.size()));
    } catch (...) {
      g_blob_output = false;
      throw;
    }
    g_blob_output = false;
  }
}
// `may_refer`: the artifact's version has the where-byte (11 on).
template <class A> Blob get_bytes(A& ar, const char* name, bool may_refer) {
  return in_leaf(name, [&]() -> Blob {
    if constexpr (kJson<A>) {
      std::optional<std::vector<uint8_t>> data = base64_decode(get<std::string>(ar, name));
      if (!data) corrupt("invalid base64 data");
      return std::move(*data);
    } else {
      uint8_t at = uint8_t(BytesAt::kInline);
      if (may_refer) ar(at);
      if (at == uint8_t(BytesAt::kInFile)) {
        FileSpan span;
        span.path = get_string(ar, nullptr);
        ar(span.offset, span.size, span.file_size, span.mtime_ns);
        if (span.path.empty() || span.path[0] != '/') corrupt("a weights file's path is not absolute");
        if (span.offset > span.file_size || span.size > span.file_size - span.offset)
          corrupt("bytes " + std::to_string(span.offset) + "+" + std::to_string(span.size) +
                  " lie outside their weights file (" + std::to_string(span.file_size) + " bytes)");
        return weights_blob(span);
      }
      if (at != uint8_t(BytesAt::kInline)) corrupt("unknown data location " + std::to_string(at));
      cereal::size_type n = 0;
      ar(cereal::make_size_tag(n));
      check_length(n, 1);
      if (g_blob_owner && g_binary_input) return Blob(g_blob_owner, g_binary_input->take(n), n);
      std::vector<uint8_t> data(n);
      ar(cereal::binary_data(data.data(), n));
      return std::move(data);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Enums: names in JSON, one byte in binary.
template <class A> void put_dtype(A& ar, const char* name, DType dt) {
  if constexpr (kJson<A>)
    field(ar, name, std::string(py_name(dt)));
  else
    field(ar, name, uint8_t(dt));
}
template <class A> DType get_dtype(A& ar, const char* name) {
  return in_leaf(name, [&] {
    if constexpr (kJson<A>) {
      std::string s = get<std::string>(ar, name);
      std::optional<DType> dt = dtype_from_name(s);
      if (!dt) corrupt("unknown dtype '" + s + "'");
      return *dt;
    } else {
      uint8_t v = get<uint8_t>(ar, name);
      if (v >= kNumDTypes) corrupt("dtype code " + std::to_string(v) + " out of range");
      return DType(v);
    }
  });
}

template <class A> void put_op(A& ar, const char* name, Op op) {
  if constexpr (kJson<A>)
    field(ar, name, std::string(op_name(op)));
  else
    field(ar, name, op_code(op));
}
template <class A> Op get_op(A& ar, const char* name) {
  return in_leaf(name, [&] {
    if constexpr (kJson<A>) {
      std::string s = get<std::string>(ar, name);
      std::optional<Op> op = op_from_name(s);
      if (!op) corrupt("unknown op '" + s + "'");
      return *op;
    } else {
      uint8_t v = get<uint8_t>(ar, name);
      std::optional<Op> op = op_from_code(v);
      if (!op) corrupt("op code " + std::to_string(v) + " out of range");
      return *op;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Integer lists.
template <class A, class T> void put_ints(A& ar, const char* name, const std::vector<T>& xs) {
  put_array(ar, name, xs.size(), [&](auto& a, size_t i) { field(a, nullptr, xs[i]); });
}
template <class T, class A> std::vector<T> get_ints(A& ar, const char* name) {
  std::vector<T> xs;
  get_array(ar, name, [&](auto& a) { xs.push_back(get<T>(a, nullptr)); });
  return xs;
}

// Dimensions (shapes, strides, movement args): ints, where a symbolic one is its
// render_debug() text. JSON: a number or a string; binary: an int64, or INT64_MIN (never a
// legal dimension or stride) followed by the text.
template <class A> void put_dim(A& ar, const char* name, const sint& d) {
  if (d.is_int()) return field(ar, name, int64_t(d));
  if constexpr (!kJson<A>) field(ar, name, int64_t(INT64_MIN));
  put_string(ar, name, d.expr().render_debug());
}
template <class A> void put_dims(A& ar, const char* name, const Shape& xs) {
  put_array(ar, name, xs.size(), [&](auto& a, size_t i) { put_dim(a, nullptr, xs[i]); });
}
template <class A> sint get_symbolic_dim(A& ar, const char* name = nullptr) {
  std::string text = get_string(ar, name);
  try {
    return sint(parse_expr(text));
  } catch (const Error& e) {
    corrupt(e.what());
  }
}
template <class A> sint get_dim(A& ar, const char* name) {
  if constexpr (kJson<A>) {
    int64_t v;
    try {
      if (name)
        ar(cereal::make_nvp(name, v));
      else
        ar(v);
    } catch (const cereal::Exception&) { // not a number: a symbolic dimension's text
      return get_symbolic_dim(ar, name);
    }
    return v;
  } else {
    int64_t v = get<int64_t>(ar, name);
    return v == INT64_MIN ? get_symbolic_dim(ar, name) : sint(v);
  }
}
template <class A> Shape get_dims(A& ar, const char* name) {
  Shape xs;
  get_array(ar, name, [&](auto& a) { xs.push_back(get_dim(a, nullptr)); });
  return xs;
}

// Symbolic variables: [{"name": "i", "min": 1, "max": 10, "value": 3}, ...].
template <class A> void put_vars(A& ar, const std::vector<VarBinding>& vars) {
  put_array(ar, "vars", vars.size(), [&](auto& a, size_t i) {
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "name", vars[i].name);
      field(b, "min", vars[i].min);
      field(b, "max", vars[i].max);
      field(b, "value", vars[i].value);
    });
  });
}
template <class A> std::vector<VarBinding> get_vars(A& ar) {
  std::vector<VarBinding> vars;
  get_array(ar, "vars", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      VarBinding v;
      v.name = get_string(b, "name");
      v.min = get<int64_t>(b, "min");
      v.max = get<int64_t>(b, "max");
      v.value = get<int64_t>(b, "value");
      vars.push_back(std::move(v));
    });
  });
  return vars;
}

// String lists.
template <class A> void put_strings(A& ar, const char* name, const std::vector<std::string>& xs) {
  put_array(ar, name, xs.size(), [&](auto& a, size_t i) { put_string(a, nullptr, xs[i]); });
}
template <class A> std::vector<std::string> get_strings(A& ar, const char* name) {
  std::vector<std::string> xs;
  get_array(ar, name, [&](auto& a) { xs.push_back(get_string(a, nullptr)); });
  return xs;
}

// Scalar: {"kind": "float", "value": 1.5}; non-finite floats as "inf", "-inf", "nan".
constexpr const char* kScalarKinds[] = {"bool", "int", "float"};

template <class A> void put_scalar(A& ar, const char* name, const Scalar& s) {
  put_object(ar, name, [&](auto& a) {
    if constexpr (kJson<A>)
      field(a, "kind", std::string(kScalarKinds[int(s.kind)]));
    else
      field(a, "kind", uint8_t(s.kind));
    if (s.kind == Scalar::Kind::Bool)
      field(a, "value", s.b);
    else if (s.kind == Scalar::Kind::Int)
      field(a, "value", s.i);
    else if constexpr (!kJson<A>)
      field(a, "value", s.f);
    else if (std::isfinite(s.f))
      field(a, "value", s.f);
    else
      field(a, "value", std::string(std::isnan(s.f) ? "nan" : s.f > 0 ? "inf" : "-inf"));
  });
}
template <class A> Scalar get_scalar(A& ar, const char* name) {
  Scalar s;
  get_object(ar, name, [&](auto& a) {
    int kind = -1;
    if constexpr (kJson<A>) {
      std::string k = get<std::string>(a, "kind");
      for (int i = 0; i < 3; ++i)
        if (k == kScalarKinds[i]) kind = i;
      if (kind < 0) corrupt("unknown scalar kind '" + k + "'");
    } else {
      kind = get<uint8_t>(a, "kind");
      if (kind > 2) corrupt("scalar kind code " + std::to_string(kind) + " out of range");
    }
    s.kind = Scalar::Kind(kind);
    if (s.kind == Scalar::Kind::Bool)
      s.b = get<bool>(a, "value");
    else if (s.kind == Scalar::Kind::Int)
      s.i = get<int64_t>(a, "value");
    else if constexpr (!kJson<A>)
      s.f = get<double>(a, "value");
    else {
      try {
        s.f = get<double>(a, "value");
      } catch (const Corrupt&) {
        std::string v = get<std::string>(a, "value");
        if (v == "inf" || v == "+inf")
          s.f = INFINITY;
        else if (v == "-inf")
          s.f = -INFINITY;
        else if (v == "nan")
          s.f = NAN;
        else
          corrupt("float value '" + v + "' is not a number, \"inf\", \"-inf\" or \"nan\"");
      }
    }
  });
  return s;
}

// ---------------------------------------------------------------------------------------------
// View and ShapeTracker.
template <class A> void put_view(A& ar, const char* name, const View& v) {
  put_object(ar, name, [&](auto& a) {
    put_dims(a, "shape", v.shape);
    put_dims(a, "strides", v.strides);
    put_dim(a, "offset", v.offset);
    if constexpr (kJson<A>) {
      if (!v.mask) field(a, "mask", nullptr);
    } else {
      field(a, "has_mask", bool(v.mask));
    }
    if (v.mask)
      put_array(a, "mask", v.mask->size(), [&](auto& b, size_t i) {
        put_array(b, nullptr, 2, [&](auto& c, size_t j) {
          put_dim(c, nullptr, j ? (*v.mask)[i].second : (*v.mask)[i].first);
        });
      });
    field(a, "contiguous", v.contiguous);
  });
}
template <class A> View get_view(A& ar, const char* name) {
  View v;
  get_object(ar, name, [&](auto& a) {
    v.shape = get_dims(a, "shape");
    v.strides = get_dims(a, "strides");
    v.offset = get_dim(a, "offset");
    bool has_mask;
    if constexpr (kJson<A>)
      has_mask = !json_is_null(a, "mask");
    else
      has_mask = get<bool>(a, "has_mask");
    if (has_mask) {
      Mask mask;
      get_array(a, "mask", [&](auto& b) {
        Shape pair = get_dims(b, nullptr); // (ints, or symbolic bounds after a pad by a variable)
        if (pair.size() != 2)
          corrupt("a mask entry needs [begin, end], got " + std::to_string(pair.size()) + " numbers");
        mask.emplace_back(pair[0], pair[1]);
      });
      v.mask = std::move(mask);
    }
    v.contiguous = get<bool>(a, "contiguous");
  });
  return v;
}

template <class A> void put_st(A& ar, const char* name, const ShapeTracker& st) {
  put_object(ar, name, [&](auto& a) {
    put_array(a, "views", st.views.size(), [&](auto& b, size_t i) { put_view(b, nullptr, st.views[i]); });
  });
}
template <class A> ShapeTracker get_st(A& ar, const char* name) {
  ShapeTracker st;
  get_object(ar, name, [&](auto& a) {
    get_array(a, "views", [&](auto& b) { st.views.push_back(get_view(b, nullptr)); });
  });
  return st;
}

// ---------------------------------------------------------------------------------------------
// Variants: JSON null or a single-key object naming the alternative; binary: a tag byte.
template <class A, class F>
void put_variant(A& ar, const char* name, uint8_t tag, const char* key, F payload) {
  if constexpr (kJson<A>) {
    if (!key)
      field(ar, name, nullptr);
    else
      put_object(ar, name, [&](auto& a) { payload(a, key); });
  } else {
    field(ar, nullptr, tag);
    if (key) payload(ar, nullptr);
  }
}
// Calls read(archive, key, tag) for the alternative found; returns false for none (null / tag 0).
template <class A, class F>
bool get_variant(A& ar, const char* name, const char* const* keys, int nkeys, F read) {
  if constexpr (kJson<A>) {
    if (json_is_null(ar, name)) return false;
    get_object(ar, name, [&](auto& a) {
      const char* key = a.getNodeName();
      if (!key) corrupt(std::string("'") + name + "' must be null or an object with one key");
      for (int i = 1; i < nkeys; ++i)
        if (std::strcmp(key, keys[i]) == 0) return read(a, keys[i], i);
      corrupt(std::string("unknown '") + name + "' kind '" + key + "'");
    });
    return true;
  } else {
    uint8_t tag = get<uint8_t>(ar, nullptr);
    if (tag >= nkeys) corrupt(std::string("'") + name + "' tag " + std::to_string(tag) + " out of range");
    if (tag == 0) return false;
    read(ar, nullptr, int(tag));
    return true;
  }
}

} // namespace tg::codec
