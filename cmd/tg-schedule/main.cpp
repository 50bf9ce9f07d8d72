// tg-schedule: graph artifact -> schedule artifact (fused kernels, buffers, order).
#include "codegen/codegen.h"
#include "io/artifact.h"
#include "io/dot.h"
#include "io/tool.h"
#include "schedule/schedule.h"

int main(int argc, char** argv) {
  CLI::App app{"Turn a graph (from tg-trace) into kernels to launch: fusion, realize points, buffers."};
  tg::ArtifactOptions opts;
  tg::add_artifact_options(app, opts, "graph artifact (default: stdin)");
  tg::add_dot_option(app, opts, true);
  tg::ScheduleOptions schedule_opts;
  app.add_flag_callback(
      "--recompute", [&] { schedule_opts.share = false; },
      "fuse exactly as tinygrad 0.9.1: an elementwise value several kernels read is computed in each (by "
      "default a large one, such as a recurrence's state, is realized once, and a reduce's kernel writes "
      "where its epilogue's paths meet, such as a swish)");
  return tg::run_tool("tg-schedule", app, argc, argv, [&] {
    auto in = tg::read_input_shared(opts.input); // constants point into it
    tg::Graph graph = tg::read_graph(in->view(), in);
    tg::Schedule schedule = tg::schedule_graph(graph, schedule_opts);
    tg::name_kernels(schedule);
    if (opts.wants_dot())
      tg::write_output(tg::schedule_to_dot(schedule, {opts.dot_output, opts.dot_kernel, opts.dot_depth}),
                       opts.output, false);
    else
      tg::write_output(tg::schedule_bytes(schedule, opts.json).pieces, opts.output, !opts.json);
    return 0;
  });
}
