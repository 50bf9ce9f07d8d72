// nn/safetensors: round trips of every dtype through our writer and reader, byte-exact
// layout of a known file, and rejection of corrupt headers without crashing.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "nn/safetensors.h"
#include "script/trace.h"
#include "util/error.h"

using namespace tg;
using namespace tg::nn;

namespace {

std::string with_header(const std::string& json, const std::string& data = "") {
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int k = 0; k < 8; k++) out[k] = char((n >> (8 * k)) & 0xff);
  return out + json + data;
}

void expect_bad(const std::string& bytes, const std::string& needle) {
  try {
    parse_safetensors(bytes, "w.safetensors");
    FAIL() << "accepted: " << needle;
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("w.safetensors"), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
  }
}

} // namespace

TEST(Safetensors, RoundTripEveryDtype) {
  const DType all[] = {DType::Bool,     DType::Int8,    DType::UInt8,  DType::Int16,  DType::UInt16,
                       DType::Int32,    DType::UInt32,  DType::Int64,  DType::UInt64, DType::Float16,
                       DType::BFloat16, DType::Float32, DType::Float64};
  SafeFile f;
  std::mt19937 rng(7);
  for (DType dt : all) {
    SafeTensor t;
    t.name = "t_" + std::string(safetensors_dtype_name(dt));
    t.dtype = dt;
    t.shape = {2, 3};
    t.data.resize(6 * size_t(itemsize(dt)));
    for (auto& b : t.data) b = uint8_t(dt == DType::Bool ? rng() & 1 : rng());
    f.tensors.push_back(t);
  }
  SafeTensor s;
  s.name = "scalar";
  s.shape = {};
  s.data = {0, 0, 128, 63};
  f.tensors.push_back(s);
  SafeTensor z;
  z.name = "empty";
  z.shape = {0, 4};
  f.tensors.push_back(z);
  f.metadata = {{"format", "pt"}, {"note", "a \"quoted\" \\ value"}};
  std::string bytes = write_safetensors(f);
  uint64_t n = 0;
  for (int k = 7; k >= 0; k--) n = (n << 8) | uint8_t(bytes[k]);
  EXPECT_EQ(n % 8, 0u);
  SafeFile g = parse_safetensors(bytes, "x");
  ASSERT_EQ(g.tensors.size(), f.tensors.size());
  for (size_t k = 0; k < f.tensors.size(); k++) {
    EXPECT_EQ(g.tensors[k].name, f.tensors[k].name);
    EXPECT_EQ(g.tensors[k].dtype, f.tensors[k].dtype);
    EXPECT_EQ(g.tensors[k].shape, f.tensors[k].shape);
    EXPECT_EQ(g.tensors[k].data, f.tensors[k].data);
  }
  EXPECT_EQ(g.metadata, f.metadata);
  EXPECT_EQ(write_safetensors(g), bytes);
}

TEST(Safetensors, KnownBytes) {
  SafeFile f;
  f.tensors.push_back({"w", DType::Float32, {2}, {0, 0, 128, 63, 0, 0, 0, 64}});
  std::string j = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
  j.append((8 - j.size() % 8) % 8, ' ');
  EXPECT_EQ(write_safetensors(f), with_header(j, std::string("\0\0\x80\x3f\0\0\0\x40", 8)));
}

TEST(Safetensors, ReadsHeaderWrittenByOthers) {
  // Key order, whitespace and an extra data gap as another writer might produce them.
  std::string j =
      R"({ "__metadata__": {"format": "pt"}, "b": {"dtype": "I32", "shape": [1], "data_offsets": [4, 8]},
    "a": {"dtype": "U8", "shape": [], "data_offsets": [0, 1]} })";
  SafeFile g = parse_safetensors(with_header(j, std::string("\x05\0\0\0\x07\0\0\0", 8)), "x");
  ASSERT_EQ(g.tensors.size(), 2u);
  EXPECT_EQ(g.tensors[0].name, "b");
  EXPECT_EQ(g.tensors[0].data, (std::vector<uint8_t>{7, 0, 0, 0}));
  EXPECT_EQ(g.tensors[1].data, (std::vector<uint8_t>{5}));
  EXPECT_EQ(g.metadata.size(), 1u);
}

TEST(Safetensors, RejectsCorruptFiles) {
  expect_bad("", "shorter");
  expect_bad(std::string("\xff\xff\xff\xff\xff\xff\xff\xff{}", 10), "header length");
  expect_bad(with_header("{\"a\":"), "malformed JSON");
  expect_bad(with_header("[1,2]"), "not an object");
  expect_bad(with_header("{}  x"), "malformed JSON");
  expect_bad(with_header(R"({"a":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}})", "x"),
             "unknown dtype 'F8'");
  expect_bad(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", "xx"), "out of range");
  expect_bad(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "xxxx"), "need 8");
  expect_bad(with_header(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "xxxx"),
             "non-negative");
  expect_bad(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", "xxxx"),
             "out of range");
  expect_bad(with_header(R"({"a":{"dtype":"F32","shape":[1]}})", "xxxx"), "needs dtype");
  expect_bad(with_header(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                         R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                         "xxx"),
             "overlap");
  expect_bad(with_header(R"({"__metadata__":{"a":1}})"), "__metadata__");
  expect_bad(
      with_header(R"({"a":{"dtype":"U8","shape":[4611686018427387904,4],"data_offsets":[0,2]}})", "xx"),
      "too large");
}

TEST(Safetensors, GarbageNeverCrashes) {
  std::mt19937 rng(1);
  std::string base =
      write_safetensors(SafeFile{{{"w", DType::Float32, {3}, std::vector<uint8_t>(12, 1)}}, {}});
  for (int it = 0; it < 3000; it++) {
    std::string b = base;
    int flips = 1 + int(rng() % 4);
    for (int k = 0; k < flips; k++) b[rng() % b.size()] = char(rng());
    if (rng() % 4 == 0) b.resize(rng() % b.size());
    try {
      parse_safetensors(b, "g");
    } catch (const Error&) {
    }
  }
}

// ---- the script side: dicts and the args global ----

namespace {

std::string run_tg(const std::string& src, std::vector<std::pair<std::string, std::string>> args = {}) {
  std::ostringstream out;
  ScriptOptions opt;
  opt.print_stream = &out;
  opt.args = std::move(args);
  try {
    run_script(src + "\noutput('_unit', 0)\n", "t.tg", opt);
  } catch (const ScriptError& e) {
    return std::to_string(e.line()) + ": " + e.kind() + ": " + e.message();
  }
  return out.str();
}

} // namespace

TEST(ScriptDict, DisplaysIndexingAndIteration) {
  EXPECT_EQ(
      run_tg(
          "d = {'a': 1, 'b': [2, 3],}\nd['c'] = 4\nd['a'] += 10\nprint(d, len(d), 'b' in d, 'z' not in d)"),
      "{'a': 11, 'b': [2, 3], 'c': 4} 3 True True\n");
  EXPECT_EQ(
      run_tg("d = {'x': 1, 'y': 2}\nprint([k for k in d], d.keys(), d.values(), d.items(), d.get('q', 7))"),
      "['x', 'y'] ['x', 'y'] [1, 2] [('x', 1), ('y', 2)] 7\n");
  EXPECT_EQ(run_tg("print({}, bool({}), bool({'a': 0}))"), "{} False True\n");
}

TEST(ScriptDict, ErrorsFollowPython) {
  EXPECT_EQ(run_tg("d = {'a': 1}\nd['b']"), "2: KeyError: 'b'");
  EXPECT_EQ(run_tg("d = {1: 2}"), "1: TypeError: dict keys must be strings in .tg scripts, not int");
  EXPECT_NE(run_tg("s = {1, 2}").find("set displays are not supported"), std::string::npos);
}

TEST(ScriptDict, ArgsGlobal) {
  EXPECT_EQ(run_tg("print(args)"), "{}\n");
  EXPECT_EQ(run_tg("print(args['w'], len(args))", {{"w", "m.safetensors"}, {"n", "3"}, {"w", "x"}}), "x 2\n");
}
