#include "render/render_c.h"

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <unordered_map>

#include "util/error.h"

namespace tg {

namespace {

constexpr const char* kBf16Helpers = R"(#ifndef TG_BF16_HELPERS
#define TG_BF16_HELPERS
static inline float tg_bf16_to_float(unsigned short x) {
  return __builtin_bit_cast(float, (unsigned int)x << 16);
}
static inline unsigned short tg_float_to_bf16(float x) {
  unsigned int u = __builtin_bit_cast(unsigned int, x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static inline float tg_bf16_round(float x) { return tg_bf16_to_float(tg_float_to_bf16(x)); }
#endif
)";

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

std::string render_alu(Op op, const std::vector<std::string>& a, DType dtype) {
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
    return "((" + a[0] + ">" + a[1] + ")?" + a[0] + ":" + a[1] + ")";
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
    fail("RuntimeError", "render_c: no C for " + std::string(op_name(op)));
  }
}

class CRenderer {
public:
  std::string render(const std::string& name, const std::vector<const UOp*>& uops) {
    for (const UOp* u : uops)
      for (const UOp* s : u->src) child_count_[s]++;
    for (const UOp* u : uops) {
      if (u->dtype == DType::BFloat16) needs_bf16_ = true;
      emit(u);
    }
    std::ostringstream os;
    os << "#include <tgmath.h>\n";
    if (needs_bf16_) os << kBf16Helpers;
    os << "void " << name << "(";
    for (size_t i = 0; i < params_.size(); i++) os << (i ? ", " : "") << params_[i];
    os << ") {\n" << body_.str() << "}\n";
    return os.str();
  }

private:
  void line(const std::string& s) { body_ << std::string(size_t(depth_) * 2, ' ') << s << "\n"; }
  std::string ssa(const std::string& prefix, const UOp* u = nullptr) {
    std::string n = prefix + std::to_string(counters_[prefix]++);
    if (u) r_[u] = n;
    return n;
  }
  const std::string& ref(const UOp* u) const {
    auto it = r_.find(u);
    if (it == r_.end()) fail("RuntimeError", "render_c: UOp used before it is defined");
    return it->second;
  }

  // a value of dtype `to` from a C expression of dtype `from`
  std::string cast_expr(const std::string& x, DType from, DType to) {
    if (to == DType::BFloat16) return "tg_bf16_round((float)(" + x + "))";
    (void)from;
    return "(" + c_type(to) + ")(" + x + ")";
  }

  std::string bitcast_expr(const std::string& x, DType from, DType to) {
    std::string bits = from == DType::BFloat16 ? "tg_float_to_bf16(" + x + ")" : x;
    if (to == DType::BFloat16) return "tg_bf16_to_float(__builtin_bit_cast(unsigned short, " + bits + "))";
    return "__builtin_bit_cast(" + c_type(to) + ", " + bits + ")";
  }

  void emit(const UOp* u) {
    switch (u->op) {
    case UOps::DEFINE_GLOBAL: {
      auto& ga = std::get<GlobalArg>(u->arg);
      std::string nm = "data" + std::to_string(ga.idx);
      params_.push_back((ga.mutable_ ? "" : "const ") + c_type(*u->dtype, false) + "* restrict " + nm);
      r_[u] = nm;
      break;
    }
    case UOps::DEFINE_VAR: {
      auto& va = std::get<VarArg>(u->arg);
      params_.push_back("const int " + va.name);
      r_[u] = va.name;
      break;
    }
    case UOps::CONST:
      r_[u] = render_c_const(u->value(), *u->dtype);
      break;
    case UOps::RANGE: {
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
    case UOps::DEFINE_ACC:
      line(c_type(*u->dtype) + " " + ssa("acc", u) + " = " + render_c_const(u->src[0]->value(), *u->dtype) +
           ";");
      break;
    case UOps::ALU:
      emit_alu(u);
      break;
    case UOps::LOAD: {
      DType buf_dt = *u->src[0]->dtype;
      std::string val = ref(u->src[0]) + "[" + strip_parens(ref(u->src[1])) + "]";
      if (buf_dt == DType::BFloat16) val = "tg_bf16_to_float(" + val + ")";
      if (u->src.size() > 3) val = "(" + ref(u->src[2]) + "?" + val + ":" + ref(u->src[3]) + ")";
      line(c_type(*u->dtype) + " " + ssa("val", u) + " = " + val + ";");
      break;
    }
    case UOps::STORE: {
      DType buf_dt = *u->src[0]->dtype;
      std::string val = ref(u->src[2]);
      if (buf_dt == DType::BFloat16) val = "tg_float_to_bf16(" + val + ")";
      std::string st = ref(u->src[0]) + "[" + strip_parens(ref(u->src[1])) + "] = " + val + ";";
      line(u->src.size() > 3 ? "if (" + ref(u->src[3]) + ") { " + st + " }" : st);
      break;
    }
    case UOps::PHI:
      line(ref(u->src[0]) + " = " + ref(u->src[1]) + ";");
      r_[u] = ref(u->src[0]);
      break;
    case UOps::CAST:
    case UOps::BITCAST: {
      DType from = *u->src[0]->dtype, to = *u->dtype;
      std::string val;
      if (u->op == UOps::BITCAST) {
        std::string pre = ssa("precast");
        line(c_type(from) + " " + pre + " = " + ref(u->src[0]) + ";");
        val = bitcast_expr(pre, from, to);
      } else {
        val = cast_expr(ref(u->src[0]), from, to);
      }
      if (child_count_[u] <= 1)
        r_[u] = val;
      else
        line(c_type(to) + " " + ssa("cast", u) + " = " + val + ";");
      break;
    }
    case UOps::NOOP:
    case UOps::SINK:
      break;
    default:
      fail("RuntimeError", "render_c: failed to render " + std::string(uops_name(u->op)));
    }
  }

  void emit_alu(const UOp* u) {
    Op op = u->alu();
    std::vector<std::string> operands;
    for (const UOp* s : u->src) {
      bool same = s->op == UOps::ALU && s->alu() == op && (op == Op::ADD || op == Op::MUL || op == Op::XOR);
      operands.push_back(same ? strip_parens(ref(s)) : ref(s));
    }
    DType dt = *u->dtype;
    std::string val = render_alu(op, operands, dt);
    if (dt == DType::BFloat16 && op != Op::WHERE) val = "tg_bf16_round(" + val + ")";
    if (child_count_[u] == 0) fail("RuntimeError", "render_c: childless ALU op");
    if (child_count_[u] <= 1 && op != Op::MAX)
      r_[u] = val;
    else
      line(c_type(dt) + " " + ssa("alu", u) + " = " + val + ";");
  }

  std::ostringstream body_;
  std::vector<std::string> params_;
  std::unordered_map<const UOp*, std::string> r_;
  std::unordered_map<const UOp*, int> child_count_;
  std::map<std::string, int> counters_;
  int depth_ = 1;
  bool needs_bf16_ = false;
};

} // namespace

std::string c_type(DType dtype, bool value) {
  switch (dtype) {
  case DType::Bool:
    return "_Bool";
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
    return "__fp16";
  case DType::BFloat16:
    return value ? "float" : "unsigned short";
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  }
  return "float";
}

std::string render_c_const(const Scalar& v0, DType dtype) {
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
  std::string out = plain ? val : "(" + c_type(dtype) + ")(" + val + ")";
  return is_negative(v, dtype) ? "(" + out + ")" : out;
}

std::string render_c(const std::string& function_name, const std::vector<const UOp*>& uops) {
  return CRenderer().render(function_name, uops);
}

} // namespace tg
