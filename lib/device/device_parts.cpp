#include "device/device_parts.h"

#include <fstream>
#include <sstream>

#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

CompiledProgram compile_as_one_source(const Program& p, const std::string& kind, const std::string& ext,
                                      const std::string& identity,
                                      const std::function<std::string(const std::string& source)>& build) {
  if (p.kernels.empty()) return {};
  std::string source;
  for (const ProgramKernel& k : p.kernels) source += k.src + "\n";
  CompileCache cache(kind, ext);
  std::string key = CompileCache::key(identity, source);
  if (auto hit = cache.lookup(key)) return {*hit, true};
  std::filesystem::path tmp = cache.temp_path(ext);
  write_file_atomic(tmp, build(source));
  return {cache.insert(key, tmp), false};
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
