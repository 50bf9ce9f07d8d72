#include "device/clang/clang_compiler.h"

#include "device/device_parts.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <sstream>
#include <sys/stat.h>

#include "runtime/compile_cache.h"
#include "runtime/host_cpu.h"
#include "runtime/process.h"
#include "util/error.h"
#include "util/parallel.h"

namespace tg {

namespace fs = std::filesystem;

ClangCompiler::ClangCompiler() {
  const char* env = std::getenv("TG_CLANG");
  executable_ = env && *env ? env : "clang";
}

// TG_MARCH picks another target than this CPU (x86-64-v3: AVX2 code that valgrind's cachegrind
// can run, to simulate other caches; AVX-512 it cannot decode). Part of the compile cache key.
static std::string march_flag() {
  const char* env = std::getenv("TG_MARCH");
  return std::string("-march=") + (env && *env ? env : "native");
}

// -fno-math-errno: sqrt becomes the instruction, which clang then puts on whole vectors (a
// kernel's lanes), with the same IEEE result; errno is no kernel's business.
std::vector<std::string> ClangCompiler::argv(const std::string& src_path, const std::string& out_path) const {
  return {executable_,  "-include",     "tgmath.h",        "-shared",
          march_flag(), "-O2",          "-fno-math-errno", "-fno-unroll-loops",
          "-mllvm",     "-disable-lsr", "-Wall",           "-x",
          "c",          "-fPIC",        src_path,          "-o",
          out_path};
}

std::string ClangCompiler::identity() const {
  // The compiler is identified by its resolved file, size and modification time: as exact as
  // `clang --version` for a cache key (an upgrade changes the file), and no process to start.
  static std::mutex mu;
  static std::map<std::string, std::string> identities;
  std::lock_guard<std::mutex> lock(mu);
  auto it = identities.find(executable_);
  if (it == identities.end()) {
    std::string path = find_executable(executable_);
    if (path.empty())
      fail("RuntimeError",
           "cannot find the C compiler '" + executable_ + "' (install clang, or set TG_CLANG)");
    struct stat st {};
    stat(path.c_str(), &st);
    std::string id;
    for (const std::string& a : argv("SRC", "OUT")) id += a + " ";
    id += "\n" + path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec) + "\n" + host_cpu_identity();
    it = identities.emplace(executable_, std::move(id)).first;
  }
  return it->second;
}

ClangCompiler::Result ClangCompiler::compile(const std::string& source) const {
  CompileCache cache("clang", ".so");
  std::string key = CompileCache::key(identity(), source);
  if (auto hit = cache.lookup(key)) return {*hit, true};

  fs::path src = cache.temp_path(".c"), out = cache.temp_path(".so");
  write_file_atomic(src, source);
  ProcessResult r = run_process(argv(src.string(), out.string()));
  std::error_code ec;
  if (r.status != 0) {
    fs::remove(src, ec);
    fs::remove(out, ec);
    compile_failed("clang", "clang", r.output);
  }
  fs::rename(src, cache.path_for(key).replace_extension(".c"),
             ec); // the source, for people reading the cache
  return {cache.insert(key, out), false};
}

ClangCompiler::Result ClangCompiler::compile(const std::vector<std::string>& units) const {
  if (units.size() == 1) return compile(units[0]);
  CompileCache cache("clang", ".so");
  std::string all = std::to_string(units.size()) + " units\n";
  for (const std::string& u : units) all += u + "\n//--- unit ---\n";
  std::string key = CompileCache::key(identity(), all);
  if (auto hit = cache.lookup(key)) return {*hit, true};

  std::vector<fs::path> srcs, objs;
  for (const std::string& u : units) {
    srcs.push_back(cache.temp_path(".c"));
    objs.push_back(cache.temp_path(".o"));
    write_file_atomic(srcs.back(), u);
  }
  fs::path out = cache.temp_path(".so");
  std::vector<ProcessResult> results(units.size());
  {
    std::vector<std::thread> jobs;
    for (size_t i = 0; i < units.size(); ++i)
      jobs.emplace_back([&, i] {
        std::vector<std::string> args = argv(srcs[i].string(), objs[i].string());
        args.erase(std::find(args.begin(), args.end(), "-shared"));
        args.insert(args.end() - 2, "-c"); // before "-o OUT"
        results[i] = run_process(args);
      });
    for (std::thread& t : jobs) t.join();
  }
  std::vector<std::string> link{executable_, "-shared"};
  for (const fs::path& o : objs) link.push_back(o.string());
  link.insert(link.end(), {"-o", out.string()});
  ProcessResult linked;
  const ProcessResult* failed = nullptr;
  for (const ProcessResult& r : results)
    if (r.status != 0 && !failed) failed = &r;
  if (!failed) {
    linked = run_process(link);
    if (linked.status != 0) failed = &linked;
  }
  std::error_code ec;
  for (const fs::path& f : objs) fs::remove(f, ec);
  for (const fs::path& f : srcs) fs::remove(f, ec);
  if (failed) {
    fs::remove(out, ec);
    compile_failed("clang", "clang", failed->output);
  }
  return {cache.insert(key, out), false};
}

namespace {

// One group's kernels, then a launcher for every kernel that runs one of them: tg-run calls
// every kernel as `tg_launch_<name>(void** bufs, const int* vars)` whatever its parameters.
std::string translation_unit(const Program& p, const KernelGroups& g, size_t group) {
  std::ostringstream os;
  for (size_t n : g.groups[group]) os << p.kernels[n].src << "\n";
  for (size_t n = 0; n < p.kernels.size(); ++n) {
    if (g.group_of[n] != group) continue;
    size_t fn = g.function_of[n];
    const ProgramKernel& k = p.kernels[n];
    os << "void tg_launch_" << k.name << "(void** bufs, const int* vars) { " << p.kernels[fn].name << "(";
    for (size_t i = 0; i < k.bufs.size(); i++) os << (i ? ", " : "") << "bufs[" << i << "]";
    for (size_t i = 0; i < k.vars.size(); i++)
      os << (i || !k.bufs.empty() ? ", " : "") << "vars[" << i << "]";
    os << "); }\n";
  }
  return os.str();
}

} // namespace

std::string program_translation_unit(const Program& p) {
  KernelGroups g = group_kernels(p, "void ", "(", 1, 1);
  return g.groups.empty() ? "" : translation_unit(p, g, 0);
}

std::vector<std::string> program_translation_units(const Program& p, int most) {
  // About 16 KB of C per unit at least: below that, a second clang costs more than it saves.
  KernelGroups g = group_kernels(p, "void ", "(", most, 16 * 1024);
  std::vector<std::string> out;
  for (size_t u = 0; u < g.groups.size(); ++u) out.push_back(translation_unit(p, g, u));
  return out;
}

CompiledProgram ClangCompiler::compile(const Program& p) const {
  if (p.kernels.empty()) return {}; // nothing to load
  // Big programs are compiled as several units by as many clangs at once, then linked.
  Result r = compile(program_translation_units(p, host_threads()));
  return {r.library, r.cache_hit};
}

} // namespace tg
