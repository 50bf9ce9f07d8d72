#include "codegen/kernel_interface.h"

#include <cctype>

namespace tg {

namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool has_word(std::string_view s, std::string_view word) {
  for (size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1)) {
    bool start = at == 0 || !is_ident_char(s[at - 1]);
    bool end = at + word.size() == s.size() || !is_ident_char(s[at + word.size()]);
    if (start && end) return true;
  }
  return false;
}

// The parameter list of the definition `name(...) {` (or `@name(...) ... {` in IR): the text
// between the parentheses, split at top-level commas.
std::optional<std::vector<std::string_view>> parameters(std::string_view src, std::string_view name,
                                                        bool ir) {
  std::string head = (ir ? "@" : "") + std::string(name) + "(";
  for (size_t at = src.find(head); at != std::string_view::npos; at = src.find(head, at + 1)) {
    if (!ir && at > 0 && is_ident_char(src[at - 1])) continue;
    if (ir && src.rfind("define", at) == std::string_view::npos) continue;
    size_t open = at + head.size() - 1, depth = 0, close = std::string_view::npos;
    for (size_t i = open; i < src.size(); ++i) {
      if (src[i] == '(') ++depth;
      if (src[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string_view::npos) return std::nullopt;
    // a definition, not a call or a declaration: the body follows (IR: after attributes)
    size_t next = src.find_first_not_of(" \t\r\n", close + 1);
    size_t brace = src.find('{', close), semi = src.find(';', close);
    bool definition = ir ? brace != std::string_view::npos && (semi == std::string_view::npos || brace < semi)
                         : next != std::string_view::npos && src[next] == '{';
    if (ir) { // the line must start with "define"
      size_t line = src.rfind('\n', at);
      line = line == std::string_view::npos ? 0 : line + 1;
      definition = definition && trim(src.substr(line, at - line)).substr(0, 6) == "define";
    }
    if (!definition) continue;
    std::vector<std::string_view> out;
    std::string_view inside = trim(src.substr(open + 1, close - open - 1));
    if (inside.empty() || inside == "void") return out;
    size_t start = 0;
    depth = 0;
    for (size_t i = 0; i <= inside.size(); ++i) {
      if (i < inside.size() && (inside[i] == '(' || inside[i] == '<' || inside[i] == '[')) ++depth;
      if (i < inside.size() && (inside[i] == ')' || inside[i] == '>' || inside[i] == ']')) --depth;
      if (i == inside.size() || (inside[i] == ',' && depth == 0)) {
        out.push_back(trim(inside.substr(start, i - start)));
        start = i + 1;
      }
    }
    return out;
  }
  return std::nullopt;
}

// "int gidx0 = get_group_id(0); /* 5 */" and CUDA's "blockIdx.x": the axis and the size.
void read_grid(std::string_view src, KernelInterface& out) {
  struct Pattern {
    std::string_view text;
    bool group;
  };
  static const Pattern patterns[] = {
      {"get_group_id(", true}, {"blockIdx.", true}, {"get_local_id(", false}, {"threadIdx.", false}};
  for (size_t line_start = 0; line_start < src.size();) {
    size_t line_end = src.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = src.size();
    std::string_view line = trim(src.substr(line_start, line_end - line_start));
    line_start = line_end + 1;
    if (line.substr(0, 4) != "int " || line.size() < 8 || line.substr(line.size() - 2) != "*/") continue;
    size_t comment = line.rfind("/*");
    size_t eq = line.find(" = ");
    if (comment == std::string_view::npos || eq == std::string_view::npos) continue;
    std::string_view value = line.substr(eq + 3);
    std::string_view size_text = trim(line.substr(comment + 2, line.size() - comment - 4));
    int64_t size = 0;
    bool numeric = !size_text.empty() && size_text.size() < 12;
    for (char c : size_text) {
      numeric = numeric && std::isdigit(static_cast<unsigned char>(c));
      if (numeric) size = size * 10 + (c - '0');
    }
    for (const Pattern& p : patterns) {
      if (value.substr(0, p.text.size()) != p.text) continue;
      char axis_char = value.size() > p.text.size() ? value[p.text.size()] : '?';
      int axis = axis_char >= '0' && axis_char <= '2'   ? axis_char - '0'
                 : axis_char >= 'x' && axis_char <= 'z' ? axis_char - 'x'
                                                        : -1;
      if (axis < 0 || !numeric) break;
      auto& grid = p.group ? out.groups : out.local;
      if (!grid) grid = std::array<int64_t, 3>{1, 1, 1};
      (*grid)[size_t(axis)] *= size; // (an axis rendered as several indices multiplies)
      break;
    }
  }
}

} // namespace

std::optional<KernelInterface> kernel_interface(std::string_view src, std::string_view name,
                                                std::string& why) {
  bool ir = src.find("define ") != std::string_view::npos &&
            src.find("@" + std::string(name) + "(") != std::string_view::npos;
  auto params = parameters(src, name, ir);
  if (!params) {
    why = "its source defines no function " + std::string(name);
    return std::nullopt;
  }
  KernelInterface out;
  for (size_t i = 0; i < params->size(); ++i) {
    std::string_view p = (*params)[i];
    bool pointer = ir ? p.substr(0, 3) == "ptr" || p.find('*') != std::string_view::npos
                      : p.find('*') != std::string_view::npos;
    bool integer = ir ? p.substr(0, 4) == "i32 " : has_word(p, "int") && !pointer;
    if (pointer && out.ints == 0) {
      out.buffer_written.push_back(ir ? !has_word(p, "readonly")
                                      : !has_word(p.substr(0, p.find('*')), "const"));
    } else if (integer) {
      ++out.ints;
    } else {
      why = "parameter " + std::to_string(i + 1) + " of " + std::string(name) +
            (pointer ? " is a buffer after an int" : " is neither a buffer nor an int");
      return std::nullopt;
    }
  }
  read_grid(src, out);
  return out;
}

} // namespace tg
