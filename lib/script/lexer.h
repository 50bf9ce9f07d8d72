// script layer, lexer: Python's tokens for the .tg subset, with INDENT/DEDENT, implicit line
// joining inside brackets and explicit joining with a backslash.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tg::script {

enum class TK : uint8_t { Name, Int, Float, Str, Bytes, Op, Newline, Indent, Dedent, End };

struct Token {
  TK kind;
  std::string text; // Name, Op, Str/Bytes (decoded contents)
  int64_t ival = 0;
  double fval = 0;
  int line = 0;
  bool fstring = false; // Str from f"...": its {fields} are parsed by the parser
};

// Raises PyError("SyntaxError" | "IndentationError", ..., line).
std::vector<Token> tokenize(const std::string& source);

} // namespace tg::script
