// codegen layer, UOps: tinygrad 0.9.1's codegen/uops.py. A kernel is a DAG of UOps (the
// linearizer's output), rewritten by pattern rules (constant folding, x*1, x+0 ...) and
// then linearized into a list a renderer walks top to bottom. UOps are hash-consed inside a
// UOpGraph: building the same (op, dtype, src, arg) twice returns the same pointer.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "dtype/dtype.h"
#include "ops/ops.h"

namespace tg {

// The order is tinygrad's: it breaks ties in the toposort.
enum class UOps : uint8_t {
  SINK,
  DEFINE_GLOBAL,
  DEFINE_VAR,
  DEFINE_LOCAL,
  DEFINE_ACC,
  CONST,
  SPECIAL,
  NOOP,
  UNMUL, // loop collapse's marker: src[0] summed over a loop of src[1] iterations
  GEP,
  CAST,
  BITCAST,
  ALU,
  WMMA,
  LOAD,
  STORE,
  PHI,
  BARRIER,
  IF,
  RANGE,
  ENDRANGE,
  ENDIF,
};
std::string_view uops_name(UOps op); // "UOps.ALU"

struct GlobalArg { // DEFINE_GLOBAL: data<idx>, written by the kernel or not
  int idx;
  bool mutable_;
  bool operator==(const GlobalArg&) const = default;
};
struct LoopArg { // RANGE: loop depth (1 global, 2+ reduce), index at that depth, reduce loop?
  int depth;
  int index;
  bool reduce;
  bool operator==(const LoopArg&) const = default;
};
struct AccArg { // DEFINE_ACC: which buffer the accumulator shadows, its number, its vector lanes
  int buf;
  int count;
  int lanes = 1;
  bool operator==(const AccArg&) const = default;
};
struct VarArg { // DEFINE_VAR / SPECIAL: a named int
  std::string name;
  int64_t min = 0, max = 0;
  bool operator==(const VarArg&) const = default;
};
struct SpecialArg { // SPECIAL: a work-item id: gidx0 (group), lidx0 (local), idx0 (global)
  int dim;
  std::string name;
  int64_t size;
  bool operator==(const SpecialArg&) const = default;
};
struct LocalArg { // DEFINE_LOCAL: a local-memory array
  std::string name;
  int64_t size;
  bool operator==(const LocalArg&) const = default;
};
// LOAD(buf, idx, lo, hi, whole): a vector whose lanes lo <= l < hi are buf[idx + stride*l], the
// rest 0; whole: the elements idx .. idx + stride*lanes - 1 lie inside the buffer, so whole vector
// loads may read them all (stride 2: a stride-2 conv's image row, two loads and a shuffle)
struct LaneRange {
  int lanes;
  int stride = 1;
  bool operator==(const LaneRange&) const = default;
};
// WMMA(a, b, c): a tensor core's D = A * B + C over one warp; a, b and c are vectors of the
// thread's elements (sizes in `sizes`), the result a vector like c.
struct WmmaArg {
  std::string name; // "WMMA_8_16_16_half_float": the device function that runs it
  std::array<int, 3> dims;
  DType dtype_in, dtype_out;
  std::array<int, 3> sizes;
  bool operator==(const WmmaArg&) const = default;
};
// ALU: the Op; CONST: the value; GEP: the lane; LOAD: the lanes of a vector load (unset: scalar).
// Vectors (tg's host optimizer; tinygrad 0.9.1's CLANG has none): a LOAD with lanes, a DEFINE_ACC
// with lanes and a CAST of several scalars (tinygrad's float4 "vectorize") make vectors; ALU, PHI
// and one-source CAST are vectors when a source is; GEP takes one lane; a STORE of a vector writes
// consecutive elements.
using UOpArg = std::variant<std::monostate, Op, Scalar, int, GlobalArg, LoopArg, AccArg, VarArg, SpecialArg,
                            LocalArg, LaneRange, WmmaArg>;

struct UOp {
  UOps op;
  std::optional<DType> dtype; // none for STORE, SINK, END*; for DEFINE_GLOBAL the pointee
  std::vector<const UOp*> src;
  UOpArg arg;
  uint32_t id = 0; // creation order inside its graph
  int vcount = 1;  // vector lanes: derived from op, src and arg when the UOp is made

  Op alu() const { return std::get<Op>(arg); }
  const Scalar& value() const { return std::get<Scalar>(arg); }
  bool is_alu(Op o) const { return op == UOps::ALU && alu() == o; }
  bool is_const() const { return op == UOps::CONST; }
};

// A side table over one graph's UOps, indexed by their ids (dense, in creation order): the
// passes over a kernel's graph look entries up without hashing or an allocation per entry.
// Absent entries read as T{}.
template <class T> class UOpMap {
public:
  T& operator[](const UOp* u) {
    if (u->id >= v_.size()) v_.resize(size_t(u->id) * 2 + 64);
    return v_[u->id];
  }
  T get(const UOp* u) const { return u->id < v_.size() ? v_[u->id] : T{}; }

private:
  std::vector<T> v_;
};

// Owns UOps and interns them. Builders mirror tinygrad's UOp helpers.
class UOpGraph {
public:
  UOpGraph() = default;
  UOpGraph(const UOpGraph&) = delete;
  UOpGraph& operator=(const UOpGraph&) = delete;

  const UOp* make(UOps op, std::optional<DType> dtype, std::vector<const UOp*> src = {}, UOpArg arg = {});
  const UOp* cnst(DType dtype, const Scalar& value); // value taken as the dtype's kind (as_const)
  const UOp* cnst_int(int64_t v) { return cnst(DType::Int32, Scalar::of_int(v)); }
  const UOp* alu(Op op, std::vector<const UOp*> src); // dtype: bool for compares, else last src's
  const UOp* cast(const UOp* x, DType dtype) { return make(UOps::CAST, dtype, {x}); }

  // Python-operator shorthands over ALU, with an int/float constant on the right in x's dtype.
  const UOp* add(const UOp* a, const UOp* b) { return alu(Op::ADD, {a, b}); }
  const UOp* mul(const UOp* a, const UOp* b) { return alu(Op::MUL, {a, b}); }
  const UOp* neg(const UOp* a) { return alu(Op::NEG, {a}); }
  const UOp* like(const UOp* x, int64_t v); // constant v in x's dtype

  size_t size() const { return nodes_.size(); }

private:
  struct KeyHash {
    size_t operator()(const UOp* u) const;
  };
  struct KeyEq {
    bool operator()(const UOp* a, const UOp* b) const;
  };
  std::deque<UOp> nodes_;
  std::unordered_map<const UOp*, const UOp*, KeyHash, KeyEq> intern_;
};

// ---- rewrite rules as data ----

// A pattern over UOps. Unset fields match anything; `name` binds the matched UOp (a second
// use of the same name must bind the same UOp). Commutative ALU patterns try both orders.
struct UPat {
  std::optional<UOps> op;
  std::optional<Op> alu;
  std::optional<double> value; // CONST whose value equals this number (0 matches 0, 0.0, False)
  std::optional<DType> dtype;
  std::vector<UPat> src;
  bool match_src = false; // src given (else any sources)
  std::string name;

  static UPat any(std::string name = "") {
    UPat p;
    p.name = std::move(name);
    return p;
  }
  static UPat cvar(std::string name) {
    UPat p;
    p.op = UOps::CONST;
    p.name = std::move(name);
    return p;
  }
  static UPat cnst(double v) {
    UPat p;
    p.op = UOps::CONST;
    p.value = v;
    return p;
  }
  static UPat of(UOps op, std::vector<UPat> src, std::string name = "");
  static UPat of_alu(Op op, std::vector<UPat> src, std::string name = "");
};

// The names a pattern bound: a handful at most, so a flat inline list, copied for free when a
// commutative match backtracks (a hash map of strings was a third of the rewrite's time).
class Bindings {
public:
  const UOp* at(std::string_view name) const {
    for (size_t i = 0; i < n_; ++i)
      if (*items_[i].first == name) return items_[i].second;
    throw std::out_of_range("rewrite rule reads an unbound name: " + std::string(name));
  }
  // Binds `name` (a pattern's, which outlives the match) to `u`; false when it is bound to
  // another UOp already.
  bool bind(const std::string& name, const UOp* u) {
    for (size_t i = 0; i < n_; ++i)
      if (*items_[i].first == name) return items_[i].second == u;
    if (n_ == items_.size()) throw std::length_error("a rewrite pattern binds more than 8 names");
    items_[n_++] = {&name, u};
    return true;
  }

private:
  std::array<std::pair<const std::string*, const UOp*>, 8> items_{};
  size_t n_ = 0;
};
bool match(const UOp* u, const UPat& pat, Bindings& store);

struct RewriteRule {
  std::string description; // "x*1 -> x": shows up in tests and debugging
  UPat pattern;
  // returns the replacement, or nullptr to leave the UOp alone
  std::function<const UOp*(const Bindings&, const UOp* root, UOpGraph&)> rewrite;
};

class PatternMatcher {
public:
  explicit PatternMatcher(std::vector<RewriteRule> rules) : rules_(std::move(rules)) {}
  const UOp* rewrite(const UOp* u, UOpGraph& g) const; // first rule that fires, or nullptr
  const std::vector<RewriteRule>& rules() const { return rules_; }

private:
  std::vector<RewriteRule> rules_;
};

// tinygrad's constant_folder: constant folding and algebraic self-folding, and (unless
// loop_collapse is false) its arange loop folding into closed forms.
const PatternMatcher& constant_folder(bool loop_collapse = true);

// Is `root`, or a UOp among its sources at any depth, one `pred` holds for (of this op)?
bool graph_has(const UOp* root, const std::function<bool(const UOp*)>& pred);
bool graph_has(const UOp* root, UOps op);

// Rebuilds `sink` bottom-up, applying `pm` to every node until none fires.
const UOp* graph_rewrite(const UOp* sink, const PatternMatcher& pm, UOpGraph& g);

// Toposort from SINK into the order a renderer emits, inserting ENDRANGE/ENDIF. The SINK
// itself is dropped.
std::vector<const UOp*> linearize_uops(const UOp* sink, UOpGraph& g);

// Added: the loops a renderer unrolls in a kernel with range loads (LOADs of a LaneRange: tg's host
// optimizer): reduce loops of 2..max_trip constant iterations inside another reduce loop (a
// conv's window). Unrolled, their lane bounds depend on no inner loop and leave the outer one.
// Where the whole reduce is loops of such sizes, at most kWholeWindow steps (a depthwise conv's or
// a pool's window: no channel loop around it), its outer loop too: the image rows that the output
// rows of a register tile share are then the same loads, made once (MobileNetV2's depthwise 3x3
// conv 0.44 -> 0.38 ms).
constexpr int64_t kWholeWindow = 49;
std::unordered_set<const UOp*> window_loops(const std::vector<const UOp*>& uops, int max_trip);

// One line per UOp, like tinygrad's UOpGraph.print(): index, op, dtype, src indices, arg.
std::string uops_to_string(const std::vector<const UOp*>& uops);

} // namespace tg
