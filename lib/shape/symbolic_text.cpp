// Reading back the text Expr::render_debug() writes, so artifacts can carry symbolic
// dimensions as text: 3, -2, i[1-10], (idx0*i[1-10]), (a+b+3), (a//4), (a%4), (a<4), (a and b).
#include "shape/symbolic_text.h"

#include <cctype>

#include "util/error.h"

namespace tg {
namespace {

struct Parser {
  const std::string& s;
  size_t at = 0;

  [[noreturn]] void bad(const std::string& why) const {
    fail("ValueError", "bad symbolic expression '" + s + "' at " + std::to_string(at) + ": " + why);
  }
  bool eat(const std::string& t) {
    if (s.compare(at, t.size(), t) != 0) return false;
    at += t.size();
    return true;
  }
  int64_t number() {
    size_t start = at;
    if (at < s.size() && s[at] == '-') ++at;
    while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
    if (at == start || (at == start + 1 && s[start] == '-')) bad("expected a number");
    try {
      return std::stoll(s.substr(start, at - start));
    } catch (const std::exception&) {
      bad("number out of range");
    }
  }
  Expr term() {
    if (eat("(")) {
      Expr first = term();
      std::vector<Expr> sum{first}, ands{first};
      Expr out = first;
      char kind = 0;
      while (!eat(")")) {
        if (at >= s.size()) bad("missing ')'");
        if (eat("+"))
          kind = '+', sum.push_back(term());
        else if (eat(" and "))
          kind = '&', ands.push_back(term());
        else if (eat("*"))
          out = out * term(), kind = '*';
        else if (eat("//"))
          out = out.floordiv(number()), kind = '/';
        else if (eat("%"))
          out = out % number(), kind = '%';
        else if (eat("<"))
          out = out < number(), kind = '<';
        else
          bad("expected an operator");
      }
      if (kind == '+') return Expr::sum(sum);
      if (kind == '&') return Expr::ands(ands);
      return out;
    }
    if (at < s.size() && (s[at] == '-' || std::isdigit(static_cast<unsigned char>(s[at]))))
      return Expr(number());
    size_t start = at;
    while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_')) ++at;
    if (at == start) bad("expected a number, a variable or '('");
    std::string name = s.substr(start, at - start);
    if (!eat("[")) bad("a variable needs its bounds, as name[min-max]");
    int64_t lo = number();
    if (!eat("-")) bad("expected '-' between a variable's bounds");
    int64_t hi = number();
    if (!eat("]")) bad("expected ']'");
    return Expr::var(name, lo, hi);
  }
};

} // namespace

Expr parse_expr(const std::string& text) {
  Parser p{text};
  Expr e = p.term();
  if (p.at != text.size()) p.bad("unexpected text after the expression");
  return e;
}

} // namespace tg
