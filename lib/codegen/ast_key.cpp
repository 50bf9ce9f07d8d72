#include "codegen/ast_key.h"

#include <unordered_map>

namespace tg {
namespace {

struct KeyWriter {
  std::string out;
  template <class T> void pod(const T& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void ints(const std::vector<int64_t>& v) {
    pod(uint32_t(v.size()));
    if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof v[0]);
  }
  void dim(const sint& d) { // a symbolic dimension by its text with bounds, stable across runs
    pod(uint8_t(d.is_int()));
    if (d.is_int()) return pod(int64_t(d));
    std::string t = d.expr().render_debug();
    pod(uint32_t(t.size()));
    out += t;
  }
  void ints(const Shape& v) {
    pod(uint32_t(v.size()));
    for (const sint& d : v) dim(d);
  }
  void st(const ShapeTracker& st) {
    pod(uint32_t(st.views.size()));
    for (const View& v : st.views) {
      ints(v.shape);
      ints(v.strides);
      dim(v.offset);
      pod(uint8_t(v.mask.has_value()));
      if (v.mask)
        for (auto& [b, e] : *v.mask) pod(b), pod(e);
    }
  }
  void scalar(const Scalar& s) {
    pod(uint8_t(s.kind));
    if (s.kind == Scalar::Kind::Bool) pod(uint8_t(s.b));
    if (s.kind == Scalar::Kind::Int) pod(s.i);
    if (s.kind == Scalar::Kind::Float) pod(s.f); // the bits: -0.0 and each NaN stay apart
  }
  void arg(const LazyOpArg& a) {
    pod(uint8_t(a.index()));
    if (auto* dt = std::get_if<DType>(&a)) pod(*dt);
    if (auto* axes = std::get_if<Axes>(&a)) {
      pod(uint32_t(axes->size()));
      for (int x : *axes) pod(x);
    }
    if (auto* mb = std::get_if<MemBuffer>(&a)) pod(mb->idx), pod(mb->dtype), st(mb->st);
    if (auto* cb = std::get_if<ConstBuffer>(&a)) scalar(cb->val), pod(cb->dtype), st(cb->st);
  }
};

} // namespace

std::string ast_key(const std::vector<LazyOpPtr>& ast) {
  KeyWriter w;
  std::unordered_map<const LazyOp*, uint32_t> index; // node -> its number, in post-order
  std::vector<std::pair<const LazyOp*, size_t>> stack;
  for (const LazyOpPtr& root : ast) {
    stack.push_back({root.get(), 0});
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      if (next == 0 && index.count(op)) { // shared: written already
        stack.pop_back();
        continue;
      }
      if (next < op->src.size()) {
        const LazyOp* s = op->src[next++].get();
        if (!index.count(s)) stack.push_back({s, 0});
        continue;
      }
      w.pod(op_code(op->op));
      w.arg(op->arg);
      w.pod(uint32_t(op->src.size()));
      for (const LazyOpPtr& s : op->src) w.pod(index.at(s.get()));
      index.emplace(op, uint32_t(index.size()));
      stack.pop_back();
    }
    w.pod(index.at(root.get()));
  }
  return std::move(w.out);
}

} // namespace tg
