#include "render/cstyle.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <unordered_map>

#include "util/error.h"

namespace tg {

namespace {

std::string shortest_double(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

bool is_negative(const Scalar& v, DType dtype) {
  if (is_unsigned(dtype)) return false;
  switch (v.kind) {
  case Scalar::Kind::Float:
    return v.f < 0 || std::isnan(v.f);
  case Scalar::Kind::Int:
    return v.i < 0;
  case Scalar::Kind::Bool:
    return false;
  }
  return false;
}

std::string strip_parens(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  // only when the outer pair matches itself
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '(')
      depth++;
    else if (s[i] == ')' && --depth == 0 && i != s.size() - 1)
      return s;
  }
  return s.substr(1, s.size() - 2);
}

std::string workitem(const std::string& pattern, int dim) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'd') {
      out += std::to_string(dim);
      ++i;
    } else if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'c') {
      out += char('x' + dim);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// One walk over the UOps: the state of tinygrad's CStyleLanguage.render.
class Walk {
public:
  explicit Walk(const CStyleRenderer& r) : r_(r), lang_(r.language()) {}

  std::string run(const std::string& name, const std::vector<const UOp*>& uops) {
    for (const UOp* u : uops)
      for (const UOp* s : u->src) child_count_[s]++;
    unrolled_ = window_loops(uops, r_.opts().unroll_window);
    for (const UOp* u : uops) emit(u);
    return r_.render_kernel(name, params_, body_.str(), uops);
  }

private:
  void line(const std::string& s) { body_ << std::string(size_t(depth_) * 2, ' ') << s << "\n"; }
  std::string ssa(const std::string& prefix, const UOp* u = nullptr) {
    std::string n = prefix + std::to_string(counters_[prefix]++);
    if (u) r_names_[u] = n;
    return n;
  }
  const std::string& ref(const UOp* u) const {
    auto it = r_names_.find(u);
    if (it == r_names_.end()) fail("RuntimeError", "render: UOp used before it is defined");
    return it->second;
  }
  bool is_local(const UOp* buf) const { return buf->op == UOps::DEFINE_LOCAL; }
  // the type of u's value: a scalar, or a vector of its lanes
  std::string vtype(const UOp* u) const {
    return u->vcount > 1 ? r_.render_vector_dtype(*u->dtype, u->vcount) : r_.render_dtype(*u->dtype);
  }
  std::string splat(const UOp* u, const std::string& scalar) const {
    return r_.render_splat(*u->dtype, u->vcount, scalar);
  }

  void emit(const UOp* u) {
    switch (u->op) {
    case UOps::DEFINE_GLOBAL: {
      auto& ga = std::get<GlobalArg>(u->arg);
      std::string nm = "data" + std::to_string(ga.idx);
      params_.push_back((ga.mutable_ ? "" : "const ") + lang_.buffer_prefix +
                        r_.render_dtype(*u->dtype, false) + "*" + lang_.buffer_suffix + " " + nm);
      r_names_[u] = nm;
      break;
    }
    case UOps::DEFINE_VAR: {
      auto& va = std::get<VarArg>(u->arg);
      params_.push_back(lang_.arg_int_prefix + " " + va.name);
      r_names_[u] = va.name;
      break;
    }
    case UOps::DEFINE_LOCAL: {
      auto& la = std::get<LocalArg>(u->arg);
      line(lang_.smem_align + lang_.smem_prefix + r_.render_dtype(*u->dtype, false) + " " + la.name + "[" +
           std::to_string(la.size) + "];");
      r_names_[u] = la.name;
      break;
    }
    case UOps::SPECIAL: {
      auto& sa = std::get<SpecialArg>(u->arg);
      const std::string& pattern = sa.name[0] == 'g'   ? lang_.group_id
                                   : sa.name[0] == 'l' ? lang_.local_id
                                                       : lang_.global_id;
      line("int " + sa.name + " = " + workitem(pattern, sa.dim) + "; /* " + std::to_string(sa.size) + " */");
      r_names_[u] = sa.name;
      break;
    }
    case UOps::BARRIER:
      line(lang_.barrier);
      break;
    case UOps::CONST:
      r_names_[u] = r_.render_const(u->value(), *u->dtype);
      break;
    case UOps::RANGE: {
      if (unrolled_.count(u))
        line("#pragma GCC unroll " +
             std::to_string(u->src[1]->value().as_int() - u->src[0]->value().as_int()));
      std::string v = ssa("ridx", u);
      line("for (int " + v + " = " + ref(u->src[0]) + "; " + v + " < " + ref(u->src[1]) + "; " + v + "++) {");
      depth_++;
      break;
    }
    case UOps::ENDRANGE:
    case UOps::ENDIF:
      depth_--;
      line("}");
      break;
    case UOps::IF:
      line("if (" + ref(u->src[0]) + ") {");
      depth_++;
      break;
    case UOps::DEFINE_ACC: {
      // tinygrad parenthesises negative constants only as operands, not as an initial value
      std::string init = u->vcount > 1 ? r_.render_vector_const(u->src[0]->value(), *u->dtype, u->vcount)
                                       : strip_parens(r_.render_const(u->src[0]->value(), *u->dtype));
      line(vtype(u) + " " + ssa("acc", u) + " = " + init + ";");
      break;
    }
    case UOps::ALU:
      emit_alu(u);
      break;
    case UOps::LOAD: {
      if (std::holds_alternative<LaneRange>(u->arg)) {
        line(vtype(u) + " " + ssa("val", u) + " = " +
             r_.render_vector_load_range(ref(u->src[0]), *u->src[0]->dtype, strip_parens(ref(u->src[1])),
                                         strip_parens(ref(u->src[2])), strip_parens(ref(u->src[3])),
                                         strip_parens(ref(u->src[4])), u->vcount,
                                         std::get<LaneRange>(u->arg).stride) +
             ";");
        break;
      }
      std::string val =
          u->vcount > 1
              ? r_.render_vector_load(ref(u->src[0]), *u->src[0]->dtype, strip_parens(ref(u->src[1])),
                                      u->vcount, u->src[0]->op == UOps::DEFINE_LOCAL)
              : r_.render_load(ref(u->src[0]), *u->src[0]->dtype, strip_parens(ref(u->src[1])));
      if (u->src.size() > 3) {
        const UOp* a = u->src[3];
        std::string alt = u->vcount == 1  ? ref(a)
                          : a->is_const() ? r_.render_vector_const(a->value(), *u->dtype, u->vcount)
                                          : splat(u, ref(a));
        val = r_.code_for_op(Op::WHERE, {ref(u->src[2]), val, alt}, *u->dtype);
      }
      line(vtype(u) + " " + ssa("val", u) + " = " + val + ";");
      break;
    }
    case UOps::WMMA:
      line(vtype(u) + " " + ssa("wmma", u) + " = __" + std::get<WmmaArg>(u->arg).name + "(" + ref(u->src[0]) +
           ", " + ref(u->src[1]) + ", " + ref(u->src[2]) + ");");
      break;
    case UOps::GEP:
      r_names_[u] = r_.render_gep(ref(u->src[0]), u->src[0]->vcount, std::get<int>(u->arg));
      // a lane of a mask (RendererOpts::vector_masks) is -1 or 0: as a bool, 1 or 0
      if (u->dtype == DType::Bool && r_.opts().vector_masks) r_names_[u] = "(" + r_names_[u] + "!=0)";
      break;
    case UOps::STORE: {
      const UOp* v = u->src[2];
      std::string st =
          v->vcount > 1
              ? r_.render_vector_store(ref(u->src[0]), *u->src[0]->dtype, strip_parens(ref(u->src[1])),
                                       ref(v), v->vcount, u->src[0]->op == UOps::DEFINE_LOCAL)
              : r_.render_store(ref(u->src[0]), *u->src[0]->dtype, strip_parens(ref(u->src[1])), ref(v));
      line(u->src.size() > 3 ? "if (" + ref(u->src[3]) + ") { " + st + " }" : st);
      break;
    }
    case UOps::PHI:
      line(ref(u->src[0]) + " = " + r_.render_assign(*u->src[0]->dtype, ref(u->src[1])) + ";");
      r_names_[u] = ref(u->src[0]);
      break;
    case UOps::CAST:
      if (u->src.size() > 1) {
        emit_vectorize(u);
        break;
      }
      [[fallthrough]];
    case UOps::BITCAST: {
      DType from = *u->src[0]->dtype, to = *u->dtype;
      std::string val;
      if (u->op == UOps::BITCAST) {
        std::string pre = ssa("precast");
        line(r_.render_dtype(from) + " " + pre + " = " + ref(u->src[0]) + ";");
        val = r_.render_bitcast(pre, from, to);
      } else {
        val = r_.render_cast(ref(u->src[0]), from, to);
      }
      if (child_count_[u] <= 1 && inline_ok(u))
        r_names_[u] = val;
      else
        line(r_.render_dtype(to) + " " + ssa("cast", u) + " = " + r_.render_assign(to, val) + ";");
      break;
    }
    case UOps::NOOP:
    case UOps::SINK:
      break;
    default:
      fail("RuntimeError", "render: failed to render " + std::string(uops_name(u->op)));
    }
  }

  // several scalars as one vector; n copies of one scalar are a splat
  void emit_vectorize(const UOp* u) {
    std::vector<std::string> parts;
    for (const UOp* s : u->src) parts.push_back(ref(s));
    std::string val = r_.render_vectorize(parts, *u->dtype);
    if (child_count_[u] <= 1 && inline_ok(u))
      r_names_[u] = val;
    else
      line(vtype(u) + " " + ssa("cast", u) + " = " + val + ";");
  }

  void emit_alu(const UOp* u) {
    Op op = u->alu();
    std::vector<std::string> operands;
    for (const UOp* s : u->src) {
      bool same = s->op == UOps::ALU && s->alu() == op && (op == Op::ADD || op == Op::MUL || op == Op::XOR);
      operands.push_back(same ? strip_parens(ref(s)) : ref(s));
    }
    DType dt = *u->dtype;
    std::string val =
        u->vcount > 1 ? r_.code_for_vector_op(op, operands, dt, u->vcount) : r_.code_for_op(op, operands, dt);
    if (dt == DType::BFloat16 && op != Op::WHERE) val = "tg_bf16_round(" + val + ")";
    if (child_count_[u] == 0) fail("RuntimeError", "render: childless ALU op");
    if (child_count_[u] <= 1 && op != Op::MAX && inline_ok(u))
      r_names_[u] = val;
    else
      line(vtype(u) + " " + ssa("alu", u) + " = " + r_.render_assign(dt, val) + ";");
  }

  // tinygrad inlines every single-use value into its user's expression. A long chain would
  // then nest past what C compilers accept (clang: 256 brackets) and cost quadratic memory;
  // past kMaxInline levels the value gets a name instead. Real kernels stay far below it.
  static constexpr int kMaxInline = 96;
  bool inline_ok(const UOp* u) {
    int d = 0;
    for (const UOp* s : u->src) d = std::max(d, inline_depth_.get(s));
    if (d + 1 > kMaxInline) return false;
    inline_depth_[u] = d + 1;
    return true;
  }

  const CStyleRenderer& r_;
  const CStyleRenderer::Language& lang_;
  UOpMap<int> inline_depth_;
  std::ostringstream body_;
  std::vector<std::string> params_;
  std::unordered_map<const UOp*, std::string> r_names_;
  UOpMap<int> child_count_;
  std::map<std::string, int> counters_;
  int depth_ = 1;
  std::unordered_set<const UOp*> unrolled_; // RANGEs that get #pragma GCC unroll (window_loops)
};

} // namespace

std::string CStyleRenderer::render(const std::string& function_name,
                                   const std::vector<const UOp*>& uops) const {
  return Walk(*this).run(function_name, uops);
}

std::string CStyleRenderer::render_dtype(DType dtype, bool value) const {
  switch (dtype) {
  case DType::Bool:
    return "bool";
  case DType::Int8:
    return "signed char";
  case DType::UInt8:
    return "unsigned char";
  case DType::Int16:
    return "short";
  case DType::UInt16:
    return "unsigned short";
  case DType::Int32:
    return "int";
  case DType::UInt32:
    return "unsigned int";
  case DType::Int64:
    return "long";
  case DType::UInt64:
    return "unsigned long";
  case DType::Float16:
    return "half";
  case DType::BFloat16:
    return value ? "float" : "unsigned short";
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  }
  return "float";
}

std::string CStyleRenderer::code_for_op(Op op, const std::vector<std::string>& a, DType dtype) const {
  switch (op) {
  case Op::NEG:
    return dtype == DType::Bool ? "(!" + a[0] + ")" : "(-" + a[0] + ")";
  case Op::SQRT:
    return "sqrt(" + a[0] + ")";
  case Op::RECIP:
    return "(1/" + a[0] + ")";
  case Op::EXP2:
    return "exp2(" + a[0] + ")";
  case Op::LOG2:
    return "log2(" + a[0] + ")";
  case Op::SIN:
    return "sin(" + a[0] + ")";
  case Op::ADD:
    return "(" + a[0] + "+" + a[1] + ")";
  case Op::MUL:
    return "(" + a[0] + "*" + a[1] + ")";
  case Op::IDIV:
    return "(" + a[0] + "/" + a[1] + ")";
  case Op::MOD:
    return "(" + a[0] + "%" + a[1] + ")";
  case Op::MAX:
    return "max(" + a[0] + "," + a[1] + ")";
  case Op::CMPLT:
    return "(" + a[0] + "<" + a[1] + ")";
  case Op::CMPNE:
    return "(" + a[0] + "!=" + a[1] + ")";
  case Op::XOR:
    return "(" + a[0] + "^" + a[1] + ")";
  case Op::SHL:
    return "(" + a[0] + "<<" + a[1] + ")";
  case Op::SHR:
    return "(" + a[0] + ">>" + a[1] + ")";
  case Op::WHERE:
    return "(" + a[0] + "?" + a[1] + ":" + a[2] + ")";
  case Op::MULACC:
    return "((" + a[0] + "*" + a[1] + ")+" + a[2] + ")";
  default:
    fail("RuntimeError", "render: no code for " + std::string(op_name(op)));
  }
}

std::string CStyleRenderer::render_cast(const std::string& x, DType from, DType to) const {
  if (to == DType::BFloat16) return "tg_bf16_round((float)(" + x + "))";
  (void)from;
  return "(" + render_dtype(to) + ")(" + x + ")";
}

std::string CStyleRenderer::render_bitcast(const std::string& x, DType from, DType to) const {
  fail("RuntimeError", "render: bitcast from " + std::string(py_name(from)) + " to " +
                           std::string(py_name(to)) + " is not supported by " + opts().device + " (" + x +
                           ")");
}

std::string CStyleRenderer::render_const(const Scalar& v0, DType dtype) const {
  Scalar v = as_const(v0, dtype);
  std::string val;
  bool plain = dtype == DType::Float32 || dtype == DType::Int32 || dtype == DType::Bool;
  if (v.kind == Scalar::Kind::Float && std::isnan(v.f)) {
    val = "NAN";
  } else if (v.kind == Scalar::Kind::Float && std::isinf(v.f)) {
    val = v.f < 0 ? "-INFINITY" : "INFINITY";
  } else if (dtype == DType::Bool) {
    val = v.truthy() ? "1" : "0";
  } else if (dtype == DType::Float32) {
    val = shortest_double(v.f) + "f";
  } else if (dtype == DType::BFloat16) {
    val = shortest_double(double(bf16_to_float(float_to_bf16(float(v.f))))) + "f";
    plain = true;
  } else if (is_float(dtype)) {
    val = shortest_double(v.f);
  } else if (dtype == DType::UInt64) {
    val = std::to_string(uint64_t(v.i)) + "ull";
  } else if (dtype == DType::Int64 && v.i == INT64_MIN) {
    val = "(-9223372036854775807ll-1)";
  } else if (dtype == DType::Int64) {
    val = std::to_string(v.i) + "ll";
  } else if (dtype == DType::UInt32) {
    val = std::to_string(uint32_t(v.i)) + "u";
  } else {
    val = std::to_string(v.i);
  }
  std::string out = plain ? val : "(" + render_dtype(dtype) + ")(" + val + ")";
  return is_negative(v, dtype) ? "(" + out + ")" : out;
}

std::string CStyleRenderer::render_load(const std::string& buf, DType buf_dtype,
                                        const std::string& idx) const {
  std::string val = buf + "[" + idx + "]";
  return buf_dtype == DType::BFloat16 ? "tg_bf16_to_float(" + val + ")" : val;
}

std::string CStyleRenderer::render_store(const std::string& buf, DType buf_dtype, const std::string& idx,
                                         const std::string& value) const {
  std::string val = buf_dtype == DType::BFloat16 ? "tg_float_to_bf16(" + value + ")" : value;
  return buf + "[" + idx + "] = " + val + ";";
}

std::string CStyleRenderer::render_assign(DType, const std::string& value) const { return value; }

// The base renders tinygrad's float4 vectors (OpenCL, CUDA): `float4` values, loads and stores
// through a cast pointer, `(float4)(a,b,c,d)` or `make_float4(a,b,c,d)`, lanes as .x .y .z .w.
std::string CStyleRenderer::render_vector_dtype(DType dtype, int lanes) const {
  if (lang_.float4.empty())
    fail("RuntimeError", "render: " + opts().device + " does not render vectors (" +
                             std::string(py_name(dtype)) + " x" + std::to_string(lanes) + ")");
  return render_dtype(dtype, false) + std::to_string(lanes);
}

std::string CStyleRenderer::render_vector_load(const std::string& buf, DType dtype, const std::string& idx,
                                               int lanes, bool local) const {
  const std::string vec = render_vector_dtype(dtype, lanes);
  const std::string& prefix = local && lang_.smem_prefix_for_cast ? lang_.smem_prefix : lang_.buffer_prefix;
  return "(" + vec + ")(*((" + prefix + vec + "*)(" + buf + "+" + idx + ")))";
}

std::string CStyleRenderer::render_vector_store(const std::string& buf, DType dtype, const std::string& idx,
                                                const std::string& value, int lanes, bool local) const {
  const std::string vec = render_vector_dtype(dtype, lanes);
  const std::string& prefix = local && lang_.smem_prefix_for_cast ? lang_.smem_prefix : lang_.buffer_prefix;
  return "*((" + prefix + vec + "*)(" + buf + "+" + idx + ")) = " + value + ";";
}

std::string CStyleRenderer::render_vectorize(const std::vector<std::string>& parts, DType dtype) const {
  const int lanes = int(parts.size());
  std::string list;
  for (const std::string& p : parts) list += (list.empty() ? "" : ",") + p;
  if (lang_.float4.empty()) {
    if (std::all_of(parts.begin(), parts.end(), [&](const std::string& p) { return p == parts[0]; }))
      return render_splat(dtype, lanes, parts[0]);
    return "(" + render_vector_dtype(dtype, lanes) + "){" + list + "}";
  }
  std::string make = lang_.float4;
  make.replace(make.find("float4"), 6, render_vector_dtype(dtype, lanes));
  return make + "(" + list + ")";
}

std::string CStyleRenderer::render_vector_const(const Scalar& value, DType dtype, int lanes) const {
  if (lang_.float4.empty()) return render_splat(dtype, lanes, strip_parens(render_const(value, dtype)));
  // tinygrad renders a vector's elements as Python's str() of the value: 0.0, not 0.0f
  Scalar v = as_const(value, dtype);
  std::string e = v.kind == Scalar::Kind::Float && std::isnan(v.f)   ? "NAN"
                  : v.kind == Scalar::Kind::Float && std::isinf(v.f) ? (v.f < 0 ? "-INFINITY" : "INFINITY")
                  : dtype == DType::Bool                             ? (v.truthy() ? "1" : "0")
                                                                     : v.repr();
  return render_vectorize(std::vector<std::string>(size_t(lanes), e), dtype);
}

std::string CStyleRenderer::render_gep(const std::string& vec, int lanes, int i) const {
  if (!lang_.float4.empty() && lanes <= 4) return vec + "." + "xyzw"[i];
  return vec + "[" + std::to_string(i) + "]";
}

std::string CStyleRenderer::render_vector_load_range(const std::string&, DType dtype, const std::string&,
                                                     const std::string&, const std::string&,
                                                     const std::string&, int lanes, int) const {
  return render_vector_dtype(dtype, lanes);
}

std::string CStyleRenderer::render_splat(DType dtype, int lanes, const std::string& scalar) const {
  return "(" + render_vector_dtype(dtype, lanes) + ")(" + scalar + ")";
}

std::string CStyleRenderer::code_for_vector_op(Op op, const std::vector<std::string>& a, DType dtype,
                                               int) const {
  return code_for_op(op, a, dtype);
}

bool uses_dtype(const std::vector<const UOp*>& uops, DType dtype) {
  for (const UOp* u : uops)
    if (u->dtype == dtype) return true;
  return false;
}

std::string bf16_helpers(const Bf16Words& w) {
  auto wrap = [](const std::string& pattern, const std::string& x) {
    std::string out = pattern;
    return out.replace(out.find("%s"), 2, x);
  };
  const std::string& us = w.ushort_type;
  return "#ifndef TG_BF16_HELPERS\n#define TG_BF16_HELPERS\n" + w.qualifier + "float tg_bf16_to_float(" + us +
         " x) {\n  return " + wrap(w.float_of_bits, "(" + w.uint_type + ")x << 16") + ";\n}\n" + w.qualifier +
         us + " tg_float_to_bf16(float x) {\n  " + w.uint_type + " u = " + wrap(w.bits_of_float, "x") +
         ";\n  if ((u & 0x7fffffffu) > 0x7f800000u) return (" + us + ")((u >> 16) | 0x40u);\n  return (" +
         us + ")((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n}\n" + w.qualifier +
         "float tg_bf16_round(float x) { return tg_bf16_to_float(tg_float_to_bf16(x)); }\n#endif\n";
}

std::string CStyleRenderer::render_prefix(const std::vector<const UOp*>&) const { return ""; }

std::string CStyleRenderer::render_kernel(const std::string& name, const std::vector<std::string>& params,
                                          const std::string& body,
                                          const std::vector<const UOp*>& uops) const {
  std::ostringstream os;
  os << render_prefix(uops) << lang_.kernel_prefix << "void " << name << "(";
  for (size_t i = 0; i < params.size(); i++) os << (i ? ", " : "") << params[i];
  os << ") {\n" << body << "}\n";
  return os.str();
}

} // namespace tg
