#include "util/warn.h"

#include <cstdio>

namespace tg {

namespace {
const char* g_tool_name = "tg";
}

void set_tool_name(const char* tool) { g_tool_name = tool; }

void warn(const std::string& message) {
  std::fprintf(stderr, "%s: warning: %s\n", g_tool_name, message.c_str());
}

} // namespace tg
