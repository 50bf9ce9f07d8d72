// Kernels split across threads: the partial-kernel rewrite, the pool, and that a split run
// gives the same bytes as a whole one.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

#include "codegen/codegen.h"
#include "device/clang/clang_compiler.h"
#include "device/registry.h"
#include "launch/runner.h"
#include "runtime/thread_pool.h"
#include "schedule/schedule.h"
#include "script/trace.h"

using namespace tg;

TEST(Threads, a_split_kernel_takes_its_outer_range_as_parameters) {
  Program p = codegen_schedule(
      schedule_graph(trace_script("a = input('a', (256, 512))\noutput('b', a.exp2())", "t.tg")),
      device_renderer("CLANG"), {Optimizer::Tinygrad});
  ASSERT_EQ(p.kernels.size(), 1u);
  const ProgramKernel& k = p.kernels[0];
  // parameters in the UOp order (DEFINE_VARs sort by name)
  EXPECT_EQ(k.vars, (std::vector<std::string>{"core_end", "core_start"}));
  EXPECT_EQ(k.global_size, (Shape{256 * 512 / 4, 1, 1})); // upcast by 4
  EXPECT_NE(k.src.find("const int core_end, const int core_start) {"), std::string::npos) << k.src;
  // the kernel keeps its own bound, so an edited launch size cannot drive it past its buffers
  EXPECT_NE(k.src.find("for (int ridx0 = core_start; ridx0 < ((core_end<32768)?core_end:32768); ridx0++) {"),
            std::string::npos)
      << k.src;
}

TEST(Threads, a_small_kernel_keeps_tinygrads_source) {
  Program p =
      codegen_schedule(schedule_graph(trace_script("a = input('a', (8, 4))\noutput('b', a + 1)", "t.tg")),
                       device_renderer("CLANG"));
  EXPECT_TRUE(p.kernels[0].vars.empty());
  EXPECT_EQ(p.kernels[0].src.find("core_start"), std::string::npos);
}

TEST(Threads, the_pool_runs_every_part_once) {
  ThreadPool pool(3);
  for (int parts : {1, 2, 3, 7}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(parts));
    pool.run(parts, [&](int k) { hits[static_cast<size_t>(k)]++; });
    for (int k = 0; k < parts; ++k)
      EXPECT_EQ(hits[static_cast<size_t>(k)].load(), 1) << parts << " parts, part " << k;
  }
}

TEST(Threads, codegen_splits_kernels_with_an_independent_outer_loop) {
  Program p = codegen_schedule(
      schedule_graph(trace_script("a = input('a', (64, 32))\nb = input('b', (32, 48))\noutput('c', a @ b)\n"
                                  "output('s', a.sum())",
                                  "t.tg")),
      device_renderer("CLANG"));
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_GT(p.kernels[0].global_size[0], 1); // the matmul's output rows
  EXPECT_EQ(p.kernels[0].work, 64 * 32 * 48);
  EXPECT_EQ(p.kernels[1].global_size[0], 1); // a full reduce: its outer loop is the reduction
}

TEST(Threads, a_split_run_gives_the_same_bytes) {
  Program p = codegen_schedule(
      schedule_graph(trace_script("a = Tensor.arange(96 * 80).reshape(96, 80).float().sin()\n"
                                  "b = Tensor.arange(80 * 64).reshape(80, 64).float().cos()\n"
                                  "output('c', (a @ b).relu())",
                                  "t.tg")),
      device_renderer("CLANG"));
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
    src += "output('o" + std::to_string(i) + "', (x * " + std::to_string(i + 1) +
           ").exp().sum(axis=" + std::to_string(i % 2) + ").sqrt())\n";
  Program p = codegen_schedule(schedule_graph(trace_script(src, "t.tg")), device_renderer("CLANG"));
  std::vector<std::string> units = program_translation_units(p, 4);
  ASSERT_GE(units.size(), 2u);
  EXPECT_EQ(program_translation_units(p, 1).size(), 1u);
  size_t launchers = 0;
  for (const std::string& u : units)
    for (size_t at = u.find("void tg_launch_"); at != std::string::npos;
         at = u.find("void tg_launch_", at + 1))
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
