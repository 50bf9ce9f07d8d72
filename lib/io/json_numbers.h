// A guard for JSON read by rapidjson in full-precision mode (cereal turns that mode on).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace tg::io {

// The byte offset of the first number (outside strings) that rapidjson's full-precision parser
// mishandles, if any: a magnitude past 1e309 (it asserts), below 1e-324 (it checks underflow against the
// digit count, not the value, so a long mantissa with a large negative exponent indexes past its table of
// powers of ten: a crash found by fuzzing), or a zero with an exponent (it normalises 0, undefined). No
// writer of tg's formats emits either: no double is that large or small, and zero is written "0.0".
std::optional<size_t> first_unreadable_number(std::string_view json);

} // namespace tg::io
