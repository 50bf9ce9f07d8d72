// tg-schedule: graph artifact -> schedule artifact (fused kernels, buffers, order).
#include "io/artifact.h"
#include "io/tool.h"
#include "schedule/schedule.h"

int main(int argc, char** argv) {
  CLI::App app{"Turn a graph (from tg-trace) into kernels to launch: fusion, realize points, buffers."};
  tg::ArtifactOptions opts;
  tg::add_artifact_options(app, opts, "graph artifact (default: stdin)");
  return tg::run_tool("tg-schedule", app, argc, argv, [&] {
    tg::Graph graph = tg::read_graph(tg::read_input(opts.input));
    tg::write_output(tg::write_schedule(tg::schedule_graph(graph), opts.json), opts.output, !opts.json);
    return 0;
  });
}
