#include "lazy/lazy.h"

#include <cstring>

#include "shape/shapetracker_hash.h"

namespace tg {
namespace {

void hash_arg(Fnv1a& h, const LazyArg& arg) {
  h.pod(arg.index());
  if (auto* s = std::get_if<Scalar>(&arg)) {
    h.pod(s->kind);
    if (s->kind == Scalar::Kind::Float)
      h.pod(s->f);
    else
      h.pod(s->kind == Scalar::Kind::Int ? s->i : int64_t(s->b));
  } else if (auto* d = std::get_if<DType>(&arg))
    h.pod(*d);
  else if (auto* a = std::get_if<Axes>(&arg))
    for (int x : *a) h.pod(x);
  else if (auto* st = std::get_if<ShapeTracker>(&arg))
    hash_into(h, *st);
}

uint64_t hash_node(const LazyNode& n) {
  Fnv1a h;
  h.pod(n.op);
  h.pod(n.dtype);
  h.ints(n.shape);
  for (NodeId s : n.srcs) h.pod(s);
  hash_arg(h, n.arg);
  hash_into(h, n.st);
  h.bytes(n.name.data(), n.name.size());
  if (!n.data.empty()) h.pod(n.data.hash());
  h.bytes(n.device.data(), n.device.size());
  return h.h;
}

bool same_node(const LazyNode& a, const LazyNode& b) {
  return a.op == b.op && a.dtype == b.dtype && a.shape == b.shape && a.srcs == b.srcs && a.arg == b.arg &&
         a.st == b.st && a.name == b.name && a.data == b.data && a.device == b.device;
}

} // namespace

NodeId LazyGraph::add(LazyNode node) {
  uint64_t h = hash_node(node);
  node.step = node.op == Op::ASSIGN || node.is_input();
  for (NodeId s : node.srcs) node.step = node.step || nodes_[s].step;
  auto [lo, hi] = intern_.equal_range(h);
  for (auto it = lo; it != hi; ++it)
    if (same_node(nodes_[it->second], node)) {
      // the same view reached again, this time with its history known
      LazyNode& old = nodes_[it->second];
      if (old.moves.empty() && !node.moves.empty()) old.moves = std::move(node.moves);
      return it->second;
    }
  NodeId id = NodeId(nodes_.size());
  nodes_.push_back(std::move(node));
  intern_.emplace(h, id);
  return id;
}

void LazyGraph::add_state(GraphState s) {
  state_names_.insert(s.name);
  states_.push_back(std::move(s));
}

void LazyGraph::add_assign(NodeId a) {
  if (!assign_set_.insert(a).second) return;
  assigns_.push_back(a);
  latest_[nodes_[a].srcs[1]] = a;
}

void LazyGraph::clear_effects() {
  states_.clear();
  state_names_.clear();
  assigns_.clear();
  assign_set_.clear();
  latest_.clear();
}

} // namespace tg
