// tg-codegen: schedule artifact -> program artifact (source for one device).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "codegen/codegen.h"
#include "codegen/stages.h"
#include "device/clang/c_export.h"
#include "device/registry.h"
#include "io/artifact.h"
#include "io/file.h"
#include "io/known_programs.h"
#include "io/tool.h"
#include "launch/beam.h"
#include "nn/safetensors.h"

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
  std::string optimizer = "tg";
  app.add_option("--opt", optimizer,
                 "kernel optimizer: tg (SIMD register tiles on host devices, else tinygrad's) or tinygrad "
                 "(0.9.1's hand-coded optimizations, its exact sources)")
      ->check(CLI::IsMember({"tg", "tinygrad"}))
      ->capture_default_str();
  int beam = 0;
  app.add_option("--beam", beam,
                 "search each kernel's opts by timing candidates on this machine, keeping the N fastest "
                 "per round (tinygrad's BEAM=N); results are cached")
      ->option_text("N")
      ->check(CLI::Range(1, 64));
  double beam_budget = -1;
  app.add_option(
         "--beam-budget", beam_budget,
         "with --beam: stop searching after SECONDS in all; kernels not reached keep tg's optimizer's "
         "opts (or a cached search's)")
      ->option_text("SECONDS")
      ->check(CLI::NonNegativeNumber);
  std::string emit = "program", lib_name;
  app.add_option("--emit", emit,
                 "what to write: program (the artifact) or c (a C library: -o DIR gets NAME.h, NAME.c)")
      ->check(CLI::IsMember({"program", "c"}))
      ->capture_default_str();
  app.add_option("--name", lib_name,
                 "with --emit c: the library's name, prefix of every symbol (a C identifier)");
  std::string weights_path;
  auto* weights_opt =
      app.add_option("--weights", weights_path,
                     "with --emit c: the safetensors file the script loaded, for a schedule whose constants "
                     "carry no names (older artifacts): its tensors are found by their bytes")
          ->option_text("FILE.safetensors");
  const bool& embed_weights = opts.embed_weights; // add_artifact_options' flag, which means more here
  app.get_option("--embed-weights")
      ->description("carry every constant's bytes in the program, never a reference to the model file "
                    "they were read from; with --emit c: keep the weights the script read with safe_load in "
                    "NAME.c as constants (default: NAME_load(m, path) reads them from a safetensors file)")
      ->excludes(weights_opt);
  std::vector<std::string> print_after;
  std::string stages;
  for (std::string_view n : tg::stage_names()) stages += (stages.empty() ? "" : ", ") + std::string(n);
  app.add_option("--print-after", print_after,
                 "print each kernel's STAGE to stderr (repeatable, or all): " + stages)
      ->option_text("STAGE")
      ->delimiter(',')
      ->check([](const std::string& s) -> std::string {
        return s == "all" || tg::stage_from_name(s) ? "" : "unknown stage '" + s + "'";
      });
  return tg::run_tool("tg-codegen", app, argc, argv, [&] {
    const tg::Renderer& renderer = tg::device_renderer(device); // unknown devices fail before reading
    auto in = tg::read_input_shared(opts.input);                // constants point into it
    tg::Schedule schedule = tg::read_schedule(in->view(), in);
    tg::CodegenOptions options;
    options.optimizer = noopt                     ? tg::Optimizer::None
                        : optimizer == "tinygrad" ? tg::Optimizer::Tinygrad
                                                  : tg::Optimizer::Tg;
    if (beam_budget >= 0 && beam == 0)
      tg::fail("ValueError", "--beam-budget limits --beam: give --beam N too");
    if (beam > 0) {
      if (noopt || optimizer == "tinygrad")
        tg::fail("ValueError", "--beam searches opts itself: drop --noopt and --opt");
      // Progress as "kernel i/N", i the kernel's number in the program (as --time and
      // --print-after number them), and an estimate of the time left from the searches so far.
      size_t total = schedule.kernels.size();
      auto started = std::chrono::steady_clock::now();
      tg::BeamDeadline deadline =
          beam_budget < 0 ? tg::BeamDeadline::max()
                          : started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                          std::chrono::duration<double>(beam_budget));
      options.optimize = [&, total, started, deadline, done = 0,
                          searched = 0](tg::Kernel& k, const tg::ScheduleKernel& sk) mutable {
        auto t0 = std::chrono::steady_clock::now();
        tg::BeamResult r = tg::beam_search(sk, schedule, tg::device(device), beam, deadline);
        tg::apply_beam(k, r);
        auto t1 = std::chrono::steady_clock::now();
        double s = std::chrono::duration<double>(t1 - t0).count();
        ++done;
        searched += !r.cached;
        size_t number = size_t(&sk - schedule.kernels.data()) + 1;
        if (number < 1 || number > total) number = size_t(done);
        double elapsed = std::chrono::duration<double>(t1 - started).count();
        std::string left =
            number < total && searched > 0
                ? ", about " + std::to_string(int(elapsed / double(done) * double(total - number) + 0.5)) +
                      " s left"
                : "";
        if (r.cut && r.candidates == 0)
          std::fprintf(stderr,
                       "tg-codegen: beam %d: kernel %zu/%zu %s: --beam-budget spent: tg's optimizer's opts\n",
                       beam, number, total, k.name().c_str());
        else if (r.cached)
          std::fprintf(stderr, "tg-codegen: beam %d: kernel %zu/%zu %s: cached%s\n", beam, number, total,
                       k.name().c_str(), left.c_str());
        else
          std::fprintf(
              stderr,
              "tg-codegen: beam %d: kernel %zu/%zu %s: %.3f ms (tg's optimizer: %.3f ms), %d candidates "
              "in %d rounds, %.1f s%s%s\n",
              beam, number, total, k.name().c_str(), r.seconds * 1e3, r.tg_seconds * 1e3, r.candidates,
              r.rounds, s,
              r.rejected ? " (the fastest computed other outputs: tg's kept)"
              : r.unconfirmed
                  ? " (the fastest was not 5% faster than tg's when timed again in turns: tg's kept)"
              : r.cut ? " (--beam-budget spent: the best so far)"
                      : "",
              left.c_str());
      };
    }
    std::vector<tg::Stage> shown;
    for (std::string_view n : tg::stage_names())
      for (const std::string& p : print_after)
        if (p == "all" || p == n) shown.push_back(*tg::stage_from_name(n));
    if (!shown.empty())
      options.observe = [&](size_t i, const tg::ScheduleKernel& sk, const tg::LoweredKernel& lk) {
        for (tg::Stage st : shown) {
          std::string text = tg::stage_text(st, sk, lk);
          std::fprintf(stderr, "tg-codegen: kernel %zu %s after %s:\n%s", i + 1, lk.name.c_str(),
                       std::string(tg::stage_names()[size_t(st)]).c_str(), text.c_str());
        }
      };
    if (emit == "c") {
      if (lib_name.empty()) tg::fail("ValueError", "--emit c needs --name NAME");
      if (opts.output.empty() || opts.output == "-") tg::fail("ValueError", "--emit c needs -o DIR");
      if (opts.json) tg::fail("ValueError", "--emit c writes C, not JSON: drop --json");
      if (renderer.opts().device != "CLANG")
        tg::fail("ValueError",
                 "--emit c renders C for the host: use --device CLANG (the default), not " + device);
      tg::nn::SafeFile file;
      std::vector<tg::FileTensor> weights;
      if (!weights_path.empty()) file = tg::nn::load_safetensors(weights_path);
      if (weights_path.empty() && !embed_weights) // the constants safe_load named
        for (const tg::BufferInfo& b : schedule.buffers)
          if (b.role == tg::BufferRole::Constant && !b.name.empty() && !b.data.empty())
            weights.push_back({b.name,
                               std::string(tg::nn::safetensors_dtype_name(b.dtype)),
                               b.dtype,
                               b.dims,
                               {reinterpret_cast<const char*>(b.data.data()), b.data.size()},
                               b.id});
      for (const tg::nn::SafeTensor& t : file.tensors)
        weights.push_back({t.name,
                           std::string(tg::nn::safetensors_dtype_name(t.dtype)),
                           t.dtype,
                           t.shape,
                           {reinterpret_cast<const char*>(t.data.data()), t.data.size()}});
      tg::CLibrary lib = tg::export_c_library(schedule, lib_name, options,
                                              weights.empty() && weights_path.empty() ? nullptr : &weights);
      for (const std::string& note : lib.notes) std::fprintf(stderr, "tg-codegen: note: %s\n", note.c_str());
      std::error_code ec;
      std::filesystem::create_directories(opts.output, ec);
      if (ec) tg::fail("OSError", "-o " + opts.output + ": cannot create the folder: " + ec.message());
      std::string dir = opts.output + "/" + lib_name;
      tg::write_files_atomic({{dir + ".h", lib.header}, {dir + ".c", lib.source}});
      return 0;
    }
    if (!weights_path.empty()) tg::fail("ValueError", "--weights is for --emit c");
    tg::Program program = tg::codegen_schedule(schedule, renderer, options);
    tg::remember_program(program); // tg-run trusts its extents (io/known_programs.h)
    tg::write_output(tg::program_bytes(program, opts.json).pieces, opts.output, !opts.json);
    return 0;
  });
}
