#include "io/known_programs.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "runtime/compile_cache.h"
#include "runtime/sha256.h"

namespace tg {

namespace fs = std::filesystem;

namespace {

class Fingerprint {
public:
  Fingerprint& operator<<(std::string_view s) {
    *this << int64_t(s.size());
    h_.update(s);
    return *this;
  }
  Fingerprint& operator<<(int64_t x) {
    h_.update(std::string_view(reinterpret_cast<const char*>(&x), sizeof x));
    return *this;
  }
  Fingerprint& operator<<(const sint& x) { return *this << std::string_view(x.str()); }
  template <class T> Fingerprint& operator<<(const std::vector<T>& xs) {
    *this << int64_t(xs.size());
    for (const T& x : xs) *this << x;
    return *this;
  }
  Fingerprint& operator<<(const NamedBuffer& b) {
    return *this << std::string_view(b.name) << int64_t(b.buffer) << b.shape << int64_t(b.dtype);
  }
  std::string hex() { return h_.hexdigest(); }

private:
  Sha256 h_;
};

fs::path known_path(const Program& p) { return cache_dir() / "programs" / program_fingerprint(p); }

} // namespace

std::string program_fingerprint(const Program& p) {
  Fingerprint f;
  f << std::string_view("tg-program-fingerprint 1") << std::string_view(p.device);
  f << int64_t(p.buffers.size());
  for (const BufferInfo& b : p.buffers)
    f << int64_t(b.id) << int64_t(b.dtype) << b.size << int64_t(b.role) << int64_t(b.data.size());
  f << int64_t(p.kernels.size());
  for (const ProgramKernel& k : p.kernels) {
    f << std::string_view(k.name) << std::string_view(k.src) << std::string_view(k.custom) << int64_t(k.init);
    f << int64_t(k.bufs.size());
    for (int b : k.bufs) f << int64_t(b);
    f << k.extents << int64_t(k.vars.size());
    for (const std::string& v : k.vars) f << std::string_view(v);
    f << k.global_size << k.local_size;
  }
  f << p.inputs << p.outputs << p.states << int64_t(p.vars.size());
  for (const VarBinding& v : p.vars) f << std::string_view(v.name) << v.min << v.max;
  return f.hex();
}

void remember_program(const Program& p) {
  fs::path path = known_path(p);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (FILE* f = std::fopen(path.c_str(), "a")) std::fclose(f);
}

bool is_known_program(const Program& p) {
  std::error_code ec;
  return fs::is_regular_file(known_path(p), ec);
}

} // namespace tg
