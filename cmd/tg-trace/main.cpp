// tg-trace: a .tg script -> graph artifact.
#include "io/artifact.h"
#include "io/dot.h"
#include "io/npy.h"
#include "io/tool.h"
#include "io/weights_file.h"
#include "onnx/onnx_import.h"
#include "script/trace.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"Run a .tg tensor script (or import an ONNX model) and write its lazy op graph."};
  tg::ArtifactOptions opts;
  std::string code;
  tg::add_artifact_options(app, opts, "script file (default: stdin)");
  tg::add_dot_option(app, opts);
  app.add_option("-e,--expr", code, "script text to run instead of a file");
  std::vector<std::string> args;
  app.add_option("--arg", args,
                 "NAME=VALUE, readable in the script as args[\"NAME\"] (a str); for an ONNX model "
                 "NAME=FILE.npy binds its input NAME to that constant; repeatable")
      ->allow_extra_args(false)
      ->check([](const std::string& a) -> std::string {
        size_t eq = a.find('=');
        return eq == std::string::npos || eq == 0 ? "expected NAME=VALUE, got '" + a + "'" : "";
      });
  std::vector<std::string> dims;
  app.add_option(
         "--dim", dims,
         "for an ONNX model: NAME=N fixes its inputs' symbolic dimension NAME; NAME=LO..HI makes it a "
         "program variable bound to LO, which tg-run sets to any size in the range; repeatable")
      ->option_text("NAME=N|LO..HI")
      ->allow_extra_args(false);
  return tg::run_tool("tg-trace", app, argc, argv, [&] {
    tg::ScriptOptions so;
    for (const std::string& a : args) {
      size_t eq = a.find('=');
      so.args.emplace_back(a.substr(0, eq), a.substr(eq + 1));
    }
    std::string name = !code.empty()                             ? "<expr>"
                       : opts.input.empty() || opts.input == "-" ? "<stdin>"
                                                                 : opts.input;
    // read once: an ONNX model (100 MB) is parsed from the buffer, only a script is copied out
    auto in = code.empty() ? tg::read_input_shared(opts.input) : nullptr;
    std::string source;
    tg::Graph graph;
    try {
      if (auto model = in ? tg::parse_onnx(in->view(), in) : nullptr) {
        // its weights travel as references to the file, unless --embed-weights (io/weights_file.h)
        if (!opts.input.empty() && opts.input != "-") tg::share_weights_file(in, opts.input);
        std::map<std::string, tg::HostBuffer> frozen; // --arg NAME=FILE.npy: an input bound to a constant
        for (const auto& [arg, path] : so.args) frozen[arg] = tg::read_npy(path);
        std::map<std::string, tg::DimRange> ranges;
        for (const std::string& d : dims) {
          auto [dim, range] = tg::parse_dim_range(d);
          if (!ranges.emplace(dim, range).second) tg::fail("ValueError", "--dim " + dim + " is given twice");
        }
        graph = tg::trace_onnx(model, name, frozen, ranges);
      } else {
        if (!dims.empty())
          tg::fail("ValueError", "--dim is for an ONNX model's inputs; a script makes its own Variable");
        source = in ? std::string(in->view()) : code;
        graph = tg::trace_script(source, name, so);
      }
    } catch (const tg::ScriptError& e) { // Python's traceback, then tg's one line
      std::fputs(e.traceback_text(source).c_str(), stderr);
      throw tg::Error(e.kind(), e.what());
    }
    if (opts.wants_dot())
      tg::write_output(tg::graph_to_dot(graph, {opts.dot_output, opts.dot_kernel, opts.dot_depth}),
                       opts.output, false);
    else
      tg::write_output(tg::graph_bytes(graph, opts.json).pieces, opts.output, !opts.json);
    return 0;
  });
}
