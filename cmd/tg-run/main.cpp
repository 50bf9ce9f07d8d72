// tg-run: program artifact -> tensors. Compiles (with a cache), runs, writes .npy or text.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "io/artifact.h"
#include "io/format_array.h"
#include "io/npy.h"
#include "io/tool.h"
#include "runtime/runner.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"Compile and run a program (from tg-codegen); bind inputs from .npy files."};
  std::string input, out_dir;
  std::vector<std::string> bindings;
  app.add_option("program", input, "program artifact (default: stdin)");
  app.add_option("-i,--in", bindings, "bind an input: NAME=FILE.npy (repeatable)")
      ->check(
          [](const std::string& b) {
            auto eq = b.find('=');
            return eq == std::string::npos || eq == 0 || eq + 1 == b.size() ? "expected NAME=FILE.npy, got '" + b + "'"
                                                                            : std::string();
          },
          "NAME=FILE.npy");
  bool timing = false;
  int repeat = 1;
  app.add_flag("--time", timing, "print each kernel's wall time to stderr");
  app.add_option("--repeat", repeat, "with --time: launch each kernel N times and report the best")
      ->check(CLI::PositiveNumber);
  app.add_option("--out-dir", out_dir, "write NAME.npy for every output into DIR (default: print as text)");
  return tg::run_tool("tg-run", app, argc, argv, [&] {
    tg::Program program = tg::read_program(tg::read_input(input));
    std::map<std::string, tg::HostBuffer> inputs;
    for (const std::string& b : bindings) {
      auto eq = b.find('='); // the option's check() guarantees NAME=FILE
      std::string name = b.substr(0, eq);
      try {
        inputs[name] = tg::read_npy(b.substr(eq + 1));
      } catch (const tg::Error& e) {
        throw tg::Error(e.kind(), "input '" + name + "': " + e.what());
      }
    }
    std::vector<double> seconds;
    tg::RunOptions run_options;
    if (timing) {
      run_options.kernel_seconds = &seconds;
      run_options.repeat = repeat;
    }
    std::map<std::string, tg::HostBuffer> outputs = tg::run_program(program, inputs, run_options);
    for (size_t i = 0; i < seconds.size(); ++i)
      std::fprintf(stderr, "tg-run: kernel %s: %.3f ms\n", program.kernels[i].name.c_str(), seconds[i] * 1e3);
    if (!out_dir.empty()) {
      std::filesystem::create_directories(out_dir);
      for (const auto& o : program.outputs) tg::write_npy(out_dir + "/" + o.name + ".npy", outputs.at(o.name));
      return 0;
    }
    for (const auto& o : program.outputs) {
      const tg::HostBuffer& b = outputs.at(o.name);
      std::cout << o.name << ": shape=" << tg::shape_repr(b.shape) << " dtype=" << tg::py_name(b.dtype) << "\n"
                << tg::format_array(b) << "\n";
    }
    return 0;
  });
}
