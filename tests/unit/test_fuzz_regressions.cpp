// Replays the fuzzers' seeds and every past finding (tests/fuzz/corpus/, tests/fuzz/regressions/)
// through the fuzz targets' bodies, so a finding stays fixed in every build; the asan build
// (make asan) also catches the sanitizer reports among them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/targets.h"

namespace {

namespace fs = std::filesystem;

void replay(const char* target, void (*body)(std::string_view)) {
  int files = 0;
  for (const char* set : {"corpus", "regressions"}) {
    fs::path dir = fs::path(TG_SOURCE_DIR) / "tests/fuzz" / set / target;
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      SCOPED_TRACE(entry.path().string());
      EXPECT_NO_THROW(body(bytes.str()));
      ++files;
    }
  }
  EXPECT_GT(files, 0) << "no seeds for " << target;
}

} // namespace

TEST(FuzzRegressions, graph) { replay("graph", tg::fuzz::graph); }
TEST(FuzzRegressions, schedule) { replay("schedule", tg::fuzz::schedule); }
TEST(FuzzRegressions, program) { replay("program", tg::fuzz::program); }
TEST(FuzzRegressions, npy) { replay("npy", tg::fuzz::npy); }
TEST(FuzzRegressions, safetensors) { replay("safetensors", tg::fuzz::safetensors); }
TEST(FuzzRegressions, script) { replay("script", tg::fuzz::script); }
