// Text from an input (a name in an artifact or a model) made safe for a one-line message:
// control characters and bytes that are not UTF-8 written as \xNN.
#pragma once
#include <string>

namespace tg {

std::string printable(const std::string& text);

} // namespace tg
