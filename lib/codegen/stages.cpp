// A kernel's lowering stages as text. See stages.h.
#include "codegen/stages.h"

#include <unordered_map>

namespace tg {

namespace {

std::string py_bool(bool b) { return b ? "True" : "False"; }

std::string view_repr(const View& v) {
  std::string mask = "None";
  if (v.mask) {
    mask = "(";
    for (size_t i = 0; i < v.mask->size(); ++i)
      mask += (i ? ", " : "") + shape_repr({(*v.mask)[i].first, (*v.mask)[i].second});
    mask += v.mask->size() == 1 ? ",)" : ")";
  }
  return "View(shape=" + shape_repr(v.shape) + ", strides=" + shape_repr(v.strides) +
         ", offset=" + v.offset.str() + ", mask=" + mask + ", contiguous=" + py_bool(v.contiguous) + ")";
}

std::string st_repr(const ShapeTracker& st) {
  std::string out = "ShapeTracker(views=(";
  for (size_t i = 0; i < st.views.size(); ++i) out += (i ? ", " : "") + view_repr(st.views[i]);
  return out + (st.views.size() == 1 ? ",))" : "))");
}

// ops.py's reprs of a LazyOp's arg.
std::string arg_repr(const LazyOpArg& arg) {
  if (const MemBuffer* m = std::get_if<MemBuffer>(&arg))
    return "MemBuffer(idx=" + std::to_string(m->idx) + ", dtype=" + dtype_repr(m->dtype) +
           ", st=" + st_repr(m->st) + ")";
  if (const ConstBuffer* c = std::get_if<ConstBuffer>(&arg))
    return "ConstBuffer(val=" + c->val.repr() + ", dtype=" + dtype_repr(c->dtype) + ", st=" + st_repr(c->st) +
           ")";
  if (const DType* d = std::get_if<DType>(&arg)) return dtype_repr(*d);
  if (const Axes* a = std::get_if<Axes>(&arg)) return shape_repr(Shape(a->begin(), a->end()));
  return "None";
}

// Past this depth the branches stop indenting, so a 20,000-op chain prints in linear space.
constexpr size_t kMaxIndent = 64;

void append_tree(const LazyOp& root, std::vector<std::string>& lines) {
  std::unordered_map<const LazyOp*, size_t> printed; // node -> its line
  struct Item {
    const LazyOp* op;
    std::string first, rest; // the prefix of its own line, and of its children's
    size_t depth;
  };
  std::vector<Item> stack{{&root, "", "", 0}};
  while (!stack.empty()) { // depth-first without recursion: ASTs can be thousands of ops deep
    Item it = std::move(stack.back());
    stack.pop_back();
    std::string head = it.first;
    if (auto seen = printed.find(it.op); seen != printed.end() && !it.op->src.empty()) {
      lines.push_back(head + "━⬆︎ goto " + std::to_string(seen->second) + ": " +
                      std::string(op_name(it.op->op)));
      continue;
    }
    printed.emplace(it.op, lines.size());
    lines.push_back(head + (it.op->src.empty() ? "━━ " : "━┳ ") + std::string(op_name(it.op->op)) + " " +
                    arg_repr(it.op->arg));
    bool indent = it.depth < kMaxIndent;
    for (size_t i = it.op->src.size(); i-- > 0;) { // pushed last first: printed in order
      bool last = i + 1 == it.op->src.size();
      std::string first = it.rest + (last ? " ┗" : " ┣"), rest = it.rest + (last ? "  " : " ┃");
      if (!indent) first = it.rest + " ┗", rest = it.rest;
      stack.push_back({it.op->src[i].get(), std::move(first), std::move(rest), it.depth + 1});
    }
  }
}

} // namespace

const std::vector<std::string_view>& stage_names() {
  static const std::vector<std::string_view> names{"ast", "opts", "linearize", "rewrite", "render"};
  return names;
}

std::optional<Stage> stage_from_name(std::string_view name) {
  const auto& names = stage_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return Stage(i);
  return std::nullopt;
}

std::string ast_tree(const std::vector<LazyOpPtr>& ast) {
  std::string out;
  for (const LazyOpPtr& root : ast) {
    std::vector<std::string> lines;
    append_tree(*root, lines);
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string n = std::to_string(i);
      out += std::string(n.size() < 3 ? 3 - n.size() : 0, ' ') + n + " " + lines[i] + "\n";
    }
  }
  return out;
}

std::string stage_text(Stage stage, const ScheduleKernel& kernel, const LoweredKernel& lowered) {
  switch (stage) {
  case Stage::Ast:
    return ast_tree(kernel.ast);
  case Stage::Opts: {
    std::string out = "[";
    for (size_t i = 0; i < lowered.applied_opts.size(); ++i)
      out += (i ? ", " : "") + lowered.applied_opts[i].repr();
    return out + "]\nfull_shape " + shape_repr(lowered.full_shape) + "\n";
  }
  case Stage::Linearize:
    return lowered.uops_before_rewrite;
  case Stage::Rewrite:
    return lowered.uops;
  case Stage::Render:
    return lowered.src;
  }
  return "";
}

} // namespace tg
