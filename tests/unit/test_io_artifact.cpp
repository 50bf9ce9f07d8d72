// Artifacts: binary and JSON round trips, kind/version checks, damaged input, validation.
#include <gtest/gtest.h>

// cereal's JSON header first: it configures rapidjson (assertions throw, full-precision
// parsing), and every translation unit must see rapidjson configured the same way.
#include <cereal/archives/json.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "codegen/codegen.h"
#include "device/registry.h"
#include "error_of.h"
#include "io/artifact.h"
#include "io/json_numbers.h"
#include "sample_artifacts.h"
#include "util/error.h"

using namespace tg;
using namespace tg::samples;

namespace {

// --- structural comparison ----------------------------------------------------------------
bool same_op(const LazyOp& a, const LazyOp& b) {
  if (a.op != b.op || !(a.arg == b.arg) || a.src.size() != b.src.size()) return false;
  for (size_t i = 0; i < a.src.size(); ++i)
    if (!same_op(*a.src[i], *b.src[i])) return false;
  return true;
}
bool same_buffers(const std::vector<BufferInfo>& a, const std::vector<BufferInfo>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id || a[i].dtype != b[i].dtype || a[i].size != b[i].size || a[i].role != b[i].role ||
        a[i].name != b[i].name || a[i].data != b[i].data || a[i].device != b[i].device ||
        a[i].dims != b[i].dims)
      return false;
  return true;
}
bool same_named(const std::vector<NamedBuffer>& a, const std::vector<NamedBuffer>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].buffer != b[i].buffer || a[i].shape != b[i].shape ||
        a[i].dtype != b[i].dtype)
      return false;
  return true;
}
void expect_same(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const LazyNode &x = a.nodes[i], &y = b.nodes[i];
    EXPECT_EQ(x.op, y.op) << i;
    EXPECT_EQ(x.dtype, y.dtype) << i;
    EXPECT_EQ(x.shape, y.shape) << i;
    EXPECT_EQ(x.srcs, y.srcs) << i;
    EXPECT_TRUE(x.arg == y.arg) << i;
    EXPECT_TRUE(x.st == y.st) << i;
    EXPECT_EQ(x.name, y.name) << i;
    EXPECT_EQ(x.data, y.data) << i;
    EXPECT_TRUE(x.moves == y.moves) << i;
    EXPECT_EQ(x.device, y.device) << i;
  }
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(a.inputs[i].name, b.inputs[i].name);
    EXPECT_EQ(a.inputs[i].node, b.inputs[i].node);
    EXPECT_EQ(a.inputs[i].requires_grad, b.inputs[i].requires_grad);
  }
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    EXPECT_EQ(a.outputs[i].name, b.outputs[i].name);
    EXPECT_EQ(a.outputs[i].node, b.outputs[i].node);
  }
}
void expect_same(const Schedule& a, const Schedule& b) {
  EXPECT_TRUE(same_buffers(a.buffers, b.buffers));
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    EXPECT_EQ(a.kernels[k].bufs, b.kernels[k].bufs);
    EXPECT_EQ(a.kernels[k].device, b.kernels[k].device);
    ASSERT_EQ(a.kernels[k].ast.size(), b.kernels[k].ast.size());
    for (size_t r = 0; r < a.kernels[k].ast.size(); ++r)
      EXPECT_TRUE(same_op(*a.kernels[k].ast[r], *b.kernels[k].ast[r])) << k << " " << r;
  }
  EXPECT_TRUE(same_named(a.inputs, b.inputs));
  EXPECT_TRUE(same_named(a.outputs, b.outputs));
}
void expect_same(const Program& a, const Program& b) {
  EXPECT_EQ(a.device, b.device);
  EXPECT_TRUE(same_buffers(a.buffers, b.buffers));
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    EXPECT_EQ(a.kernels[k].name, b.kernels[k].name);
    EXPECT_EQ(a.kernels[k].src, b.kernels[k].src);
    EXPECT_EQ(a.kernels[k].bufs, b.kernels[k].bufs);
    EXPECT_EQ(a.kernels[k].extents, b.kernels[k].extents);
    EXPECT_EQ(a.kernels[k].global_size, b.kernels[k].global_size);
    EXPECT_EQ(a.kernels[k].local_size, b.kernels[k].local_size);
    EXPECT_EQ(a.kernels[k].custom, b.kernels[k].custom);
    EXPECT_EQ(a.kernels[k].seed, b.kernels[k].seed);
    EXPECT_EQ(a.kernels[k].device, b.kernels[k].device);
  }
  EXPECT_TRUE(same_named(a.inputs, b.inputs));
  EXPECT_TRUE(same_named(a.outputs, b.outputs));
}

std::string written(ArtifactKind kind, bool json) {
  switch (kind) {
  case ArtifactKind::Graph:
    return write_graph(sample_graph(), json);
  case ArtifactKind::Schedule:
    return write_schedule(sample_schedule(), json);
  default:
    return write_program(sample_program(), json);
  }
}
void read_as(ArtifactKind kind, std::string_view bytes) {
  switch (kind) {
  case ArtifactKind::Graph:
    read_graph(bytes);
    break;
  case ArtifactKind::Schedule:
    read_schedule(bytes);
    break;
  default:
    read_program(bytes);
    break;
  }
}
const ArtifactKind kKinds[] = {ArtifactKind::Graph, ArtifactKind::Schedule, ArtifactKind::Program};

rapidjson::Document parse_json(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  EXPECT_FALSE(doc.HasParseError());
  return doc;
}

} // namespace

// --- round trips --------------------------------------------------------------------------
TEST(Artifact, graph_round_trips_in_binary) {
  expect_same(sample_graph(), read_graph(write_graph(sample_graph())));
}
// A constant of 64 KiB or more is a piece of its own that points at its data: the tools write
// a model's weights from where they were read instead of copying them into the artifact first.
TEST(Artifact, large_constants_are_written_from_where_they_lie) {
  Graph g = sample_graph();
  std::vector<uint8_t> big(size_t(1) << 18);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 7);
  g.nodes[1].data = big;
  g.nodes[1].shape = {int64_t(big.size() / 4)};
  g.nodes[1].st = contiguous(g.nodes[1].shape);
  ArtifactBytes out = graph_bytes(g);
  ASSERT_GE(out.pieces.size(), 3u);
  auto at = std::find_if(out.pieces.begin(), out.pieces.end(), [&](std::string_view p) {
    return static_cast<const void*>(p.data()) == static_cast<const void*>(g.nodes[1].data.data());
  });
  ASSERT_NE(at, out.pieces.end());
  EXPECT_EQ(at->size(), big.size());
  std::string whole = out.join();
  EXPECT_EQ(whole.size(), out.size());
  EXPECT_EQ(whole, write_graph(g));
  expect_same(g, read_graph(whole));
  // small constants stay in the artifact's own bytes: one piece
  EXPECT_EQ(graph_bytes(sample_graph()).pieces.size(), 1u);
}

TEST(Artifact, graph_round_trips_in_json) {
  expect_same(sample_graph(), read_graph(write_graph(sample_graph(), true)));
}
TEST(Artifact, schedule_round_trips_in_binary) {
  expect_same(sample_schedule(), read_schedule(write_schedule(sample_schedule())));
}
TEST(Artifact, schedule_round_trips_in_json) {
  expect_same(sample_schedule(), read_schedule(write_schedule(sample_schedule(), true)));
}
TEST(Artifact, program_round_trips_in_binary) {
  expect_same(sample_program(), read_program(write_program(sample_program())));
}
TEST(Artifact, program_round_trips_in_json) {
  expect_same(sample_program(), read_program(write_program(sample_program(), true)));
}
TEST(Artifact, json_and_binary_carry_the_same_content) {
  for (ArtifactKind kind : kKinds) {
    std::string binary = written(kind, false), json = written(kind, true);
    if (kind == ArtifactKind::Graph) {
      EXPECT_EQ(write_graph(read_graph(json)), binary);
    } else if (kind == ArtifactKind::Schedule) {
      EXPECT_EQ(write_schedule(read_schedule(json)), binary);
    } else {
      EXPECT_EQ(write_program(read_program(binary), true), json);
    }
  }
}
TEST(Artifact, writing_is_deterministic) {
  for (ArtifactKind kind : kKinds)
    for (bool json : {false, true}) EXPECT_EQ(written(kind, json), written(kind, json));
}
TEST(Artifact, shared_ast_subtrees_stay_shared) {
  Schedule s = read_schedule(write_schedule(sample_schedule()));
  const LazyOp& mul = *s.kernels[0].ast[0]->src[0]->src[0]->src[0];
  ASSERT_EQ(mul.op, Op::MUL);
  EXPECT_EQ(mul.src[0].get(), mul.src[1].get());
}
TEST(Artifact, empty_artifacts_round_trip) {
  for (bool json : {false, true}) {
    EXPECT_TRUE(read_graph(write_graph(Graph{}, json)).nodes.empty());
    EXPECT_TRUE(read_schedule(write_schedule(Schedule{}, json)).kernels.empty());
    Program p;
    p.device = "CLANG";
    EXPECT_EQ(read_program(write_program(p, json)).device, "CLANG");
  }
}
TEST(Artifact, special_floats_survive_both_forms) {
  for (bool json : {false, true}) {
    Graph g = read_graph(write_graph(sample_graph(), json));
    EXPECT_EQ(std::get<Scalar>(g.nodes[2].arg).f, INFINITY);
    EXPECT_EQ(std::get<Scalar>(g.nodes[10].arg).f, -INFINITY);
    EXPECT_TRUE(std::isnan(std::get<Scalar>(g.nodes[11].arg).f));
    EXPECT_EQ(std::get<Scalar>(g.nodes[12].arg).f, 0.1);
    EXPECT_EQ(std::get<Scalar>(g.nodes[13].arg).i, INT64_MIN);
  }
}

// --- the JSON form ------------------------------------------------------------------------
TEST(ArtifactJson, graph_has_format_version_and_readable_fields) {
  rapidjson::Document doc = parse_json(write_graph(sample_graph(), true));
  EXPECT_STREQ(doc["format"].GetString(), "tg-graph");
  EXPECT_EQ(doc["version"].GetInt(), int(kArtifactVersion));
  const auto& nodes = doc["nodes"];
  ASSERT_TRUE(nodes.IsArray());
  EXPECT_STREQ(nodes[0]["op"].GetString(), "LoadOps.EMPTY");
  EXPECT_STREQ(nodes[0]["dtype"].GetString(), "float32");
  EXPECT_STREQ(nodes[0]["name"].GetString(), "x");
  EXPECT_TRUE(nodes[0]["arg"].IsNull());
  EXPECT_STREQ(nodes[1]["data"].GetString(), "AQAAAAIAAAD/////");
  EXPECT_STREQ(nodes[2]["arg"]["const"]["kind"].GetString(), "float");
  EXPECT_STREQ(nodes[2]["arg"]["const"]["value"].GetString(), "inf");
  EXPECT_STREQ(nodes[11]["arg"]["const"]["value"].GetString(), "nan");
  EXPECT_EQ(nodes[8]["arg"]["const"]["value"].GetInt64(), -5);
  EXPECT_TRUE(nodes[9]["arg"]["const"]["value"].GetBool());
  const auto& views = nodes[3]["st"]["views"];
  ASSERT_EQ(views.Size(), 2u);
  EXPECT_TRUE(views[0]["mask"].IsNull());
  EXPECT_TRUE(views[0]["contiguous"].GetBool());
  EXPECT_EQ(views[1]["offset"].GetInt(), 2);
  EXPECT_EQ(views[1]["mask"][1][0].GetInt(), 1);
  EXPECT_EQ(views[1]["mask"][1][1].GetInt(), 3);
  EXPECT_EQ(nodes[5]["src"][1].GetInt(), 4);
  EXPECT_STREQ(nodes[5]["op"].GetString(), "BinaryOps.ADD");
  EXPECT_EQ(nodes[6]["arg"]["axes"][0].GetInt(), 0);
  EXPECT_STREQ(nodes[7]["arg"]["dtype"].GetString(), "float16");
  EXPECT_TRUE(doc["inputs"][0]["requires_grad"].GetBool());
  EXPECT_STREQ(doc["outputs"][1]["name"].GetString(), "lit");
}
TEST(ArtifactJson, schedule_has_one_kernels_entry_per_kernel) {
  rapidjson::Document doc = parse_json(write_schedule(sample_schedule(), true));
  EXPECT_STREQ(doc["format"].GetString(), "tg-schedule");
  ASSERT_TRUE(doc["kernels"].IsArray());
  ASSERT_EQ(doc["kernels"].Size(), 2u);
  const auto& k0 = doc["kernels"][0];
  EXPECT_EQ(k0["ast"].Size(), 6u); // the shared LOAD is listed once
  EXPECT_EQ(k0["roots"].Size(), 1u);
  EXPECT_STREQ(k0["ast"][k0["roots"][0].GetUint()]["op"].GetString(), "BufferOps.STORE");
  EXPECT_EQ(k0["ast"][0]["arg"]["buffer"]["idx"].GetInt(), 1);
  EXPECT_EQ(doc["kernels"][1]["roots"].Size(), 2u);
  EXPECT_STREQ(doc["buffers"][2]["role"].GetString(), "constant");
  EXPECT_STREQ(doc["buffers"][2]["data"].GetString(), "AQAAAAIAAAADAAAA");
  EXPECT_STREQ(doc["outputs"][0]["name"].GetString(), "out");
}
TEST(ArtifactJson, program_kernels_have_name_src_bufs_and_sizes) {
  rapidjson::Document doc = parse_json(write_program(sample_program(), true));
  EXPECT_STREQ(doc["format"].GetString(), "tg-program");
  EXPECT_STREQ(doc["device"].GetString(), "CLANG");
  const auto& k = doc["kernels"][0];
  EXPECT_STREQ(k["name"].GetString(), "r_4_8");
  EXPECT_EQ(std::string(k["src"].GetString()), sample_program().kernels[0].src);
  EXPECT_EQ(k["bufs"].Size(), 2u);
  EXPECT_EQ(k["global_size"][0].GetInt(), 4);
  EXPECT_EQ(k["local_size"].Size(), 3u);
}
TEST(ArtifactJson, has_no_cereal_bookkeeping_and_no_bare_nan) {
  for (ArtifactKind kind : kKinds) {
    std::string json = written(kind, true);
    EXPECT_EQ(json.find("polymorphic_id"), std::string::npos);
    EXPECT_EQ(json.find("ptr_wrapper"), std::string::npos);
    EXPECT_EQ(json.find("value0"), std::string::npos);
    EXPECT_EQ(json.find("NaN"), std::string::npos);
    EXPECT_EQ(json.find("Infinity"), std::string::npos);
  }
}
TEST(ArtifactJson, fields_may_come_in_any_order) {
  std::string json =
      R"({"outputs": [{"node": 0, "name": "y"}], "version": 8, "vars": [], "inputs": [], "assigns": [], "states": [],
    "nodes": [{"st": {"views": [{"shape": [2], "strides": [1], "offset": 0, "mask": [[0, 1]],
      "contiguous": false}]}, "arg": {"const": {"value": 2, "kind": "float"}}, "op": "LoadOps.CONST",
      "dtype": "float16", "shape": [2], "src": [], "name": "", "data": "", "forced_realize": false, "moves": []}], "format": "tg-graph"})";
  Graph g = read_graph(json);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].dtype, DType::Float16);
  EXPECT_EQ(std::get<Scalar>(g.nodes[0].arg).f, 2.0);
  EXPECT_EQ(g.outputs[0].name, "y");
}
TEST(ArtifactJson, a_wrong_type_names_the_field) {
  std::string json = write_graph(sample_graph(), true);
  size_t at = json.find("\"shape\": [");
  json.replace(at, 10, "\"shape\": [true, ");
  EXPECT_EQ(message_of([&] { read_graph(json); }),
            "truncated or corrupt graph artifact: nodes[0].shape[0]: a JSON value has the wrong type");
}
TEST(ArtifactJson, a_dimension_string_must_be_a_symbolic_expression) {
  std::string json = write_graph(sample_graph(), true);
  size_t at = json.find("\"shape\": [");
  json.replace(at, 10, "\"shape\": [\"four\", ");
  EXPECT_EQ(message_of([&] { read_graph(json); }),
            "truncated or corrupt graph artifact: nodes[0].shape[0]: bad symbolic expression 'four' at 4: a "
            "variable needs its bounds, as name[min-max]");
}
TEST(ArtifactJson, a_missing_field_is_named) {
  std::string json = write_program(sample_program(), true);
  size_t at = json.find("\"local_size\"");
  json.replace(at, 12, "\"local_sizes\"");
  EXPECT_EQ(message_of([&] { read_program(json); }),
            "truncated or corrupt program artifact: kernels[0].local_size: missing field");
}
TEST(ArtifactJson, unknown_names_are_reported) {
  std::string json = write_graph(sample_graph(), true);
  size_t at = json.find("\"float32\"");
  json.replace(at, 9, "\"float33\"");
  EXPECT_EQ(message_of([&] { read_graph(json); }),
            "truncated or corrupt graph artifact: nodes[0].dtype: unknown dtype 'float33'");
  json = write_graph(sample_graph(), true);
  at = json.find("\"BinaryOps.ADD\"");
  json.replace(at, 15, "\"BinaryOps.FOO\"");
  EXPECT_EQ(message_of([&] { read_graph(json); }),
            "truncated or corrupt graph artifact: nodes[5].op: unknown op 'BinaryOps.FOO'");
}
TEST(ArtifactJson, bad_base64_is_reported) {
  std::string json = write_graph(sample_graph(), true);
  size_t at = json.find("AQAAAAIAAAD/////");
  json.replace(at, 16, "AQAAAAIAAAD///*/");
  EXPECT_EQ(message_of([&] { read_graph(json); }),
            "truncated or corrupt graph artifact: nodes[1].data: invalid base64 data");
}

// --- kinds, versions, damage ----------------------------------------------------------------
TEST(ArtifactKinds, detect_finds_each_kind_in_both_forms) {
  for (ArtifactKind kind : kKinds)
    for (bool json : {false, true}) EXPECT_EQ(detect_artifact(written(kind, json)), kind);
  EXPECT_EQ(detect_artifact(""), ArtifactKind::Unknown);
  EXPECT_EQ(detect_artifact("hello"), ArtifactKind::Unknown);
  EXPECT_EQ(detect_artifact("{\"a\": 1}"), ArtifactKind::Unknown);
  EXPECT_EQ(detect_artifact("[1, 2]"), ArtifactKind::Unknown);
}
TEST(ArtifactKinds, reading_the_wrong_kind_says_what_it_got) {
  const char* names[] = {"", "a graph (from tg-trace)", "a schedule (from tg-schedule)",
                         "a program (from tg-codegen)"};
  for (ArtifactKind want : kKinds)
    for (ArtifactKind got : kKinds)
      for (bool json : {false, true}) {
        if (want == got) continue;
        EXPECT_EQ(message_of([&] { read_as(want, written(got, json)); }),
                  std::string("expected ") + names[int(want)] + ", got " + names[int(got)]);
      }
}
TEST(ArtifactKinds, garbage_is_not_a_tg_artifact) {
  EXPECT_EQ(message_of([] { read_graph("hello world, this is not an artifact"); }),
            "input is not a tg artifact (bad magic)");
  EXPECT_EQ(
      message_of([] { read_schedule(std::string("\x93NUMPY\x01\x00", 8)); }),
      "input is a .npy array (tg-run binds one with --in NAME=FILE.npy), not a schedule (from tg-schedule)");
  EXPECT_EQ(message_of([] { read_graph("x = input(\"x\", (4,))\noutput(\"y\", x + 1)\n"); }),
            "input is a tg script (tg-trace reads it: tg-trace FILE.tg | tg-schedule), not a graph (from "
            "tg-trace)");
  EXPECT_EQ(message_of([] { read_program("TGART\x09xxxxxxxx"); }), "input is not a tg artifact (bad magic)");
  EXPECT_EQ(message_of([] { read_graph("{\"nodes\": []}"); }),
            "input is not a tg artifact (JSON without a tg \"format\" field)");
  EXPECT_EQ(message_of([] { read_graph(""); }), "input is empty (expected a graph (from tg-trace))");
}
TEST(ArtifactKinds, a_newer_version_is_refused) {
  std::string binary = write_graph(sample_graph());
  const std::string now = std::to_string(kArtifactVersion);
  binary[6] = char(kArtifactVersion + 1);
  EXPECT_EQ(message_of([&] { read_graph(binary); }), "graph artifact version " +
                                                         std::to_string(kArtifactVersion + 1) +
                                                         " is newer than this tool (" + now + ")");
  std::string json = write_schedule(sample_schedule(), true);
  const std::string next = std::to_string(kArtifactVersion + 1);
  size_t at = json.find("\"version\": " + now);
  json.replace(at, 11 + now.size(), "\"version\": " + next);
  EXPECT_EQ(message_of([&] { read_schedule(json); }),
            "schedule artifact version " + next + " is newer than this tool (" + now + ")");
}
TEST(ArtifactKinds, an_older_version_is_refused_with_a_hint) {
  std::string binary = write_program(sample_program());
  binary[6] = 1;
  EXPECT_EQ(message_of([&] { read_program(binary); }),
            "program artifact version 1 is older than this tool reads (" +
                std::to_string(kOldestArtifactVersion) + "); run the earlier tools again");
}
// Version 8 had no devices: its artifacts are still read, everything on the default device.
TEST(ArtifactKinds, a_version_8_artifact_reads_with_default_devices) {
  for (ArtifactKind kind : kKinds) {
    Graph g = sample_graph(); // less its copy between devices, which version 8 had no way to say
    g.nodes.pop_back();
    g.outputs.pop_back();
    rapidjson::Document doc =
        parse_json(kind == ArtifactKind::Graph ? write_graph(g, true) : written(kind, true));
    doc["version"].SetInt(8);
    std::function<void(rapidjson::Value&)> strip = [&](rapidjson::Value& v) {
      if (v.IsObject()) {
        v.RemoveMember("device");
        for (auto& m : v.GetObject()) strip(m.value);
      } else if (v.IsArray()) {
        for (auto& x : v.GetArray()) strip(x);
      }
    };
    rapidjson::Value* body = &doc;
    strip(*body);
    if (kind == ArtifactKind::Program) doc.AddMember("device", "CLANG", doc.GetAllocator());
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> w(out);
    doc.Accept(w);
    std::string text = out.GetString();
    if (kind == ArtifactKind::Graph) {
      Graph g = read_graph(text);
      for (const LazyNode& n : g.nodes) EXPECT_EQ(n.device, "");
    } else if (kind == ArtifactKind::Schedule) {
      Schedule s = read_schedule(text);
      for (const ScheduleKernel& k : s.kernels) EXPECT_EQ(k.device, "");
    } else {
      Program p = read_program(text);
      for (const BufferInfo& b : p.buffers) EXPECT_EQ(b.device, "");
    }
    // and a version 9 artifact without them names the missing field
    doc["version"].SetInt(9);
    rapidjson::StringBuffer out9;
    rapidjson::Writer<rapidjson::StringBuffer> w9(out9);
    doc.Accept(w9);
    EXPECT_NE(message_of([&] { read_as(kind, out9.GetString()); }).find("device"), std::string::npos);
  }
}
TEST(ArtifactDamage, every_truncation_of_a_binary_artifact_is_an_error) {
  for (ArtifactKind kind : kKinds) {
    std::string full = written(kind, false);
    for (size_t n = 0; n < full.size(); ++n) {
      std::string message = message_of([&] { read_as(kind, std::string_view(full).substr(0, n)); });
      EXPECT_NE(message, "(no error)") << n;
      if (n > 6) {
        EXPECT_EQ(message.rfind("truncated or corrupt ", 0), 0u) << n << ": " << message;
      }
    }
  }
}
TEST(ArtifactDamage, every_truncation_of_a_json_artifact_is_an_error) {
  for (ArtifactKind kind : kKinds) {
    std::string full = written(kind, true);
    while (!full.empty() && (full.back() == '\n' || full.back() == '}')) full.pop_back();
    for (size_t n = 0; n < full.size(); n += 3)
      EXPECT_NE(message_of([&] { read_as(kind, std::string_view(full).substr(0, n)); }), "(no error)") << n;
  }
}
TEST(ArtifactDamage, flipped_bytes_never_crash) {
  for (ArtifactKind kind : kKinds) {
    std::string full = written(kind, false);
    for (size_t i = 0; i < full.size(); ++i)
      for (uint8_t mask : {0x01, 0x80, 0xff}) {
        std::string damaged = full;
        damaged[i] = char(damaged[i] ^ mask);
        try {
          read_as(kind, damaged);
        } catch (const Error&) {
        }
      }
  }
}
TEST(ArtifactDamage, a_huge_length_is_refused_before_allocating) {
  std::string full = write_graph(Graph{});
  // payload: endianness byte, then the node count as a uint64
  std::string damaged =
      full.substr(0, 11) + std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + full.substr(19);
  EXPECT_EQ(
      message_of([&] { read_graph(damaged); }),
      "truncated or corrupt graph artifact: nodes: length 9223372036854775807 exceeds the 40 bytes left");
}
TEST(ArtifactDamage, trailing_bytes_are_refused) {
  EXPECT_EQ(message_of([] { read_program(write_program(sample_program()) + "xx"); }),
            "truncated or corrupt program artifact: 2 unexpected bytes after the end");
}

// --- validation -----------------------------------------------------------------------------
TEST(ArtifactValidation, graph_sources_must_come_first) {
  Graph g = sample_graph();
  g.nodes[5].srcs = {3, 6};
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g)); }),
            "invalid graph artifact: node 5 (BinaryOps.ADD): source 6 is not an earlier node");
}
TEST(ArtifactValidation, graph_outputs_must_exist) {
  Graph g = sample_graph();
  g.outputs[0].node = 999;
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g, true)); }),
            "invalid graph artifact: output 'out': node 999 does not exist");
}
TEST(ArtifactValidation, graph_data_must_match_the_shape) {
  Graph g = sample_graph();
  std::vector<uint8_t> bytes = g.nodes[1].data.to_vector();
  bytes.pop_back();
  g.nodes[1].data = std::move(bytes);
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g)); }),
            "invalid graph artifact: node 1 (LoadOps.COPY): data has 11 bytes, expected 12");
}
TEST(ArtifactValidation, graph_shapes_are_not_negative) {
  Graph g = sample_graph();
  g.nodes[0].shape = {4, -8};
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g)); }),
            "invalid graph artifact: node 0 (LoadOps.EMPTY): negative dimension in shape (4, -8)");
}
TEST(ArtifactValidation, graph_masks_fit_their_view) {
  Graph g = sample_graph();
  (*g.nodes[3].st.views[1].mask)[1] = {1, 5};
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g)); }),
            "invalid graph artifact: node 3 (LoadOps.VIEW): mask [1, 5) does not fit dimension 1 of size 4");
}
TEST(ArtifactValidation, graph_arity_is_checked) {
  Graph g = sample_graph();
  g.nodes[5].srcs = {3};
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g)); }),
            "invalid graph artifact: node 5 (BinaryOps.ADD): needs 2 sources, has 1");
}
TEST(ArtifactValidation, graph_reduce_axes_are_in_range) {
  Graph g = sample_graph();
  g.nodes[6].arg = Axes{2};
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g)); }),
            "invalid graph artifact: node 6 (ReduceOps.SUM): reduce axis 2 out of range for 2 dimensions");
}
TEST(ArtifactValidation, graph_views_stay_inside_their_base) {
  Graph g = sample_graph();
  g.nodes[4].st.views[0].strides = {1, 0};
  EXPECT_EQ(message_of([&] { read_graph(write_graph(g)); }),
            "invalid graph artifact: node 4 (LoadOps.VIEW): view reads elements 0..7 of a buffer of 1");
}
TEST(ArtifactValidation, schedule_buffer_index_is_in_range) {
  Schedule s = sample_schedule();
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, mem(2, DType::Float32, contiguous({1, 4})));
  s.kernels[0].ast = {LazyOp::make(Op::STORE, {load}, mem(0, DType::Float32, contiguous({1, 4})))};
  EXPECT_EQ(
      message_of([&] { read_schedule(write_schedule(s)); }),
      "invalid schedule artifact: kernel 0 BufferOps.LOAD: buffer index 2 out of range for 2 kernel buffers");
}
TEST(ArtifactValidation, schedule_views_stay_inside_their_buffer) {
  Schedule s = sample_schedule();
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, st_of({view({1, 4}, {0, 11})})));
  s.kernels[0].ast = {LazyOp::make(Op::STORE, {load}, mem(0, DType::Float32, contiguous({1, 4})))};
  EXPECT_EQ(
      message_of([&] { read_schedule(write_schedule(s, true)); }),
      "invalid schedule artifact: kernel 0 BufferOps.LOAD: view reads elements 0..33 of a buffer of 32");
  LazyOpPtr good = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, contiguous({1, 4})));
  s.kernels[0].ast = {
      LazyOp::make(Op::STORE, {good}, mem(0, DType::Float32, st_of({view({1, 4}, {0, 1}, 1)})))};
  EXPECT_EQ(message_of([&] { read_schedule(write_schedule(s)); }),
            "invalid schedule artifact: kernel 0 BufferOps.STORE: view reads elements 1..4 of a buffer of 4");
}
TEST(ArtifactValidation, schedule_kernel_buffers_exist) {
  Schedule s = sample_schedule();
  s.kernels[1].bufs[2] = 42;
  EXPECT_EQ(message_of([&] { read_schedule(write_schedule(s)); }),
            "invalid schedule artifact: kernel 1: buffer 42 does not exist");
}
TEST(ArtifactValidation, schedule_constant_data_matches_its_size) {
  Schedule s = sample_schedule();
  s.buffers[2].size = 4;
  EXPECT_EQ(message_of([&] { read_schedule(write_schedule(s)); }),
            "invalid schedule artifact: buffer 2: constant data has 12 bytes, expected 16");
}
TEST(ArtifactValidation, schedule_loads_need_a_buffer_argument) {
  Schedule s = sample_schedule();
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, Axes{0});
  s.kernels[0].ast = {LazyOp::make(Op::STORE, {load}, mem(0, DType::Float32, contiguous({1, 4})))};
  EXPECT_EQ(message_of([&] { read_schedule(write_schedule(s)); }),
            "invalid schedule artifact: kernel 0 BufferOps.LOAD: needs a buffer argument");
}
TEST(ArtifactValidation, schedule_elementwise_sources_agree_in_shape) {
  Schedule s = sample_schedule();
  LazyOpPtr a = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, contiguous({1, 4})));
  LazyOpPtr b = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, contiguous({4, 1})));
  s.kernels[0].ast = {
      LazyOp::make(Op::STORE, {LazyOp::make(Op::ADD, {a, b})}, mem(0, DType::Float32, contiguous({1, 4})))};
  EXPECT_EQ(
      message_of([&] { read_schedule(write_schedule(s)); }),
      "invalid schedule artifact: kernel 0 BinaryOps.ADD: sources have different shapes (1, 4) and (4, 1)");
}
TEST(ArtifactValidation, schedule_named_buffers_match_their_buffer) {
  Schedule s = sample_schedule();
  s.outputs[0].shape = {2, 4};
  EXPECT_EQ(message_of([&] { read_schedule(write_schedule(s)); }),
            "invalid schedule artifact: output 'out': shape (2, 4) does not match buffer size 4");
  s = sample_schedule();
  s.inputs.push_back(s.inputs[0]);
  EXPECT_EQ(message_of([&] { read_schedule(write_schedule(s)); }),
            "invalid schedule artifact: input 'x': duplicate name");
}
TEST(ArtifactValidation, schedule_ast_source_indices_are_checked_in_json) {
  std::string json = write_schedule(sample_schedule(), true);
  size_t at = json.find("\"src\"", json.find("\"BinaryOps.MUL\""));
  at = json.find_first_of("0123456789", at);
  ASSERT_EQ(json[at], '0');
  json[at] = '9';
  EXPECT_EQ(message_of([&] { read_schedule(json); }),
            "truncated or corrupt schedule artifact: kernels[0].ast[1]: source 9 is not an earlier node");
}
// rapidjson's full-precision parser read past its powers-of-ten table on such numbers (fuzzing).
TEST(ArtifactJson, numbers_below_the_double_range_are_refused_before_parsing) {
  std::string json = write_graph(sample_graph(), true);
  size_t at = json.find("\"shape\": [");
  json.insert(at + 10, "1.66666660000000000000333e-332, ");
  EXPECT_EQ(message_of([&] { read_graph(json); }),
            "truncated or corrupt graph artifact: number at byte " + std::to_string(at + 10) +
                " is outside the range of doubles (or a 0 with an exponent)");
}
TEST(JsonNumbers, values_outside_the_double_range_and_zeros_with_exponents_are_unreadable) {
  using tg::io::first_unreadable_number;
  for (const char* ok :
       {"[0]", "[-0.0]", "[4.9406564584124654e-324]", "[1e308]", "[12.5e-324]", "[0.00123e-320]",
        "[\"1e-999\"]", "{\"a\\\"1e-999\": 1}", "[1.2345678901234567e-323]", "[-1.7976931348623157e308]"})
    EXPECT_EQ(first_unreadable_number(ok), std::nullopt) << ok;
  EXPECT_EQ(first_unreadable_number("[1, 0.9e-324]"), 4u);
  EXPECT_EQ(first_unreadable_number("[1.2345678901234567e-340]"), 1u);
  EXPECT_EQ(first_unreadable_number("[0.0001e-321]"), 1u);
  EXPECT_EQ(first_unreadable_number("[0e46]"), 1u);
  EXPECT_EQ(first_unreadable_number("[1.7976931348623158e308]"), 1u);
  EXPECT_EQ(first_unreadable_number("[45400166301107534500014697043042.48266e307]"), 1u);
  EXPECT_EQ(first_unreadable_number("[-0.0e-296]"), 1u);
  EXPECT_EQ(first_unreadable_number("[1e-0000000000000000000000000000000000332]"), 1u);
}
TEST(ArtifactValidation, program_kernel_names_are_identifiers) {
  Program p = sample_program();
  p.kernels[0].name = "r 4; system";
  EXPECT_EQ(message_of([&] { read_program(write_program(p)); }),
            "invalid program artifact: kernel 0 'r 4; system': kernel name is not an identifier");
}
TEST(ArtifactValidation, program_launch_sizes_are_positive) {
  Program p = sample_program();
  p.kernels[1].global_size = {2, 0};
  EXPECT_EQ(message_of([&] { read_program(write_program(p)); }),
            "invalid program artifact: kernel 1 'E_4n1': global_size (2, 0) has a bad dimension");
  p = sample_program();
  p.kernels[1].local_size = {};
  EXPECT_EQ(message_of([&] { read_program(write_program(p)); }),
            "invalid program artifact: kernel 1 'E_4n1': local_size needs 1 to 3 dimensions");
}
// A buffer table shrunk below what the kernels touch would let them run out of bounds.
TEST(ArtifactValidation, program_buffers_hold_what_their_kernels_touch) {
  Program p = sample_program();
  p.buffers[1].size = 31; // x: 32 floats read by kernel 0
  p.inputs[0].shape = {31};
  EXPECT_EQ(message_of([&] { read_program(write_program(p, true)); }),
            "invalid program artifact: kernel 0 'r_4_8': touches 128 bytes of buffer 1, which holds 124");
  p = sample_program();
  p.buffers[3].dtype = DType::Int8; // an intermediate read as 4 halfs (8 bytes)
  EXPECT_EQ(message_of([&] { read_program(write_program(p)); }),
            "invalid program artifact: kernel 1 'E_4n1': touches 8 bytes of buffer 3, which holds 4");
  p = sample_program();
  p.kernels[1].extents.pop_back();
  EXPECT_EQ(message_of([&] { read_program(write_program(p)); }),
            "invalid program artifact: kernel 1 'E_4n1': 3 extents for 4 buffers");
}
// Strides chosen to overflow int64 when the view's reach is computed.
TEST(ArtifactValidation, schedule_hostile_strides_are_refused) {
  Schedule s = sample_schedule();
  LazyOpPtr load =
      LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, st_of({view({1, 4}, {0, INT64_MAX / 2})})));
  s.kernels[0].ast = {LazyOp::make(Op::STORE, {load}, mem(0, DType::Float32, contiguous({1, 4})))};
  EXPECT_EQ(message_of([&] { read_schedule(write_schedule(s)); }),
            "invalid schedule artifact: kernel 0 BufferOps.LOAD: stride out of range");
}
// tg-codegen writes the extents from each buffer's views.
TEST(ArtifactValidation, codegen_records_each_buffers_extent) {
  Schedule s = sample_schedule();
  // out[1, 4] = sum over axis 0 of x[8, 4] read transposed from 32 floats; x's buffer is larger.
  s.buffers[1].size = 40;
  s.inputs[0].shape = {40};
  LazyOpPtr load = LazyOp::make(Op::LOAD, {}, mem(1, DType::Float32, st_of({view({8, 4}, {1, 8})})));
  LazyOpPtr sum = LazyOp::make(Op::SUM, {load}, Axes{0});
  s.kernels = {
      {{LazyOp::make(Op::STORE, {sum}, mem(0, DType::Float32, contiguous({1, 4})))}, {0, 1}, false, {}}};
  Program p = codegen_schedule(s, device_renderer("CLANG"));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].extents, (Shape{16, 128}));
}
TEST(ArtifactValidation, program_needs_a_device) {
  Program p = sample_program();
  p.device = "";
  EXPECT_EQ(message_of([&] { read_program(write_program(p)); }),
            "invalid program artifact: device: empty device name");
}

TEST(ArtifactOps, binary_op_codes_are_fixed_numbers_that_round_trip) {
  // pinned: a binary artifact written today must read the same after ops are added
  EXPECT_EQ(op_code(Op::EXP2), 0);
  EXPECT_EQ(op_code(Op::ADD), 8);
  EXPECT_EQ(op_code(Op::SUM), 20);
  EXPECT_EQ(op_code(Op::VIEW), 31);
  for (int i = 0; i < kNumOps; ++i) EXPECT_EQ(op_from_code(op_code(Op(i))), Op(i));
  EXPECT_EQ(op_from_code(200), std::nullopt);
}
