// ONNX import: sequence and optional ops. A sequence that lives inside the model (built, edited
// and read by its nodes) is a list of tensors while importing; positions and split sizes must be
// known then, as shapes are. An optional value is a sequence of zero or one tensor. Sequences
// and optionals as graph inputs or outputs are not imported.
#include <onnx/onnx_pb.h>

#include "onnx/known.h"
#include "onnx/node.h"
#include "util/error.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

// A position input in [-n, n - 1] (or [-n, n] where inserting at the end is allowed), as an index.
size_t position(const Node& n, int input, size_t size, bool end_ok) {
  std::vector<int64_t> p = n.known(input).ints();
  if (p.size() != 1) n.bad("the position must be one integer");
  const int64_t len = int64_t(size), hi = end_ok ? len : len - 1;
  if (p[0] < -len || p[0] > hi)
    n.bad("position " + std::to_string(p[0]) + " is out of range for a sequence of " + std::to_string(len));
  return size_t(p[0] < 0 ? p[0] + len : p[0]);
}

Outs sequence_empty(const Node& n) {
  n.set_seq(0, {});
  return {};
}

Outs sequence_construct(const Node& n) {
  n.set_seq(0, n.inputs_from(0));
  return {};
}

Outs sequence_insert(const Node& n) {
  std::vector<Tensor> s = n.seq(0);
  size_t at = n.has_input(2) ? position(n, 2, s.size(), true) : s.size();
  s.insert(s.begin() + std::ptrdiff_t(at), n.in(1));
  n.set_seq(0, std::move(s));
  return {};
}

Outs sequence_erase(const Node& n) {
  std::vector<Tensor> s = n.seq(0);
  if (s.empty()) n.bad("the sequence is empty");
  size_t at = n.has_input(1) ? position(n, 1, s.size(), false) : s.size() - 1;
  s.erase(s.begin() + std::ptrdiff_t(at));
  n.set_seq(0, std::move(s));
  return {};
}

Outs sequence_at(const Node& n) {
  const std::vector<Tensor>& s = n.seq(0);
  return {s.at(position(n, 1, s.size(), false))};
}

Outs sequence_length(const Node& n) {
  Known k = known_values(DType::Int64, {}, {Scalar::of_int(int64_t(n.seq(0).size()))});
  n.set_known(0, k);
  return {tensor_of(k)};
}

Outs split_to_sequence(const Node& n) {
  Tensor x = n.in(0);
  const size_t rank = x.shape().size();
  int axis = Node::norm_axis(n.attr_int("axis", 0), rank);
  const int64_t dim = x.shape()[size_t(axis)];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (!n.has_input(1)) { // pieces of one, squeezed unless keepdims
    sizes.assign(size_t(dim), 1);
    squeeze = n.attr_int("keepdims", 1) == 0;
  } else {
    const Known& split = n.known(1);
    std::vector<int64_t> given = split.ints();
    if (split.shape.empty()) { // one size: pieces of it, the last one smaller
      if (given.at(0) <= 0) n.bad("the split size must be positive");
      for (int64_t at = 0; at < dim; at += given[0]) sizes.push_back(std::min(given[0], dim - at));
    } else {
      int64_t sum = 0;
      for (int64_t v : given) {
        if (v < 0) n.bad("a split size is negative");
        sum += v;
      }
      if (sum != dim)
        n.bad("the split sizes add up to " + std::to_string(sum) + ", not the axis' " + std::to_string(dim));
      sizes = given;
    }
  }
  std::vector<Tensor> parts;
  int64_t at = 0;
  for (int64_t size : sizes) {
    Padding range(rank, std::nullopt);
    range[size_t(axis)] = std::make_pair(at, at + size);
    Tensor part = x.shrink(range);
    parts.push_back(squeeze ? part.squeeze(axis) : part);
    at += size;
  }
  n.set_seq(0, std::move(parts));
  return {};
}

Outs concat_from_sequence(const Node& n) {
  const std::vector<Tensor>& s = n.seq(0);
  if (s.empty()) n.bad("the sequence is empty");
  const bool stack = n.attr_int("new_axis", 0) != 0;
  const auto* axis_attr = n.attr("axis");
  if (!axis_attr) n.bad("the attribute 'axis' is missing");
  int axis = Node::norm_axis(axis_attr->i(), s[0].shape().size() + (stack ? 1 : 0));
  std::vector<Tensor> rest(s.begin() + 1, s.end());
  return {stack ? s[0].stack(rest, axis) : s[0].cat(rest, axis)};
}

// Optional(x): holds x; Optional() with a type attribute: holds nothing.
Outs optional(const Node& n) {
  n.set_optional(0, n.has_input(0) ? std::optional<Tensor>(n.in(0)) : std::nullopt);
  return {};
}

// OptionalHasElement and OptionalGetElement also take a plain tensor or sequence (opset 18),
// which is there.
Outs optional_has_element(const Node& n) {
  bool has = n.has_input(0) && (!n.is_optional(0) || !n.seq(0).empty());
  Known k = known_values(DType::Bool, {}, {Scalar::of_bool(has)});
  n.set_known(0, k);
  return {tensor_of(k)};
}

Outs optional_get_element(const Node& n) {
  if (!n.is_seq(0)) return {n.in(0)};
  if (!n.is_optional(0)) { // a sequence: itself
    n.set_seq(0, n.seq(0));
    return {};
  }
  const std::vector<Tensor>& s = n.seq(0);
  if (s.empty()) n.bad("the optional holds no value");
  return {s[0]};
}

} // namespace

void add_sequence_ops(OpTable& t) {
  t["Optional"] = optional;
  t["OptionalHasElement"] = optional_has_element;
  t["OptionalGetElement"] = optional_get_element;
  t["SequenceEmpty"] = sequence_empty;
  t["SequenceConstruct"] = sequence_construct;
  t["SequenceInsert"] = sequence_insert;
  t["SequenceErase"] = sequence_erase;
  t["SequenceAt"] = sequence_at;
  t["SequenceLength"] = sequence_length;
  t["SplitToSequence"] = split_to_sequence;
  t["ConcatFromSequence"] = concat_from_sequence;
}

} // namespace tg
