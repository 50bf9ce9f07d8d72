#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "device/clang/clang_compiler.h"
#include "device/registry.h"
#include "error_of.h"
#include "runtime/compile_cache.h"
#include "runtime/sha256.h"
#include "test_codegen_util.h"

using namespace tg;
using namespace tg::testing;
namespace fs = std::filesystem;

namespace {

// Points TG_CACHE_DIR at a fresh folder for one test.
class TempCacheDir {
public:
  TempCacheDir() {
    const char* old = std::getenv("TG_CACHE_DIR");
    if (old) old_ = old;
    had_old_ = old != nullptr;
    dir_ = fs::temp_directory_path() /
           ("tg-test-cache-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(dir_);
    setenv("TG_CACHE_DIR", dir_.c_str(), 1);
  }
  ~TempCacheDir() {
    if (had_old_)
      setenv("TG_CACHE_DIR", old_.c_str(), 1);
    else
      unsetenv("TG_CACHE_DIR");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& path() const { return dir_; }

private:
  fs::path dir_;
  std::string old_;
  bool had_old_ = false;
  static inline int counter_ = 0;
};

Program add_program() {
  auto st = st_of({4, 8});
  auto ast =
      store(0, DType::Float32, st, alu(Op::ADD, {load(1, DType::Float32, st), load(2, DType::Float32, st)}));
  return codegen_schedule(make_schedule({{"out", DType::Float32, {4, 8}, BufferRole::Output},
                                         {"x", DType::Float32, {4, 8}, BufferRole::Input},
                                         {"y", DType::Float32, {4, 8}, BufferRole::Input}},
                                        {{{ast}, {0, 1, 2}}}),
                          device_renderer("CLANG"), {Optimizer::Tinygrad}); // E_8_4, as tinygrad names it
}

std::map<std::string, HostBuffer> add_inputs() {
  return {{"x", host(DType::Float32, {4, 8}, iota_values<float>(32))},
          {"y", host(DType::Float32, {4, 8}, iota_values<float>(32))}};
}

} // namespace

TEST(Sha256, known_vectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(CompileCache, directory_follows_the_environment) {
  TempCacheDir tmp;
  EXPECT_EQ(cache_dir(), tmp.path());
  unsetenv("TG_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(cache_dir(), fs::path("/tmp/xdg-test/tg"));
  unsetenv("XDG_CACHE_HOME");
  setenv("TG_CACHE_DIR", tmp.path().c_str(), 1);
}

TEST(CompileCache, key_depends_on_command_and_source) {
  EXPECT_NE(CompileCache::key("clang -O2", "int x;"), CompileCache::key("clang -O1", "int x;"));
  EXPECT_NE(CompileCache::key("clang -O2", "int x;"), CompileCache::key("clang -O2", "int y;"));
  EXPECT_EQ(CompileCache::key("clang -O2", "int x;"), CompileCache::key("clang -O2", "int x;"));
}

// Another process renamed its entry into place and has not yet written the record beside it:
// a lookup here misses but must leave the file, which that process is about to dlopen.
TEST(CompileCache, a_miss_never_deletes_an_entry_another_process_is_finishing) {
  TempCacheDir tmp;
  CompileCache cache("clang", ".so");
  std::string key = CompileCache::key("cc", "int x;");
  fs::path built = cache.temp_path(".so");
  std::ofstream(built) << "not yet recorded";
  fs::rename(built, cache.path_for(key));
  EXPECT_FALSE(cache.lookup(key));
  EXPECT_TRUE(fs::exists(cache.path_for(key)));
  fs::path again = cache.temp_path(".so");
  std::ofstream(again) << "finished";
  EXPECT_EQ(cache.insert(key, again), cache.path_for(key));
  EXPECT_EQ(cache.lookup(key), cache.path_for(key));
}

TEST(ClangCompiler, second_compile_hits_the_cache) {
  TempCacheDir tmp;
  ClangCompiler cc;
  auto first = cc.compile("int tg_test_answer(void) { return 42; }\n");
  EXPECT_FALSE(first.cache_hit);
  EXPECT_TRUE(fs::exists(first.library));
  EXPECT_EQ(first.library.parent_path().parent_path(), tmp.path());
  auto second = cc.compile("int tg_test_answer(void) { return 42; }\n");
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(first.library, second.library);
  // no temporary files are left behind
  for (const auto& e : fs::directory_iterator(first.library.parent_path()))
    EXPECT_NE(e.path().filename().string().rfind(".tmp-", 0), 0u) << e.path();
}

TEST(ClangCompiler, compile_errors_carry_clang_stderr) {
  TempCacheDir tmp;
  std::string err = error_of([] { ClangCompiler().compile("void f(void) { undeclared_thing = 1; }\n"); });
  EXPECT_EQ(err.rfind("RuntimeError: clang failed", 0), 0u) << err;
  EXPECT_NE(err.find("undeclared_thing"), std::string::npos) << err;
}

TEST(Runtime, whole_program_compiles_once_and_reuses_the_cache) {
  TempCacheDir tmp;
  Program p = add_program();
  EXPECT_FALSE(compile_program(p).cache_hit);
  EXPECT_TRUE(compile_program(p).cache_hit);
  EXPECT_TRUE(ProgramRun(p, add_inputs()).cache_hit());
  auto out = run_program(p, add_inputs());
  EXPECT_EQ(values_of<float>(out.at("out"))[31], 62.f);
}

TEST(Runtime, translation_unit_has_one_launcher_per_kernel) {
  std::string tu = program_translation_unit(add_program());
  EXPECT_NE(
      tu.find("void tg_launch_E_8_4(void** bufs, const int* vars) { E_8_4(bufs[0], bufs[1], bufs[2]); }"),
      std::string::npos)
      << tu;
}

TEST(Runtime, missing_input_is_named) {
  auto in = add_inputs();
  in.erase("y");
  EXPECT_EQ(error_of([&] { run_program(add_program(), in); }), "ValueError: missing input 'y'");
}

TEST(Runtime, wrong_shape_is_named) {
  auto in = add_inputs();
  in["x"] = host(DType::Float32, {3, 8}, iota_values<float>(24));
  EXPECT_EQ(error_of([&] { run_program(add_program(), in); }),
            "ValueError: input 'x': expected shape (4, 8), got (3, 8)");
}

TEST(Runtime, wrong_dtype_is_named) {
  auto in = add_inputs();
  in["x"] = host(DType::Int32, {4, 8}, iota_values<int32_t>(32));
  EXPECT_EQ(error_of([&] { run_program(add_program(), in); }),
            "ValueError: input 'x': expected dtype float32, got int32");
}

TEST(Runtime, unknown_input_is_rejected) {
  auto in = add_inputs();
  in["z"] = host(DType::Float32, {1}, std::vector<float>{1});
  EXPECT_EQ(error_of([&] { run_program(add_program(), in); }),
            "ValueError: unknown input 'z' (the program's inputs: x, y)");
}

TEST(Runtime, constant_buffers_are_initialised_from_their_data) {
  auto st = st_of({3});
  auto ast =
      store(0, DType::Float32, st, alu(Op::MUL, {load(1, DType::Float32, st), load(2, DType::Float32, st)}));
  Schedule s = make_schedule({{"out", DType::Float32, {3}, BufferRole::Output},
                              {"x", DType::Float32, {3}, BufferRole::Input},
                              {"", DType::Float32, {3}, BufferRole::Constant}},
                             {{{ast}, {0, 1, 2}}});
  s.buffers[2].data = host(DType::Float32, {3}, std::vector<float>{10, 20, 30}).data;
  auto out = run(s, {{"x", host(DType::Float32, {3}, std::vector<float>{1, 2, 3})}});
  EXPECT_EQ(values_of<float>(out.at("out")), (std::vector<float>{10, 40, 90}));
}

TEST(Runtime, program_without_kernels_returns_its_input) {
  Program p;
  p.device = "CLANG";
  p.buffers = {BufferInfo{0, DType::Float32, 2, BufferRole::Input, "x", {}}};
  p.inputs = {NamedBuffer{"x", 0, {2}, DType::Float32}};
  p.outputs = {NamedBuffer{"y", 0, {2}, DType::Float32}};
  auto out = run_program(p, {{"x", host(DType::Float32, {2}, std::vector<float>{1, 2})}});
  EXPECT_EQ(values_of<float>(out.at("y")), (std::vector<float>{1, 2}));
}

TEST(Runtime, kernels_that_differ_only_in_name_compile_once) {
  Program p = add_program();
  ProgramKernel twin = p.kernels[0];
  twin.name = "E_8_4n1";
  twin.src.replace(twin.src.find("void E_8_4("), 11, "void E_8_4n1(");
  p.kernels.push_back(twin);
  std::string tu = program_translation_unit(p);
  EXPECT_EQ(tu.find("void E_8_4n1("), std::string::npos) << tu; // compiled once, as E_8_4
  EXPECT_NE(
      tu.find("void tg_launch_E_8_4n1(void** bufs, const int* vars) { E_8_4(bufs[0], bufs[1], bufs[2]); }"),
      std::string::npos)
      << tu;
  auto out = run_program(p, add_inputs());
  EXPECT_EQ(values_of<float>(out.at("out"))[31], 62.f);
}
