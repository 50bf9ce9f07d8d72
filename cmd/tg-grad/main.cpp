// tg-grad: graph artifact -> the same graph with outputs grad_NAME = d loss / d NAME.
#include "grad/grad.h"
#include "io/artifact.h"
#include "io/dot.h"
#include "io/tool.h"

int main(int argc, char** argv) {
  CLI::App app{"Add gradients to a graph (from tg-trace): outputs grad_NAME = d loss / d NAME."};
  tg::ArtifactOptions opts;
  std::vector<std::string> wrt;
  std::string loss;
  app.add_option("--wrt", wrt, "inputs to differentiate with respect to (NAME[,NAME...])")
      ->required()
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--loss", loss, "the scalar output to differentiate (default: the only output)");
  tg::add_artifact_options(app, opts, "graph artifact (default: stdin)");
  tg::add_dot_option(app, opts);
  return tg::run_tool("tg-grad", app, argc, argv, [&] {
    auto in = tg::read_input_shared(opts.input); // constants point into it
    tg::Graph graph = tg::read_graph(in->view(), in);
    std::vector<std::string> notes;
    tg::Graph out = tg::gradient_graph(graph, wrt, loss, &notes);
    for (const std::string& n : notes) std::fprintf(stderr, "tg-grad: note: %s\n", n.c_str());
    if (opts.wants_dot())
      tg::write_output(tg::graph_to_dot(out, {opts.dot_output, opts.dot_kernel, opts.dot_depth}), opts.output,
                       false);
    else
      tg::write_output(tg::graph_bytes(out, opts.json).pieces, opts.output, !opts.json);
    return 0;
  });
}
