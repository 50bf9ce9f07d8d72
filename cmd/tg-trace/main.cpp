// tg-trace: a .tg script -> graph artifact.
#include "io/artifact.h"
#include "io/tool.h"
#include "script/trace.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"Run a .tg tensor script and write its lazy op graph."};
  tg::ArtifactOptions opts;
  std::string code;
  tg::add_artifact_options(app, opts, "script file (default: stdin)");
  app.add_option("-e,--expr", code, "script text to run instead of a file");
  return tg::run_tool("tg-trace", app, argc, argv, [&] {
    std::string name = !code.empty() ? "<expr>" : opts.input.empty() || opts.input == "-" ? "<stdin>" : opts.input;
    std::string source = !code.empty() ? code : tg::read_input(opts.input);
    tg::Graph graph;
    try {
      graph = tg::trace_script(source, name);
    } catch (const tg::ScriptError& e) {
      throw tg::Error(e.kind(), e.what());
    }
    tg::write_output(tg::write_graph(graph, opts.json), opts.output, !opts.json);
    return 0;
  });
}
