// Kernels split across threads: the partial-kernel rewrite, the pool, and that a split run
// gives the same bytes as a whole one.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

#include "codegen/codegen.h"
#include "runtime/runner.h"
#include "runtime/thread_pool.h"
#include "schedule/schedule.h"
#include "script/trace.h"

using namespace tg;

TEST(Threads, partial_kernel_limits_the_outermost_loop) {
  std::string src = "#include <tgmath.h>\nvoid E_8(float* restrict data0, const float* restrict data1) {\n"
                    "  for (int ridx0 = 0; ridx0 < 8; ridx0++) {\n    data0[ridx0] = data1[ridx0];\n  }\n}\n";
  auto part = partial_kernel(src, "E_8", 8);
  ASSERT_TRUE(part);
  EXPECT_EQ(*part, "void E_8_tgpart(float* restrict data0, const float* restrict data1, int tg_start, int tg_end) {\n"
                   "  for (int ridx0 = tg_start; ridx0 < tg_end; ridx0++) {\n    data0[ridx0] = data1[ridx0];\n  }\n}\n");
  EXPECT_FALSE(partial_kernel(src, "E_8", 9));   // the extent must be the loop's
  EXPECT_FALSE(partial_kernel(src, "other", 8)); // and the function must be there
  EXPECT_FALSE(partial_kernel("void f(float* a) {\n  a[0] = 1;\n}\n", "f", 1));
}

TEST(Threads, the_pool_runs_every_part_once) {
  ThreadPool pool(3);
  for (int parts : {1, 2, 3, 7}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(parts));
    pool.run(parts, [&](int k) { hits[static_cast<size_t>(k)]++; });
    for (int k = 0; k < parts; ++k) EXPECT_EQ(hits[static_cast<size_t>(k)].load(), 1) << parts << " parts, part " << k;
  }
}

TEST(Threads, codegen_marks_kernels_with_an_independent_outer_loop) {
  Program p = codegen_schedule(
      schedule_graph(trace_script("a = input('a', (64, 32))\nb = input('b', (32, 48))\noutput('c', a @ b)\n"
                                  "output('s', a.sum())",
                                  "t.tg")),
      "CLANG");
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_GT(p.kernels[0].parallel, 1); // the matmul's output rows
  EXPECT_EQ(p.kernels[0].work, 64 * 32 * 48);
  EXPECT_EQ(p.kernels[1].parallel, 0); // a full reduce: its outer loop is the reduction
}

TEST(Threads, a_split_run_gives_the_same_bytes) {
  Program p = codegen_schedule(
      schedule_graph(trace_script("a = Tensor.arange(96 * 80).reshape(96, 80).float().sin()\n"
                                  "b = Tensor.arange(80 * 64).reshape(80, 64).float().cos()\n"
                                  "output('c', (a @ b).relu())",
                                  "t.tg")),
      "CLANG");
  auto run = [&](const char* threads) {
    setenv("TG_THREADS", threads, 1);
    auto out = run_program(p, {});
    unsetenv("TG_THREADS");
    return out.at("c").data;
  };
  EXPECT_EQ(run("1"), run("2"));
  EXPECT_EQ(run("1"), run("5"));
}

TEST(Threads, a_big_program_compiles_as_several_units_with_the_same_results) {
  // many kernels with a lot of C source: split into units compiled by clangs at once
  std::string src = "x = input('x', (64, 64))\n";
  for (int i = 0; i < 80; ++i)
    src += "output('o" + std::to_string(i) + "', (x * " + std::to_string(i + 1) + ").exp().sum(axis=" +
           std::to_string(i % 2) + ").sqrt())\n";
  Program p = codegen_schedule(schedule_graph(trace_script(src, "t.tg")), "CLANG");
  std::vector<std::string> units = program_translation_units(p, 4);
  ASSERT_GE(units.size(), 2u);
  EXPECT_EQ(program_translation_units(p, 1).size(), 1u);
  size_t launchers = 0;
  for (const std::string& u : units)
    for (size_t at = u.find("void tg_launch_"); at != std::string::npos; at = u.find("void tg_launch_", at + 1))
      ++launchers;
  EXPECT_EQ(launchers, p.kernels.size()); // every kernel once, none split (all small)
  HostBuffer x{DType::Float32, {64, 64}, std::vector<uint8_t>(64 * 64 * 4)};
  for (size_t i = 0; i < 64 * 64; ++i) reinterpret_cast<float*>(x.data.data())[i] = float(i % 7) / 10;
  auto run = [&](const char* threads) {
    setenv("TG_THREADS", threads, 1);
    auto out = run_program(p, {{"x", x}});
    unsetenv("TG_THREADS");
    return out;
  };
  auto one = run("1"), four = run("4");
  for (auto& [name, b] : one) EXPECT_EQ(b.data, four.at(name).data) << name;
}
