#include "device/device_parts.h"

#include <fstream>
#include <sstream>
#include <unordered_map>

#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

CompiledProgram compile_as_one_source(const Program& p, const std::string& kind, const std::string& ext,
                                      const std::string& identity,
                                      const std::function<std::string(const std::string& source)>& build) {
  if (p.kernels.empty()) return {};
  std::string source; // each distinct kernel once (ModuleProgram finds them by function name)
  KernelGroups g = group_kernels(p, "void ", "(", 1, 1);
  for (size_t n : g.groups[0]) source += p.kernels[n].src + "\n";
  CompileCache cache(kind, ext);
  std::string key = CompileCache::key(identity, source);
  if (auto hit = cache.lookup(key)) return {*hit, true};
  std::filesystem::path tmp = cache.temp_path(ext);
  write_file_atomic(tmp, build(source));
  return {cache.insert(key, tmp), false};
}

KernelGroups group_kernels(const Program& p, const std::string& before, const std::string& after, int most,
                           size_t min_group_bytes) {
  KernelGroups out;
  std::unordered_map<std::string, size_t> first_with;
  std::vector<size_t> distinct;
  size_t total = 0;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const ProgramKernel& k = p.kernels[i];
    std::string key = k.src;
    if (size_t at = key.find(before + k.name + after); at != std::string::npos)
      key.erase(at + before.size(), k.name.size());
    auto [it, fresh] = first_with.emplace(std::move(key), i);
    out.function_of.push_back(it->second);
    if (fresh) {
      distinct.push_back(i);
      total += k.src.size();
    }
  }
  size_t groups =
      std::min({size_t(std::max(most, 1)), distinct.size(), std::max<size_t>(1, total / min_group_bytes)});
  size_t next = 0, done = 0;
  for (size_t g = 0; g < groups && next < distinct.size(); ++g) {
    // contiguous runs of distinct kernels of about equal source size
    std::vector<size_t> group;
    size_t goal = total * (g + 1) / groups;
    while (next < distinct.size() && (g + 1 == groups || done < goal || group.empty())) {
      done += p.kernels[distinct[next]].src.size();
      group.push_back(distinct[next++]);
    }
    out.groups.push_back(std::move(group));
  }
  std::vector<size_t> group_of_distinct(p.kernels.size());
  for (size_t g = 0; g < out.groups.size(); ++g)
    for (size_t n : out.groups[g]) group_of_distinct[n] = g;
  for (size_t fn : out.function_of) out.group_of.push_back(group_of_distinct[fn]);
  return out;
}

std::string read_compiled(const CompiledProgram& c) {
  if (c.file.empty()) return "";
  std::ifstream f(c.file, std::ios::binary);
  if (!f) fail("RuntimeError", "cannot read " + c.file.string());
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

} // namespace tg
