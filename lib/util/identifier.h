// util: what may name a kernel, a kernel parameter, a symbolic variable or an exported C
// symbol: an ASCII C identifier (never locale-dependent).
#pragma once
#include <string_view>

namespace tg {

inline bool is_identifier(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

} // namespace tg
