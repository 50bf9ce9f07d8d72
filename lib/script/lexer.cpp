#include "script/lexer.h"

#include <cerrno>
#include <cstdlib>

#include "script/value.h"

namespace tg::script {
namespace {

[[noreturn]] void syntax_error(const std::string& msg, int line, const std::string& kind = "SyntaxError") {
  throw PyError(kind, msg, line);
}

bool is_name_start(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
bool is_name_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

// Longest first.
const char* const kOps[] = {
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", "+=", "-=",
    "*=",  "/=",  "%=",  "@=",  "&=",  "|=", "^=", ":=", "(",  ")",  "[",  "]",  "{",  "}",  ",",  ":",
    ".",   ";",   "@",   "=",   "+",   "-",  "*",  "/",  "%",  "&",  "|",  "^",  "~",  "<",  ">"};

class Lexer {
public:
  explicit Lexer(const std::string& src) : s_(src) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    bool at_line_start = true;
    while (pos_ < s_.size()) {
      if (at_line_start && depth_ == 0) {
        if (!indentation()) continue; // blank or comment-only line
        at_line_start = false;
      }
      char c = s_[pos_];
      if (c == '\n') {
        ++pos_;
        if (depth_ == 0) {
          push(TK::Newline, "");
          at_line_start = true;
        }
        ++line_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (c == '\\') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
          pos_ += 2;
          ++line_;
        } else if (pos_ + 2 < s_.size() && s_[pos_ + 1] == '\r' && s_[pos_ + 2] == '\n') {
          pos_ += 3;
          ++line_;
        } else {
          syntax_error("unexpected character after line continuation character", line_);
        }
      } else if (std::isdigit((unsigned char)c) ||
                 (c == '.' && pos_ + 1 < s_.size() && std::isdigit((unsigned char)s_[pos_ + 1]))) {
        number();
      } else if (is_name_start(c)) {
        size_t b = pos_;
        while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
        std::string word = s_.substr(b, pos_ - b);
        if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"') && is_string_prefix(word)) {
          string(word);
        } else {
          push(TK::Name, word);
        }
      } else if (c == '\'' || c == '"') {
        string("");
      } else {
        op();
      }
    }
    if (depth_ > 0) syntax_error("unexpected EOF while parsing", line_);
    if (!tokens_.empty() && tokens_.back().kind != TK::Newline && tokens_.back().kind != TK::Dedent &&
        tokens_.back().kind != TK::Indent)
      push(TK::Newline, "");
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TK::Dedent, "");
    }
    push(TK::End, "");
    return std::move(tokens_);
  }

private:
  void push(TK k, std::string text) {
    Token t;
    t.kind = k;
    t.text = std::move(text);
    t.line = line_;
    tokens_.push_back(std::move(t));
  }

  // At the start of a logical line: measures indentation and emits INDENT/DEDENT. Returns
  // false for a blank or comment-only line (consumed).
  bool indentation() {
    int col = 0;
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\f')) {
      col = s_[pos_] == '\t' ? (col / 8 + 1) * 8 : col + 1;
      ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '\r') ++pos_;
    if (pos_ >= s_.size()) return false;
    if (s_[pos_] == '\n' || s_[pos_] == '#') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      if (pos_ < s_.size()) ++pos_;
      ++line_;
      return false;
    }
    if (col > indents_.back()) {
      if (tokens_.empty() || tokens_.back().kind != TK::Newline) {
        // first line of the file indented
        syntax_error("unexpected indent", line_, "IndentationError");
      }
      indents_.push_back(col);
      push(TK::Indent, "");
    } else {
      while (col < indents_.back()) {
        indents_.pop_back();
        push(TK::Dedent, "");
      }
      if (col != indents_.back())
        syntax_error("unindent does not match any outer indentation level", line_, "IndentationError");
    }
    return true;
  }

  static bool is_string_prefix(const std::string& w) {
    std::string l;
    for (char c : w) l += char(std::tolower((unsigned char)c));
    return l == "r" || l == "b" || l == "rb" || l == "br" || l == "f" || l == "u" || l == "rf" || l == "fr";
  }

  void string(const std::string& prefix) {
    bool raw = false, bytes = false, fstring = false;
    for (char c : prefix) {
      char l = char(std::tolower((unsigned char)c));
      raw |= l == 'r';
      bytes |= l == 'b';
      fstring |= l == 'f';
    }
    char q = s_[pos_];
    bool triple = s_.compare(pos_, 3, std::string(3, q)) == 0;
    pos_ += triple ? 3 : 1;
    int start_line = line_;
    std::string out;
    while (true) {
      if (pos_ >= s_.size())
        syntax_error(triple ? "unterminated triple-quoted string literal" : "unterminated string literal",
                     start_line);
      char c = s_[pos_];
      if (triple ? s_.compare(pos_, 3, std::string(3, q)) == 0 : c == q) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (c == '\n') {
        if (!triple) syntax_error("unterminated string literal", start_line);
        ++line_;
      }
      if (c == '\\' && pos_ + 1 < s_.size()) {
        char e = s_[pos_ + 1];
        if (raw) {
          out += c;
          out += e;
          pos_ += 2;
          if (e == '\n') ++line_;
          continue;
        }
        pos_ += 2;
        switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case '\\':
          out += '\\';
          break;
        case '\'':
          out += '\'';
          break;
        case '"':
          out += '"';
          break;
        case '\n':
          ++line_;
          break;
        case 'x': {
          if (pos_ + 2 > s_.size()) syntax_error("truncated \\xXX escape", line_);
          out += char(std::strtol(s_.substr(pos_, 2).c_str(), nullptr, 16));
          pos_ += 2;
          break;
        }
        default:
          out += '\\';
          out += e;
        }
        continue;
      }
      out += c;
      ++pos_;
    }
    push(bytes ? TK::Bytes : TK::Str, out);
    tokens_.back().fstring = fstring;
  }

  void number() {
    size_t b = pos_;
    std::string digits;
    auto take_digits = [&](auto pred) {
      while (pos_ < s_.size() && (pred(s_[pos_]) || s_[pos_] == '_')) {
        if (s_[pos_] != '_') digits += s_[pos_];
        ++pos_;
      }
    };
    auto dec = [](char c) { return std::isdigit((unsigned char)c) != 0; };
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1])) {
      char base_c = char(std::tolower((unsigned char)s_[pos_ + 1]));
      int base = base_c == 'x' ? 16 : base_c == 'o' ? 8 : 2;
      pos_ += 2;
      take_digits([](char c) { return std::isxdigit((unsigned char)c) != 0; });
      errno = 0;
      char* end = nullptr;
      unsigned long long v = std::strtoull(digits.c_str(), &end, base);
      if (digits.empty() || *end) syntax_error("invalid number literal", line_);
      if (errno == ERANGE || v > uint64_t(INT64_MAX))
        syntax_error("integer literal too large for int64", line_);
      Token t;
      t.kind = TK::Int;
      t.ival = int64_t(v);
      t.line = line_;
      tokens_.push_back(t);
      return;
    }
    bool is_float = false;
    take_digits(dec);
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      digits += '.';
      ++pos_;
      take_digits(dec);
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t save = pos_;
      std::string save_d = digits;
      digits += 'e';
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) digits += s_[pos_++];
      size_t before = digits.size();
      take_digits(dec);
      if (digits.size() == before) {
        pos_ = save;
        digits = save_d;
      } else {
        is_float = true;
      }
    }
    if (pos_ < s_.size() && (s_[pos_] == 'j' || s_[pos_] == 'J'))
      syntax_error("complex numbers are not supported in .tg scripts", line_);
    if (pos_ < s_.size() && is_name_start(s_[pos_])) syntax_error("invalid decimal literal", line_);
    Token t;
    t.line = line_;
    if (is_float) {
      t.kind = TK::Float;
      t.fval = std::strtod(digits.c_str(), nullptr);
    } else {
      if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
        syntax_error("leading zeros in decimal integer literals are not permitted", line_);
      errno = 0;
      unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
      if (errno == ERANGE || v > uint64_t(INT64_MAX))
        syntax_error("integer literal too large for int64", line_);
      t.kind = TK::Int;
      t.ival = int64_t(v);
    }
    (void)b;
    tokens_.push_back(t);
  }

  void op() {
    for (const char* o : kOps) {
      size_t n = std::strlen(o);
      if (s_.compare(pos_, n, o) == 0) {
        std::string text(o);
        if (text == "(" || text == "[" || text == "{") ++depth_;
        if (text == ")" || text == "]" || text == "}") {
          if (depth_ == 0) syntax_error("unmatched '" + text + "'", line_);
          --depth_;
        }
        pos_ += n;
        push(TK::Op, text);
        return;
      }
    }
    syntax_error(std::string("invalid character '") + s_[pos_] + "'", line_);
  }

  const std::string& s_;
  size_t pos_ = 0;
  int line_ = 1;
  int depth_ = 0;
  std::vector<int> indents_;
  std::vector<Token> tokens_;
};

} // namespace

std::vector<Token> tokenize(const std::string& source) { return Lexer(source).run(); }

} // namespace tg::script
