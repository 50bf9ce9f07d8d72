// Warnings: one line on stderr, "tg-NAME: warning: message", for what a tool repaired or
// worked around and the user should know (a damaged cache entry rebuilt). The driver names
// the tool once (run_tool does).
#pragma once
#include <string>

namespace tg {

void set_tool_name(const char* tool);
void warn(const std::string& message);

} // namespace tg
