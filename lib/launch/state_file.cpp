#include "launch/state_file.h"

#include "io/format_array.h"
#include "nn/safetensors.h"

namespace tg {

std::map<std::string, HostBuffer> load_state_file(const std::string& path) {
  std::map<std::string, HostBuffer> states;
  for (nn::SafeTensor& t : nn::load_safetensors(path).tensors)
    states[t.name] = HostBuffer{t.dtype, shape_from_ints(t.shape), std::move(t.data)};
  return states;
}

void save_state_file(const ProgramRun& run, const std::string& path) {
  auto states = run.states(); // (distributed: gathered to rank 0, which alone writes the file)
  if (!run.is_root()) return;
  nn::SafeFile file;
  for (auto& [name, hb] : states) file.tensors.push_back({name, hb.dtype, shape_ints(hb.shape), hb.data});
  nn::save_safetensors(file, path);
}

std::string scalar_text(const HostBuffer& b) {
  if (prod(b.shape) != 1) return "(" + std::to_string(prod(b.shape)) + " elements)";
  HostBuffer flat = b;
  flat.shape = {};
  return format_array(flat);
}

} // namespace tg
