// tg-codegen: schedule artifact -> program artifact (source for one device).
#include "codegen/codegen.h"
#include "device/registry.h"
#include "io/artifact.h"
#include "io/tool.h"

int main(int argc, char** argv) {
  CLI::App app{"Optimize and render each kernel of a schedule (from tg-schedule) for one device."};
  tg::ArtifactOptions opts;
  std::string device = tg::default_device();
  std::string known;
  for (const std::string& d : tg::device_names()) known += (known.empty() ? "" : ", ") + d;
  bool noopt = false;
  tg::add_artifact_options(app, opts, "schedule artifact (default: stdin)");
  app.add_option("-d,--device", device, "target device: " + known)->capture_default_str();
  app.add_flag("--noopt", noopt, "skip the kernel optimizer (tinygrad's NOOPT=1)");
  return tg::run_tool("tg-codegen", app, argc, argv, [&] {
    const tg::Renderer& renderer = tg::device_renderer(device); // unknown devices fail before reading
    tg::Schedule schedule = tg::read_schedule(tg::read_input(opts.input));
    tg::CodegenOptions options;
    options.optimize = !noopt;
    tg::Program program = tg::codegen_schedule(schedule, renderer, options);
    tg::write_output(tg::write_program(program, opts.json), opts.output, !opts.json);
    return 0;
  });
}
