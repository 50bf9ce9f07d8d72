// runtime layer, state files: a program's states (ProgramRun::states()) in a safetensors file,
// so training can stop and go on in a later tg-run.
#pragma once
#include <map>
#include <string>

#include "launch/runner.h"

namespace tg {

std::map<std::string, HostBuffer> load_state_file(const std::string& path);
void save_state_file(const ProgramRun& run, const std::string& path); // atomic: no partial file
// A one-element buffer as a number ("0.2345"), for progress lines.
std::string scalar_text(const HostBuffer& b);

} // namespace tg
