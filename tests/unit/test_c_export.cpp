// The standalone C export's text: the API in NAME.h, static kernels and NAME_-prefixed globals
// in NAME.c, and the refusals. (tests/cli/export_c.bats compiles and runs what it writes.)
#include <gtest/gtest.h>

#include "device/clang/c_export.h"
#include "error_of.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"

using namespace tg;

namespace {

Schedule scale_schedule(int64_t n) {
  Tensor x = Tensor::placeholder("x", {n});
  return schedule_graph(
      extract_graph({{"y", x.mul(2.0).add(1.0).lazydata()}}, {{"x", x.lazydata().id(), false}}));
}

} // namespace

TEST(CExport, header_declares_the_api_with_named_typed_parameters) {
  CLibrary lib = export_c_library(scale_schedule(16), "scale");
  for (const char* decl : {"scale* scale_new(void);", "void scale_free(scale* m);",
                           "int scale_run(scale* m, const float* x, float* y);",
                           "void* scale_state(scale* m, const char* name, size_t* bytes);",
                           "int scale_set_threads(scale* m, int threads);"})
    EXPECT_NE(lib.header.find(decl), std::string::npos) << decl;
  EXPECT_EQ(lib.source.find("#include \"scale.h\""), lib.source.find("#include \""));
}

TEST(CExport, kernels_are_static_and_split_ones_get_a_thread_runner) {
  CLibrary small = export_c_library(scale_schedule(16), "s");
  // (named by the host's vector width: s_E_16 with AVX-512, s_E_2_8 with AVX2)
  EXPECT_NE(small.source.find("static void s_E_"), std::string::npos) << small.source;
  EXPECT_EQ(small.source.find("s_split("), std::string::npos); // nothing to split: no runner
  CLibrary big = export_c_library(scale_schedule(int64_t(1) << 20), "b");
  EXPECT_NE(big.source.find("static void b_split("), std::string::npos);
  EXPECT_NE(big.source.find("static void b_part_"), std::string::npos);
}

TEST(CExport, refuses_a_name_that_is_not_a_c_identifier) {
  EXPECT_EQ(error_of([] { export_c_library(scale_schedule(4), "my-lib"); }),
            "ValueError: --name 'my-lib' is not a C identifier");
  EXPECT_EQ(error_of([] { export_c_library(scale_schedule(4), "9lives"); }),
            "ValueError: --name '9lives' is not a C identifier");
}
