// JSON number guard. See json_numbers.h.
#include "io/json_numbers.h"

#include <string>

namespace tg::io {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The largest double's significant digits: 1.7976931348623157e308.
constexpr std::string_view kMaxDigits = "17976931348623157";

// For the number starting at `at`: whether it is 0 without an exponent, or its magnitude is in
// [1e-324, the largest double]. Moves `at` past the number.
bool readable_number(std::string_view s, size_t& at) {
  if (at < s.size() && s[at] == '-') ++at;
  // The value lies in [10^(order-1), 10^order); `digits` holds its first significant digits.
  long order = 0;
  std::string digits;
  bool more = false; // a nonzero digit past those kept
  auto take = [&](char c) {
    if (digits.empty() && c == '0') return;
    if (digits.size() < kMaxDigits.size())
      digits += c;
    else if (c != '0')
      more = true;
  };
  for (; at < s.size() && is_digit(s[at]); ++at) {
    take(s[at]);
    if (!digits.empty()) ++order;
  }
  if (at < s.size() && s[at] == '.')
    for (++at; at < s.size() && is_digit(s[at]); ++at) {
      if (digits.empty() && s[at] == '0') --order;
      take(s[at]);
    }
  long exponent = 0;
  if (at < s.size() && (s[at] == 'e' || s[at] == 'E')) {
    if (digits.empty()) return false; // its normalisation counts the leading zeros of 0 (undefined)
    ++at;
    bool minus = at < s.size() && s[at] == '-';
    if (at < s.size() && (s[at] == '-' || s[at] == '+')) ++at;
    for (; at < s.size() && is_digit(s[at]); ++at)
      if (exponent < 100000) exponent = exponent * 10 + (s[at] - '0');
    if (minus) exponent = -exponent;
  }
  if (digits.empty()) return true;
  long magnitude = order + exponent;
  if (magnitude < -323 || magnitude > 309) return false;
  if (magnitude < 309) return true;
  int cmp = digits.compare(kMaxDigits.substr(0, digits.size()));
  return cmp < 0 || (cmp == 0 && !more);
}

} // namespace

std::optional<size_t> first_unreadable_number(std::string_view json) {
  bool in_string = false;
  for (size_t i = 0; i < json.size();) {
    char c = json[i];
    if (in_string) {
      if (c == '\\')
        i += 2;
      else {
        in_string = c != '"';
        ++i;
      }
    } else if (c == '"') {
      in_string = true;
      ++i;
    } else if (c == '-' || is_digit(c)) {
      size_t start = i;
      if (!readable_number(json, i)) return start;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

} // namespace tg::io
