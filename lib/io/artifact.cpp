// Graph, schedule and program artifacts: their fields in order (see formats/*.md), the binary
// header and JSON framing, kind and version checks, and the error wording.
#include "io/archive_codec.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "io/artifact.h"
#include "io/input_kind.h"
#include "io/json_numbers.h"
#include "util/error.h"
#include "util/printable.h"

namespace tg {

namespace {

using namespace codec;

// The version of the artifact being read: fields added since are read only from artifacts that
// have them.
thread_local int64_t g_reading_version = kArtifactVersion;
struct ReadingVersion {
  int64_t prev;
  explicit ReadingVersion(int64_t v) : prev(g_reading_version) { g_reading_version = v; }
  ~ReadingVersion() { g_reading_version = prev; }
};

constexpr std::string_view kMagic = "TGART";
constexpr size_t kHeaderSize = kMagic.size() + 1 + 4;

// LazyArg: monostate, Scalar, DType, Axes, ShapeTracker.
constexpr const char* kLazyArgKeys[] = {nullptr, "const", "dtype", "axes", "st"};

template <class A> void put_lazy_arg(A& ar, const LazyArg& arg) {
  uint8_t tag = uint8_t(arg.index());
  put_variant(ar, "arg", tag, kLazyArgKeys[tag], [&](auto& a, const char* key) {
    if (auto* s = std::get_if<Scalar>(&arg))
      put_scalar(a, key, *s);
    else if (auto* dt = std::get_if<DType>(&arg))
      put_dtype(a, key, *dt);
    else if (auto* st = std::get_if<ShapeTracker>(&arg))
      put_st(a, key, *st);
    else
      put_ints(a, key, std::get<Axes>(arg));
  });
}
template <class A> LazyArg get_lazy_arg(A& ar) {
  LazyArg arg;
  get_variant(ar, "arg", kLazyArgKeys, 5, [&](auto& a, const char* key, int tag) {
    if (tag == 1)
      arg = get_scalar(a, key);
    else if (tag == 2)
      arg = get_dtype(a, key);
    else if (tag == 4)
      arg = get_st(a, key);
    else
      arg = get_ints<int>(a, key);
  });
  return arg;
}

// LazyOpArg: monostate, DType, Axes, MemBuffer, ConstBuffer.
constexpr const char* kOpArgKeys[] = {nullptr, "dtype", "axes", "buffer", "const"};

template <class A> void put_op_arg(A& ar, const LazyOpArg& arg) {
  uint8_t tag = uint8_t(arg.index());
  put_variant(ar, "arg", tag, kOpArgKeys[tag], [&](auto& a, const char* key) {
    if (auto* dt = std::get_if<DType>(&arg))
      put_dtype(a, key, *dt);
    else if (auto* axes = std::get_if<Axes>(&arg))
      put_ints(a, key, *axes);
    else if (auto* mb = std::get_if<MemBuffer>(&arg))
      put_object(a, key, [&](auto& b) {
        field(b, "idx", mb->idx);
        put_dtype(b, "dtype", mb->dtype);
        put_st(b, "st", mb->st);
      });
    else {
      const ConstBuffer& cb = std::get<ConstBuffer>(arg);
      put_object(a, key, [&](auto& b) {
        put_scalar(b, "value", cb.val);
        put_dtype(b, "dtype", cb.dtype);
        put_st(b, "st", cb.st);
      });
    }
  });
}
template <class A> LazyOpArg get_op_arg(A& ar) {
  LazyOpArg arg;
  get_variant(ar, "arg", kOpArgKeys, 5, [&](auto& a, const char* key, int tag) {
    if (tag == 1)
      arg = get_dtype(a, key);
    else if (tag == 2)
      arg = get_ints<int>(a, key);
    else if (tag == 3)
      get_object(a, key, [&](auto& b) {
        MemBuffer mb;
        mb.idx = get<int>(b, "idx");
        mb.dtype = get_dtype(b, "dtype");
        mb.st = get_st(b, "st");
        arg = std::move(mb);
      });
    else
      get_object(a, key, [&](auto& b) {
        ConstBuffer cb;
        cb.val = get_scalar(b, "value");
        cb.dtype = get_dtype(b, "dtype");
        cb.st = get_st(b, "st");
        arg = std::move(cb);
      });
  });
  return arg;
}

// A VIEW node's movement ops: [{"op": "reshape", "arg": [2, 3]}, ...].
constexpr const char* kMoveNames[] = {"reshape", "expand", "permute", "pad", "shrink", "stride"};

template <class A> void put_moves(A& ar, const std::vector<ViewMove>& moves) {
  put_array(ar, "moves", moves.size(), [&](auto& a, size_t i) {
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "op", kMoveNames[size_t(moves[i].op)]);
      put_dims(b, "arg", moves[i].arg);
    });
  });
}
template <class A> std::vector<ViewMove> get_moves(A& ar) {
  std::vector<ViewMove> moves;
  get_array(ar, "moves", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      std::string op = get_string(b, "op");
      auto it = std::find(std::begin(kMoveNames), std::end(kMoveNames), op);
      if (it == std::end(kMoveNames)) corrupt("unknown movement op '" + op + "'");
      moves.push_back({MoveOp(it - std::begin(kMoveNames)), get_dims(b, "arg")});
    });
  });
  return moves;
}

// ---------------------------------------------------------------------------------------------
// Graph.
template <class A> void put_graph(A& ar, const Graph& g) {
  put_array(ar, "nodes", g.nodes.size(), [&](auto& a, size_t i) {
    const LazyNode& n = g.nodes[i];
    put_object(a, nullptr, [&](auto& b) {
      put_op(b, "op", n.op);
      put_dtype(b, "dtype", n.dtype);
      put_dims(b, "shape", n.shape);
      put_ints(b, "src", n.srcs);
      put_lazy_arg(b, n.arg);
      put_st(b, "st", n.st);
      put_string(b, "name", n.name);
      put_bytes(b, "data", n.data);
      field(b, "forced_realize", n.forced_realize);
      put_moves(b, n.moves);
      put_string(b, "device", n.device);
    });
  });
  put_array(ar, "inputs", g.inputs.size(), [&](auto& a, size_t i) {
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "name", g.inputs[i].name);
      field(b, "node", g.inputs[i].node);
      field(b, "requires_grad", g.inputs[i].requires_grad);
    });
  });
  put_array(ar, "outputs", g.outputs.size(), [&](auto& a, size_t i) {
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "name", g.outputs[i].name);
      field(b, "node", g.outputs[i].node);
    });
  });
  put_array(ar, "states", g.states.size(), [&](auto& a, size_t i) {
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "name", g.states[i].name);
      field(b, "node", g.states[i].node);
      field(b, "init", g.states[i].init);
    });
  });
  put_ints(ar, "assigns", g.assigns);
  put_vars(ar, g.vars);
}
template <class A> Graph get_graph(A& ar) {
  Graph g;
  get_array(ar, "nodes", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      LazyNode n;
      n.op = get_op(b, "op");
      n.dtype = get_dtype(b, "dtype");
      n.shape = get_dims(b, "shape");
      n.srcs = get_ints<NodeId>(b, "src");
      n.arg = get_lazy_arg(b);
      n.st = get_st(b, "st");
      n.name = get_string(b, "name");
      n.data = get_bytes(b, "data", g_reading_version >= 11);
      n.forced_realize = get<bool>(b, "forced_realize");
      n.moves = get_moves(b);
      if (g_reading_version >= 9) n.device = get_string(b, "device");
      g.nodes.push_back(std::move(n));
    });
  });
  get_array(ar, "inputs", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      GraphInput in;
      in.name = get_string(b, "name");
      in.node = get<NodeId>(b, "node");
      in.requires_grad = get<bool>(b, "requires_grad");
      g.inputs.push_back(std::move(in));
    });
  });
  get_array(ar, "outputs", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      GraphOutput out;
      out.name = get_string(b, "name");
      out.node = get<NodeId>(b, "node");
      g.outputs.push_back(std::move(out));
    });
  });
  get_array(ar, "states", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      GraphState st;
      st.name = get_string(b, "name");
      st.node = get<NodeId>(b, "node");
      st.init = get<NodeId>(b, "init");
      g.states.push_back(std::move(st));
    });
  });
  g.assigns = get_ints<NodeId>(ar, "assigns");
  g.vars = get_vars(ar);
  return g;
}

// Buffer roles: names in JSON, one byte in binary.
constexpr const char* kRoleNames[] = {"input", "output", "intermediate", "constant", "state"};
constexpr int kRoles = 5;

template <class A> void put_role(A& ar, const char* name, BufferRole role) {
  if constexpr (kJson<A>)
    field(ar, name, std::string(kRoleNames[int(role)]));
  else
    field(ar, name, uint8_t(role));
}
template <class A> BufferRole get_role(A& ar, const char* name) {
  return in_leaf(name, [&] {
    if constexpr (kJson<A>) {
      std::string s = get<std::string>(ar, name);
      for (int i = 0; i < kRoles; ++i)
        if (s == kRoleNames[i]) return BufferRole(i);
      corrupt("unknown buffer role '" + s + "'");
    } else {
      uint8_t v = get<uint8_t>(ar, name);
      if (v >= kRoles) corrupt("buffer role code " + std::to_string(v) + " out of range");
      return BufferRole(v);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Buffer table and named buffers (schedule and program).
template <class A> void put_buffers(A& ar, const std::vector<BufferInfo>& bufs) {
  put_array(ar, "buffers", bufs.size(), [&](auto& a, size_t i) {
    const BufferInfo& b = bufs[i];
    put_object(a, nullptr, [&](auto& c) {
      field(c, "id", b.id);
      put_dtype(c, "dtype", b.dtype);
      field(c, "size", b.size);
      put_role(c, "role", b.role);
      put_string(c, "name", b.name);
      put_bytes(c, "data", b.data);
      put_string(c, "device", b.device);
      put_dims(c, "dims", Shape(b.dims.begin(), b.dims.end()));
    });
  });
}
template <class A> std::vector<BufferInfo> get_buffers(A& ar) {
  std::vector<BufferInfo> bufs;
  get_array(ar, "buffers", [&](auto& a) {
    get_object(a, nullptr, [&](auto& c) {
      BufferInfo b;
      b.id = get<int>(c, "id");
      b.dtype = get_dtype(c, "dtype");
      b.size = get<int64_t>(c, "size");
      b.role = get_role(c, "role");
      b.name = get_string(c, "name");
      b.data = get_bytes(c, "data", g_reading_version >= 11);
      if (g_reading_version >= 9) b.device = get_string(c, "device");
      if (g_reading_version >= 10)
        for (const sint& d : get_dims(c, "dims")) {
          if (!d.is_int()) corrupt("a constant's dims are ints");
          b.dims.push_back(int64_t(d));
        }
      else if (b.role == BufferRole::Constant)
        b.name.clear(); // (a name meant nothing on a constant before version 10)
      bufs.push_back(std::move(b));
    });
  });
  return bufs;
}

template <class A> void put_named(A& ar, const char* name, const std::vector<NamedBuffer>& xs) {
  put_array(ar, name, xs.size(), [&](auto& a, size_t i) {
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "name", xs[i].name);
      field(b, "buffer", xs[i].buffer);
      put_dims(b, "shape", xs[i].shape);
      put_dtype(b, "dtype", xs[i].dtype);
    });
  });
}
template <class A> std::vector<NamedBuffer> get_named(A& ar, const char* name) {
  std::vector<NamedBuffer> xs;
  get_array(ar, name, [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      NamedBuffer nb;
      nb.name = get_string(b, "name");
      nb.buffer = get<int>(b, "buffer");
      nb.shape = get_dims(b, "shape");
      nb.dtype = get_dtype(b, "dtype");
      xs.push_back(std::move(nb));
    });
  });
  return xs;
}

// ---------------------------------------------------------------------------------------------
// A kernel's LazyOp trees, flattened: "ast" lists every distinct node after its sources
// (shared subtrees once), "roots" the indices of the trees in order.
struct FlatAst {
  std::vector<const LazyOp*> nodes;
  std::vector<std::vector<uint32_t>> srcs;
  std::vector<uint32_t> roots;
};

uint32_t flatten(const LazyOp* op, FlatAst& flat, std::unordered_map<const LazyOp*, uint32_t>& seen) {
  if (auto it = seen.find(op); it != seen.end()) return it->second;
  std::vector<uint32_t> srcs;
  for (const LazyOpPtr& s : op->src) {
    if (!s) throw Error("RuntimeError", "cannot write a schedule: a LazyOp has a null source");
    srcs.push_back(flatten(s.get(), flat, seen));
  }
  uint32_t id = uint32_t(flat.nodes.size());
  flat.nodes.push_back(op);
  flat.srcs.push_back(std::move(srcs));
  seen.emplace(op, id);
  return id;
}

template <class A> void put_kernels(A& ar, const std::vector<ScheduleKernel>& kernels) {
  put_array(ar, "kernels", kernels.size(), [&](auto& a, size_t k) {
    FlatAst flat;
    std::unordered_map<const LazyOp*, uint32_t> seen;
    for (const LazyOpPtr& root : kernels[k].ast) {
      if (!root)
        throw Error("RuntimeError",
                    "cannot write a schedule: kernel " + std::to_string(k) + " has a null ast");
      flat.roots.push_back(flatten(root.get(), flat, seen));
    }
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "name", kernels[k].name);
      put_array(b, "ast", flat.nodes.size(), [&](auto& c, size_t i) {
        put_object(c, nullptr, [&](auto& d) {
          put_op(d, "op", flat.nodes[i]->op);
          put_ints(d, "src", flat.srcs[i]);
          put_op_arg(d, flat.nodes[i]->arg);
        });
      });
      put_ints(b, "roots", flat.roots);
      put_ints(b, "bufs", kernels[k].bufs);
      field(b, "init", kernels[k].init);
      put_string(b, "device", kernels[k].device);
    });
  });
}

template <class A> std::vector<ScheduleKernel> get_kernels(A& ar) {
  std::vector<ScheduleKernel> kernels;
  get_array(ar, "kernels", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      ScheduleKernel kernel;
      kernel.name = get_string(b, "name");
      std::vector<LazyOpPtr> nodes;
      get_array(b, "ast", [&](auto& c) {
        get_object(c, nullptr, [&](auto& d) {
          Op op = get_op(d, "op");
          std::vector<uint32_t> srcs = get_ints<uint32_t>(d, "src");
          LazyOpArg arg = get_op_arg(d);
          std::vector<LazyOpPtr> src;
          for (uint32_t s : srcs) {
            if (s >= nodes.size()) corrupt("source " + std::to_string(s) + " is not an earlier node");
            src.push_back(nodes[s]);
          }
          nodes.push_back(LazyOp::make(op, std::move(src), std::move(arg)));
        });
      });
      for (uint32_t r : get_ints<uint32_t>(b, "roots")) {
        if (r >= nodes.size()) corrupt("root " + std::to_string(r) + " is not a node of the ast");
        kernel.ast.push_back(nodes[r]);
      }
      kernel.bufs = get_ints<int>(b, "bufs");
      kernel.init = get<bool>(b, "init");
      if (g_reading_version >= 9) kernel.device = get_string(b, "device");
      kernels.push_back(std::move(kernel));
    });
  });
  return kernels;
}

template <class A> void put_schedule(A& ar, const Schedule& s) {
  put_buffers(ar, s.buffers);
  put_kernels(ar, s.kernels);
  put_named(ar, "inputs", s.inputs);
  put_named(ar, "outputs", s.outputs);
  put_named(ar, "states", s.states);
  put_vars(ar, s.vars);
}
template <class A> Schedule get_schedule(A& ar) {
  Schedule s;
  s.buffers = get_buffers(ar);
  s.kernels = get_kernels(ar);
  s.inputs = get_named(ar, "inputs");
  s.outputs = get_named(ar, "outputs");
  s.states = get_named(ar, "states");
  s.vars = get_vars(ar);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Program.
template <class A> void put_program(A& ar, const Program& p) {
  put_string(ar, "device", p.device);
  put_buffers(ar, p.buffers);
  put_array(ar, "kernels", p.kernels.size(), [&](auto& a, size_t i) {
    const ProgramKernel& k = p.kernels[i];
    put_object(a, nullptr, [&](auto& b) {
      put_string(b, "name", k.name);
      put_string(b, "src", k.src);
      put_ints(b, "bufs", k.bufs);
      put_dims(b, "extents", k.extents);
      put_strings(b, "vars", k.vars);
      put_dims(b, "global_size", k.global_size);
      put_ints(b, "local_size", k.local_size);
      field(b, "init", k.init);
      field(b, "work", k.work);
      field(b, "op_estimate", k.op_estimate);
      field(b, "mem_estimate", k.mem_estimate);
      put_string(b, "custom", k.custom);
      field(b, "seed", k.seed);
      put_string(b, "device", k.device);
    });
  });
  put_named(ar, "inputs", p.inputs);
  put_named(ar, "outputs", p.outputs);
  put_named(ar, "states", p.states);
  put_vars(ar, p.vars);
}
template <class A> Program get_program(A& ar) {
  Program p;
  p.device = get_string(ar, "device");
  p.buffers = get_buffers(ar);
  get_array(ar, "kernels", [&](auto& a) {
    get_object(a, nullptr, [&](auto& b) {
      ProgramKernel k;
      k.name = get_string(b, "name");
      k.src = get_string(b, "src");
      k.bufs = get_ints<int>(b, "bufs");
      k.extents = get_dims(b, "extents");
      k.vars = get_strings(b, "vars");
      k.global_size = get_dims(b, "global_size");
      k.local_size = get_ints<int64_t>(b, "local_size");
      k.init = get<bool>(b, "init");
      k.work = get<int64_t>(b, "work");
      k.op_estimate = get<int64_t>(b, "op_estimate");
      k.mem_estimate = get<int64_t>(b, "mem_estimate");
      k.custom = get_string(b, "custom");
      k.seed = get<int64_t>(b, "seed");
      if (g_reading_version >= 9) k.device = get_string(b, "device");
      p.kernels.push_back(std::move(k));
    });
  });
  p.inputs = get_named(ar, "inputs");
  p.outputs = get_named(ar, "outputs");
  p.states = get_named(ar, "states");
  p.vars = get_vars(ar);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Framing: header or "format"/"version", kind and version checks, error wording.
std::string_view kind_word(ArtifactKind kind) {
  switch (kind) {
  case ArtifactKind::Graph:
    return "graph";
  case ArtifactKind::Schedule:
    return "schedule";
  case ArtifactKind::Program:
    return "program";
  default:
    return "unknown";
  }
}

std::string_view skip_space(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return s.substr(i);
}
bool looks_like_json(std::string_view bytes) {
  std::string_view s = skip_space(bytes);
  return !s.empty() && s[0] == '{';
}

ArtifactKind kind_from_format(std::string_view format) {
  for (ArtifactKind k : {ArtifactKind::Graph, ArtifactKind::Schedule, ArtifactKind::Program})
    if (format == artifact_format_name(k)) return k;
  return ArtifactKind::Unknown;
}

// For JSON that does not parse: the kind named by a "format" string near the start, if any.
ArtifactKind guess_json_kind(std::string_view bytes) {
  size_t at = bytes.substr(0, 4096).find("\"tg-");
  if (at == std::string_view::npos) return ArtifactKind::Unknown;
  size_t end = bytes.find('"', at + 1);
  if (end == std::string_view::npos) return ArtifactKind::Unknown;
  return kind_from_format(bytes.substr(at + 1, end - at - 1));
}

struct Framing {
  ArtifactKind kind = ArtifactKind::Unknown;
  bool json = false;
  int64_t version = 0;
  std::string parse_error; // JSON that is not well formed
};

// A \u0000 escape (after an even run of backslashes: "\\u0000" is text). cereal's reader would
// silently cut the string there.
bool has_nul_escape(std::string_view json) {
  for (size_t at = json.find("u0000"); at != std::string_view::npos; at = json.find("u0000", at + 1)) {
    size_t slashes = 0;
    while (slashes < at && json[at - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 1) return true;
  }
  return false;
}

Framing read_framing(std::string_view bytes) {
  Framing f;
  if (bytes.size() >= kMagic.size() && bytes.substr(0, kMagic.size()) == kMagic) {
    if (bytes.size() > kMagic.size()) {
      uint8_t k = uint8_t(bytes[kMagic.size()]);
      if (k >= 1 && k <= 3) f.kind = ArtifactKind(k);
    }
    if (bytes.size() >= kHeaderSize) {
      uint32_t v = 0;
      for (int i = 3; i >= 0; --i) v = v << 8 | uint8_t(bytes[kMagic.size() + 1 + i]);
      f.version = v;
    }
    return f;
  }
  if (!looks_like_json(bytes)) return f;
  f.json = true;
  if (std::optional<size_t> at = io::first_unreadable_number(bytes)) {
    f.kind = guess_json_kind(bytes);
    f.parse_error = "number at byte " + std::to_string(*at) +
                    " is outside the range of doubles (or a 0 with an exponent)";
    return f;
  }
  rapidjson::Document doc;
  doc.Parse(bytes.data(), bytes.size());
  if (doc.HasParseError()) {
    f.kind = guess_json_kind(bytes);
    f.parse_error = "JSON parse error at byte " + std::to_string(doc.GetErrorOffset());
    return f;
  }
  if (has_nul_escape(bytes)) {
    f.kind = guess_json_kind(bytes);
    f.parse_error = "a string holds \\u0000 (NUL)";
    return f;
  }
  if (!doc.IsObject()) return f;
  auto format = doc.FindMember("format");
  if (format == doc.MemberEnd() || !format->value.IsString()) return f;
  f.kind = kind_from_format(format->value.GetString());
  auto version = doc.FindMember("version");
  if (version != doc.MemberEnd() && version->value.IsInt64()) f.version = version->value.GetInt64();
  return f;
}

std::string kind_description(ArtifactKind kind) { return std::string(artifact_description(kind)); }

template <class T, class Decode>
T read_artifact(std::string_view bytes, ArtifactKind want, Decode decode, std::shared_ptr<const void> owner) {
  std::string word(kind_word(want));
  if (bytes.empty()) fail("RuntimeError", "input is empty (expected " + kind_description(want) + ")");
  Framing f = read_framing(bytes);
  if (f.kind == ArtifactKind::Unknown) {
    if (f.json && !f.parse_error.empty())
      fail("RuntimeError", "input is not a tg artifact (" + f.parse_error + ")");
    if (f.json) fail("RuntimeError", "input is not a tg artifact (JSON without a tg \"format\" field)");
    std::string what = describe_foreign_input(bytes);
    fail("RuntimeError", what.empty() ? "input is not a tg artifact (bad magic)"
                                      : "input is " + what + ", not " + kind_description(want));
  }
  if (f.kind != want)
    fail("RuntimeError", "expected " + kind_description(want) + ", got " + kind_description(f.kind));
  auto corrupt_error = [&](const std::string& why) {
    return Error("RuntimeError", "truncated or corrupt " + word + " artifact: " + why);
  };
  if (!f.parse_error.empty()) throw corrupt_error(f.parse_error);
  if (!f.json && bytes.size() < kHeaderSize) throw corrupt_error("header cut short");
  if (f.version > int64_t(kArtifactVersion))
    fail("RuntimeError", word + " artifact version " + std::to_string(f.version) +
                             " is newer than this tool (" + std::to_string(kArtifactVersion) + ")");
  if (f.version < 1) throw corrupt_error("bad version " + std::to_string(f.version));
  if (f.version < int64_t(kOldestArtifactVersion))
    fail("RuntimeError", word + " artifact version " + std::to_string(f.version) +
                             " is older than this tool reads (" + std::to_string(kOldestArtifactVersion) +
                             "); run the earlier tools again");

  T value;
  ReadingVersion reading(f.version);
  ViewBuf buf(f.json ? bytes : bytes.substr(kHeaderSize));
  std::istream in(&buf);
  struct Decoding { // the decoders' thread-locals hold only while this artifact is read
    ~Decoding() {
      g_binary_input = nullptr;
      g_blob_owner = nullptr;
    }
  } decoding;
  try {
    if (f.json) {
      JsonIn ar(in);
      value = decode(ar);
    } else {
      if (buf.remaining() == 0 || bytes[kHeaderSize] != 1) corrupt("bad payload header");
      g_binary_input = &buf;
      g_blob_owner = std::move(owner);
      BinIn ar(in);
      value = decode(ar);
      if (buf.remaining() != 0) corrupt(std::to_string(buf.remaining()) + " unexpected bytes after the end");
    }
  } catch (const Error&) {
    throw;
  } catch (const Corrupt& e) {
    throw corrupt_error(e.message());
  } catch (const cereal::Exception& e) {
    throw corrupt_error(cereal_reason(e));
  } catch (const std::bad_alloc&) {
    throw corrupt_error("a length is too large");
  } catch (const std::length_error&) {
    throw corrupt_error("a length is too large");
  }
  return value;
}

// Re-indents cereal's JSON so arrays of numbers (shapes, strides, masks, src lists) sit on one
// line: "shape": [4, 8] rather than one number per line. Objects keep one member per line.
bool is_flat(const rapidjson::Value& v) {
  if (v.IsObject()) return false;
  if (v.IsArray())
    for (const rapidjson::Value& x : v.GetArray())
      if (!is_flat(x)) return false;
  return true;
}

void append_scalar(const rapidjson::Value& v, std::string& out) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  out.append(buffer.GetString(), buffer.GetSize());
}

void append_json(const rapidjson::Value& v, int indent, std::string& out) {
  auto newline = [&](int n) {
    out += '\n';
    out.append(size_t(n), ' ');
  };
  if (v.IsObject() && v.MemberCount() > 0) {
    out += '{';
    bool first = true;
    for (const auto& member : v.GetObject()) {
      if (!first) out += ',';
      first = false;
      newline(indent + 2);
      append_scalar(member.name, out);
      out += ": ";
      append_json(member.value, indent + 2, out);
    }
    newline(indent);
    out += '}';
  } else if (v.IsArray() && !v.Empty()) {
    bool flat = is_flat(v);
    out += '[';
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (i) out += flat ? ", " : ",";
      if (!flat) newline(indent + 2);
      append_json(v[i], indent + 2, out);
    }
    if (!flat) newline(indent);
    out += ']';
  } else if (v.IsObject()) {
    out += "{}";
  } else if (v.IsArray()) {
    out += "[]";
  } else {
    append_scalar(v, out);
  }
}

std::string compact_json(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError())
    throw Error("RuntimeError", "internal error: cereal wrote JSON that does not parse");
  std::string out;
  out.reserve(json.size() / 2);
  append_json(doc, 0, out);
  out += '\n';
  return out;
}

// The output stream of a binary artifact: its own bytes go into strings of ArtifactBytes::own;
// a constant's data of at least kAliasBytes becomes a piece of its own that points at it.
class PieceSink : public std::streambuf {
public:
  static constexpr size_t kAliasBytes = size_t(1) << 16;
  explicit PieceSink(ArtifactBytes& out) : out_(out) { cur_.reserve(kAliasBytes); }
  void finish() { flush_own(); }

protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) cur_.push_back(char(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (codec::g_blob_output && size_t(n) >= kAliasBytes) {
      flush_own();
      out_.pieces.push_back({s, size_t(n)});
    } else {
      cur_.append(s, size_t(n));
    }
    return n;
  }

private:
  void flush_own() {
    if (cur_.empty()) return;
    out_.own.push_back(std::move(cur_));
    out_.pieces.push_back(out_.own.back());
    cur_ = std::string();
    cur_.reserve(kAliasBytes);
  }
  ArtifactBytes& out_;
  std::string cur_;
};

template <class Encode> ArtifactBytes write_artifact(ArtifactKind kind, bool json, Encode encode) {
  ArtifactBytes out;
  if (json) {
    std::ostringstream os;
    {
      JsonOut ar(os, JsonOut::Options(324, JsonOut::Options::IndentChar::space, 2));
      ar(cereal::make_nvp("format", std::string(artifact_format_name(kind))));
      ar(cereal::make_nvp("version", kArtifactVersion));
      encode(ar);
    }
    out.own.push_back(compact_json(os.str()));
    out.pieces.push_back(out.own.back());
    return out;
  }
  PieceSink sink(out);
  {
    std::ostream os(&sink);
    os << kMagic << char(kind);
    for (int i = 0; i < 4; ++i) os << char((kArtifactVersion >> (8 * i)) & 0xff);
    BinOut ar(os);
    encode(ar);
    if (!os) throw Error("RuntimeError", "internal error: writing an artifact failed");
  }
  sink.finish();
  return out;
}

} // namespace

std::string_view artifact_description(ArtifactKind kind) {
  switch (kind) {
  case ArtifactKind::Graph:
    return "a graph (from tg-trace)";
  case ArtifactKind::Schedule:
    return "a schedule (from tg-schedule)";
  case ArtifactKind::Program:
    return "a program (from tg-codegen)";
  default:
    return "something that is not a tg artifact";
  }
}

std::string_view artifact_format_name(ArtifactKind kind) {
  switch (kind) {
  case ArtifactKind::Graph:
    return "tg-graph";
  case ArtifactKind::Schedule:
    return "tg-schedule";
  case ArtifactKind::Program:
    return "tg-program";
  default:
    return "";
  }
}

ArtifactKind detect_artifact(std::string_view bytes) { return read_framing(bytes).kind; }

size_t ArtifactBytes::size() const {
  size_t n = 0;
  for (std::string_view p : pieces) n += p.size();
  return n;
}

std::string ArtifactBytes::join() const {
  std::string out;
  out.reserve(size());
  for (std::string_view p : pieces) out += p;
  return out;
}

ArtifactBytes graph_bytes(const Graph& graph, bool json) {
  return write_artifact(ArtifactKind::Graph, json, [&](auto& ar) { put_graph(ar, graph); });
}
ArtifactBytes schedule_bytes(const Schedule& schedule, bool json) {
  return write_artifact(ArtifactKind::Schedule, json, [&](auto& ar) { put_schedule(ar, schedule); });
}
ArtifactBytes program_bytes(const Program& program, bool json) {
  return write_artifact(ArtifactKind::Program, json, [&](auto& ar) { put_program(ar, program); });
}
std::string write_graph(const Graph& graph, bool json) { return graph_bytes(graph, json).join(); }
std::string write_schedule(const Schedule& schedule, bool json) {
  return schedule_bytes(schedule, json).join();
}
std::string write_program(const Program& program, bool json) { return program_bytes(program, json).join(); }

namespace {
// Names in an artifact (a dtype, a role, an op) are the file's text: a message that quotes one
// stays one line.
template <class F> auto with_printable_errors(F&& read) {
  try {
    return read();
  } catch (const Error& e) {
    throw Error(e.kind(), printable(e.what()));
  }
}
} // namespace

Graph read_graph(std::string_view bytes, std::shared_ptr<const void> owner) {
  return with_printable_errors([&] {
    Graph g = read_artifact<Graph>(
        bytes, ArtifactKind::Graph, [](auto& ar) { return get_graph(ar); }, std::move(owner));
    validate_graph(g);
    return g;
  });
}
Schedule read_schedule(std::string_view bytes, std::shared_ptr<const void> owner) {
  return with_printable_errors([&] {
    Schedule s = read_artifact<Schedule>(
        bytes, ArtifactKind::Schedule, [](auto& ar) { return get_schedule(ar); }, std::move(owner));
    validate_schedule(s);
    return s;
  });
}
Program read_program(std::string_view bytes, std::shared_ptr<const void> owner) {
  return with_printable_errors([&] {
    Program p = read_artifact<Program>(
        bytes, ArtifactKind::Program, [](auto& ar) { return get_program(ar); }, std::move(owner));
    validate_program(p);
    return p;
  });
}

} // namespace tg
