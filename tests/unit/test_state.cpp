// States and assigns: realize()/assign() in the tensor layer, how the scheduler orders the
// versions of a buffer, and a ProgramRun that carries states from step to step.
#include <gtest/gtest.h>

#include <cstring>

#include "codegen/codegen.h"
#include "device/registry.h"
#include "error_of.h"
#include "io/artifact.h"
#include "launch/runner.h"
#include "rng_mode.h"
#include "schedule/schedule.h"
#include "script/trace.h"

using namespace tg;

namespace {

Schedule schedule_script(const std::string& src) { return schedule_graph(trace_script(src, "t.tg")); }

std::vector<float> floats(const HostBuffer& b) {
  std::vector<float> v(b.data.size() / 4);
  std::memcpy(v.data(), b.data.data(), b.data.size());
  return v;
}

} // namespace

TEST(State, realize_adds_a_state_with_its_first_value) {
  Graph g = trace_script("w = Tensor.ones(3).contiguous().realize()\noutput('y', w * 2)", "t.tg");
  ASSERT_EQ(g.states.size(), 1u);
  EXPECT_EQ(g.states[0].name, "w"); // the variable that holds it names it (issue 30)
  EXPECT_EQ(g.nodes[g.states[0].node].name, "w");
  EXPECT_EQ(g.nodes[g.states[0].node].op, Op::EMPTY);
  EXPECT_TRUE(g.assigns.empty());
}

TEST(State, realize_on_an_input_or_a_state_is_a_no_op) {
  Graph g = trace_script(
      "x = input('x', (3,))\nx.realize()\nw = Tensor.ones(3).realize()\nw.realize()\noutput('y', x + w)",
      "t.tg");
  EXPECT_EQ(g.states.size(), 1u);
}

TEST(State, state_names_a_state_and_refuses_a_duplicate) {
  Graph g = trace_script("w = state('w', Tensor.ones(3))\noutput('y', w)", "t.tg");
  ASSERT_EQ(g.states.size(), 1u);
  EXPECT_EQ(g.states[0].name, "w");
  EXPECT_EQ(message_of([] {
              trace_script("a = state('w', Tensor.ones(3))\nb = state('w', Tensor.zeros(3))", "t.tg");
            }),
            "t.tg:2: ValueError: a state named 'w' already exists");
}

TEST(State, a_previous_scripts_states_do_not_leak_into_the_next) {
  trace_script("w = Tensor.ones(3).realize()\noutput('y', w)", "a.tg");
  Graph g = trace_script("output('y', Tensor.ones(3) + 1)", "b.tg");
  EXPECT_TRUE(g.states.empty());
}

TEST(State, init_kernels_come_first_and_write_the_state_buffer) {
  Schedule s = schedule_script("w = Tensor.arange(4).float().realize()\nw += 1\noutput('w', w)");
  ASSERT_EQ(s.states.size(), 1u);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_TRUE(s.kernels[0].init);
  EXPECT_FALSE(s.kernels[1].init);
  EXPECT_EQ(s.kernels[0].bufs[0], s.states[0].buffer);
  EXPECT_EQ(s.kernels[1].bufs[0], s.states[0].buffer); // the assign writes in place
  EXPECT_EQ(s.buffers[s.states[0].buffer].role, BufferRole::State);
  EXPECT_EQ(s.outputs[0].buffer, s.states[0].buffer);
}

TEST(State, a_reader_of_the_old_value_runs_before_the_assign) {
  Schedule s = schedule_script("w = Tensor.ones(8).contiguous().realize()\nold = w.sum()\nw.assign(w * 3)\n"
                               "output('old', old)\noutput('w', w)");
  int reader = -1, writer = -1;
  for (size_t k = 0; k < s.kernels.size(); ++k) {
    if (s.kernels[k].init) continue;
    if (s.kernels[k].bufs[0] == s.states[0].buffer)
      writer = int(k);
    else
      reader = int(k);
  }
  ASSERT_GE(reader, 0);
  ASSERT_GE(writer, 0);
  EXPECT_LT(reader, writer);
}

TEST(State, an_output_of_an_overwritten_version_gets_a_copy) {
  Schedule s = schedule_script(
      "w = Tensor.ones(4).contiguous().realize()\noutput('before', w)\nw += 1\noutput('after', w)");
  EXPECT_NE(s.outputs[0].buffer, s.states[0].buffer);
  EXPECT_EQ(s.outputs[1].buffer, s.states[0].buffer);
}

TEST(State, assign_checks_shape_and_dtype_like_tinygrad) {
  EXPECT_EQ(
      message_of([] { trace_script("w = Tensor.zeros(3).realize()\nw.assign(Tensor.ones(4))", "t.tg"); }),
      "t.tg:2: AssertionError: assign shape mismatch (3,) != (4,)");
  EXPECT_EQ(message_of([] {
              trace_script("w = Tensor.zeros(3).realize()\nw.assign(Tensor.ones(3, dtype=dtypes.int32))",
                           "t.tg");
            }),
            "t.tg:2: AssertionError: assign dtype mismatch dtypes.float != dtypes.int");
}

TEST(State, a_program_run_carries_states_across_steps_and_skips_init_when_loaded) {
  Program p = codegen_schedule(
      schedule_script("c = Tensor.full((2,), 5.0).contiguous().realize()\nc += 1\noutput('c', c)"),
      device_renderer("CLANG"));
  {
    ProgramRun run(p, {});
    run.step();
    run.step();
    run.step();
    EXPECT_EQ(floats(run.output("c")), (std::vector<float>{8, 8}));
    auto states = run.states();
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].first, "c");
  }
  ProgramRun run(p, {});
  HostBuffer start{DType::Float32, {2}, std::vector<uint8_t>(8)};
  float init[2] = {100, 200};
  std::memcpy(start.data.data(), init, 8);
  run.load_states({{"c", start}});
  run.step();
  EXPECT_EQ(floats(run.output("c")), (std::vector<float>{101, 201}));
  EXPECT_EQ(message_of([&] { run.load_states({}); }), "missing state 'c'");
}

TEST(State, the_default_generators_seed_becomes_a_state_once_the_program_has_one) {
  RngMode numpy_rng(false);
  Graph plain = trace_script("Tensor.manual_seed(1)\noutput('r', Tensor.rand(4))", "t.tg");
  EXPECT_TRUE(plain.states.empty());
  Graph g = trace_script(
      "Tensor.manual_seed(1)\nw = Tensor.zeros(4).realize()\nw.assign(Tensor.rand(4))\noutput('w', w)",
      "t.tg");
  ASSERT_EQ(g.states.size(), 2u);
  EXPECT_EQ(g.states[1].name, "_seed");
  EXPECT_EQ(g.assigns.size(), 2u); // w, and the seed advanced by the step's draws
}

TEST(State, the_rng_counter_becomes_a_state_once_the_program_has_one) {
  RngMode threefry(true);
  Graph plain = trace_script("Tensor.manual_seed(1)\noutput('r', Tensor.rand(4))", "t.tg");
  EXPECT_TRUE(plain.states.empty());
  Graph g = trace_script(
      "Tensor.manual_seed(1)\nw = Tensor.zeros(4).realize()\nw.assign(Tensor.rand(4))\noutput('w', w)",
      "t.tg");
  ASSERT_EQ(g.states.size(), 2u);
  EXPECT_EQ(g.states[1].name, "_rng_counter");
  EXPECT_EQ(g.assigns.size(), 2u); // w, and the counter advanced by the step's draws
}

TEST(State, realize_of_a_value_of_this_steps_data_makes_no_state) {
  // (x * 2) reads an input, (w * 2) an updated state: every step computes them; only the
  // initial-value tensor becomes a state
  Graph g = trace_script("x = input('x', (3,))\ny = (x * 2).realize()\nw = Tensor.ones(3).realize()\nw += 1\n"
                         "z = (w * 2).realize()\noutput('y', y)\noutput('z', z)",
                         "t.tg");
  EXPECT_EQ(g.states.size(), 1u);
}

TEST(State, a_tensor_reads_the_newest_version_after_a_write_through_a_view) {
  Schedule s =
      schedule_script("w = Tensor.zeros(4).contiguous().realize()\nw[1:3].assign(Tensor.ones(2)).realize()\n"
                      "output('w', w)");
  // no copy: the output is the state buffer after the partial assign
  EXPECT_EQ(s.outputs[0].buffer, s.states[0].buffer);
}

TEST(State, a_state_nothing_at_module_level_holds_keeps_its_number) {
  Graph g = trace_script(
      "def f():\n  w = Tensor.ones(3).contiguous().realize()\n  return w * 2\noutput('y', f())", "t.tg");
  ASSERT_EQ(g.states.size(), 1u);
  EXPECT_EQ(g.states[0].name, "state.0");
}

// setitem on an input makes a state the variable holds; the input keeps the name
TEST(State, an_automatic_name_never_takes_an_inputs) {
  Graph g = trace_script("x = input('x', (2,))\nx[0] = 1.0\noutput('y', x * 2)", "t.tg");
  ASSERT_EQ(g.states.size(), 1u);
  EXPECT_NE(g.states[0].name, "x");
  EXPECT_NO_THROW(validate_graph(g));
}
