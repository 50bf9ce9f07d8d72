// tg-run: program artifact -> tensors. Compiles (with a cache), runs, writes .npy or text;
// with --steps, runs the program N times over the same buffers, so its states (weights,
// optimizer moments) carry from one step to the next; --load-state/--save-state keep them
// in a safetensors file between runs.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "device/host/bounds_check.h"
#include "dtype/dtype_bytes.h"
#include "io/artifact.h"
#include "io/file.h"
#include "io/format_array.h"
#include "io/known_programs.h"
#include "io/npy.h"
#include "io/npy_steps.h"
#include "io/npz.h"
#include "io/tool.h"
#include "launch/kernel_times.h"
#include "launch/profile_trace.h"
#include "launch/runner.h"
#include "launch/state_file.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"Compile and run a program (from tg-codegen); bind inputs from .npy files."};
  std::string input, out_dir, load_state, save_state, loss_name;
  std::vector<std::string> bindings;
  app.add_option("program", input, "program artifact (default: stdin)");
  app.add_option("-i,--in", bindings, "bind an input: NAME=FILE.npy (repeatable)")
      ->check(
          [](const std::string& b) {
            auto eq = b.find('=');
            return eq == std::string::npos || eq == 0 || eq + 1 == b.size()
                       ? "expected NAME=FILE.npy, got '" + b + "'"
                       : std::string();
          },
          "NAME=FILE.npy");
  std::vector<std::string> per_step;
  app.add_option(
         "--per-step", per_step,
         "feed input NAME one slice per step: its --in file has one more leading axis than the input, "
         "and step i reads slice i, memory-mapped (repeatable; --steps defaults to that axis's length)")
      ->option_text("NAME");
  std::vector<std::string> var_values;
  app.add_option("--var", var_values,
                 "give a symbolic variable (Variable(\"i\", 1, 10).bind(3) in the script) another value: "
                 "NAME=VALUE (repeatable; default: the value the script bound)")
      ->option_text("NAME=VALUE");
  bool timing = false, compile_only = false, trust = false;
  app.add_flag("--trust", trust,
               "run a program this machine's tg-codegen did not write without TG_CHECK_BOUNDS (a program is "
               "code: trust it as you would a binary)");
  app.add_flag("--compile-only", compile_only,
               "compile the program for its device (into the compile cache) and run nothing");
  int repeat = 1;
  int64_t steps = 1, log_every = 0;
  app.add_flag("--time", timing, "print each kernel's wall time to stderr");
  std::string profile;
  app.add_option("--profile", profile,
                 "write every launch as a Chrome/Perfetto trace (chrome://tracing, ui.perfetto.dev): a track "
                 "for the steps and one for the device's kernels, each with its GFLOP/s and bytes")
      ->option_text("FILE.json");
  app.add_option("--repeat", repeat, "with --time: launch each kernel N times and report the best")
      ->check(tg::positive_integer());
  auto* out_dir_opt = app.add_option("--out-dir", out_dir,
                                     "write NAME.npy for every output into DIR (default: print as text)");
  std::string out_file;
  app.add_option("-o,--output", out_file, "write every output into one FILE.npz (np.load reads it by name)")
      ->option_text("FILE.npz")
      ->excludes(out_dir_opt);
  bool cast = false;
  app.add_flag("--cast", cast,
               "convert an input whose dtype differs from the program's (float64, int64, ...) as numpy's "
               "astype does, instead of refusing it");
  app.add_option("--steps", steps, "run the program N times, states carried over (default 1)")
      ->check(tg::positive_integer());
  app.add_option("--load-state", load_state,
                 "read every state from this safetensors file (skips the init kernels)");
  app.add_option("--save-state", save_state,
                 "after the last step, write every state to this safetensors file");
  app.add_option("--loss", loss_name, "the output shown in progress lines (default: 'loss' if there is one)");
  std::string dist_name;
  std::vector<std::string> placements;
  app.add_option(
         "--dist", dist_name,
         "run the program across the processes of a transport: mpi (mpirun -n N tg-run ... --dist mpi); "
         "each process runs the kernels of the devices placed on it, rank 0 reads the inputs and "
         "writes the outputs")
      ->option_text("mpi");
  app.add_option(
         "--place", placements,
         "with --dist: run DEVICE's kernels on RANK (repeatable; default: device index i on rank i mod N, "
         "the default device on rank 0)")
      ->option_text("DEVICE=RANK");
  app.add_option(
         "--log-every", log_every,
         "a progress line every K steps, and after the first and the last (default: about ten lines in all)")
      ->check(tg::positive_integer());
  auto body = [&](const tg::Distribution* dist) -> int {
    auto in = tg::read_input_shared(input); // constants point into it
    tg::Program program = tg::read_program(in->view(), in);
    const int rank = dist ? dist->transport->rank() : 0;
    // Distributed, a process reads only the inputs of its own devices.
    auto mine = [&](const std::string& name) {
      if (!dist) return true;
      for (const tg::NamedBuffer& nb : program.inputs)
        if (nb.name == name)
          for (const tg::BufferInfo& b : program.buffers)
            if (b.id == nb.buffer) return dist->placement.rank_of(b.device) == rank;
      return true;
    };
    tg::set_program_vars(program, var_values);
    // Kernels stay inside the extents their program states only if tg-codegen wrote it.
    const bool trusted = trust || tg::is_known_program(program);
    if (!trusted) tg::require_bounds_checking();
    if (compile_only) {
      if (!bindings.empty() || !load_state.empty() || !save_state.empty() || !out_dir.empty() ||
          !out_file.empty() || timing)
        tg::fail("ValueError", "--compile-only runs nothing: it takes no --in, --load-state, --save-state, "
                               "--out-dir, -o or --time");
      tg::CompiledProgram c = tg::compile_program(program);
      std::fprintf(stderr, "tg-run: compiled %zu kernels for %s%s\n", program.kernels.size(),
                   program.device.c_str(), c.cache_hit ? " (cached)" : "");
      return 0;
    }
    std::map<std::string, tg::HostBuffer> inputs;
    std::map<std::string, std::unique_ptr<tg::NpySteps>> series; // --per-step inputs
    for (const std::string& name : per_step) series[name] = nullptr;
    for (const std::string& b : bindings) {
      auto eq = b.find('='); // the option's check() guarantees NAME=FILE
      std::string name = b.substr(0, eq);
      if (!mine(name)) {
        series.erase(name);
        continue;
      }
      try {
        if (series.count(name)) {
          series[name] = std::make_unique<tg::NpySteps>(b.substr(eq + 1));
          if (series[name]->steps() == 0) tg::fail("ValueError", "the data set holds no steps");
          inputs[name] = series[name]->step(0);
        } else {
          inputs[name] = tg::read_npy(b.substr(eq + 1));
        }
      } catch (const tg::Error& e) {
        throw tg::Error(e.kind(), "input '" + name + "': " + e.what());
      }
    }
    int64_t data_steps = 0;
    for (const std::string& name : per_step)
      if (!mine(name)) series.erase(name);
    for (const auto& [name, s] : series) {
      if (!s) tg::fail("ValueError", "--per-step " + name + ": no --in " + name + "=FILE.npy binds it");
      if (data_steps && s->steps() != data_steps && !app.count("--steps"))
        tg::fail("ValueError", "--per-step: the data sets hold " + std::to_string(data_steps) + " and " +
                                   std::to_string(s->steps()) + " steps; give --steps");
      if (app.count("--steps") && steps > s->steps())
        tg::fail("ValueError", "--per-step " + name + ": --steps " + std::to_string(steps) +
                                   " but its file holds " + std::to_string(s->steps()) + " steps");
      data_steps = data_steps ? std::min(data_steps, s->steps()) : s->steps();
    }
    if (!series.empty() && !app.count("--steps")) steps = data_steps;
    std::error_code not_there;
    bool regular_or_new = !std::filesystem::exists(out_file, not_there) ||
                          std::filesystem::is_regular_file(out_file, not_there); // /dev/null discards
    if (!out_file.empty() && out_file != "-" && !out_file.ends_with(".npz") && regular_or_new)
      tg::fail("ValueError",
               "-o " + out_file + ": outputs go into one .npz file (or --out-dir DIR for .npy files)");
    // An input of another dtype is refused, or converted with --cast (the first binding and
    // every --per-step slice alike).
    auto as_input_dtype = [&](const std::string& name, tg::HostBuffer& hb) {
      for (const tg::NamedBuffer& nb : program.inputs) {
        if (nb.name != name || hb.dtype == nb.dtype) continue;
        if (!cast)
          tg::fail("ValueError", "input '" + nb.name + "': expected dtype " +
                                     std::string(tg::py_name(nb.dtype)) + ", got " +
                                     std::string(tg::py_name(hb.dtype)) + " (--cast converts it)");
        hb.data = tg::cast_elements(hb.data, hb.dtype, nb.dtype);
        hb.dtype = nb.dtype;
      }
    };
    for (auto& [name, hb] : inputs) as_input_dtype(name, hb);
    if ((!load_state.empty() || !save_state.empty()) && program.states.empty())
      tg::fail("ValueError", "the program has no states to load or save (a script makes one with realize())");
    bool have_loss = false;
    for (const auto& o : program.outputs) have_loss |= o.name == (loss_name.empty() ? "loss" : loss_name);
    if (!loss_name.empty() && !have_loss)
      tg::fail("ValueError", "no output named '" + loss_name + "' for --loss");
    if (loss_name.empty()) loss_name = "loss";

    tg::ProgramRun run(program, inputs, trusted, dist);
    if (!load_state.empty()) {
      try {
        run.load_states(tg::load_state_file(load_state));
      } catch (const tg::Error& e) {
        throw tg::Error(e.kind(), "--load-state " + load_state + ": " + e.what());
      }
    }
    std::vector<double> seconds;
    tg::RunOptions run_options;
    if (timing) {
      run_options.kernel_seconds = &seconds;
      run_options.repeat = repeat;
    }
    std::vector<tg::KernelEvent> events;
    if (!profile.empty()) {
      if (timing) tg::fail("ValueError", "--profile times every launch itself: drop --time");
      run_options.events = &events;
    }
    // Progress: a line after the first step (how long one takes), every log_every steps and
    // after the last; on a terminal, one line
    // rewritten in place.
    bool progress = steps > 1;
    bool tty = isatty(STDERR_FILENO) && !dist; // (every process must decide alike)
    if (log_every == 0) log_every = tty ? 1 : std::max<int64_t>(1, steps / 10);
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t step = 1; step <= steps; ++step) {
      if (step > 1)
        for (const auto& [name, s] : series) {
          tg::HostBuffer slice = s->step(step - 1);
          as_input_dtype(name, slice);
          run.set_input(name, slice);
        }
      run.step(run_options);
      if (!progress || (step % log_every != 0 && step != steps && step != 1)) continue;
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      tg::HostBuffer loss_value = have_loss ? run.output(loss_name) : tg::HostBuffer{};
      if (rank != 0) continue;
      std::string loss = have_loss ? " " + loss_name + " " + tg::scalar_text(loss_value) : "";
      std::fprintf(stderr, "%stg-run: step %lld/%lld%s (%.3f ms/step)%s", tty ? "\r" : "", (long long)step,
                   (long long)steps, loss.c_str(), elapsed * 1e3 / double(step),
                   tty && step != steps ? "" : "\n");
      std::fflush(stderr);
    }
    if (!seconds.empty()) tg::print_kernel_times(program, seconds, stderr);
    if (!profile.empty() && dist) { // one trace, one process per rank, written by rank 0
      auto per_rank = tg::gather_events(*dist->transport, events, run.start_us());
      if (rank == 0) tg::write_output(tg::profile_trace_json(program, per_rank), profile, false);
    } else if (!profile.empty()) {
      tg::write_output(tg::profile_trace_json(program, events), profile, false);
    }
    if (!save_state.empty()) tg::save_state_file(run, save_state);
    std::map<std::string, tg::HostBuffer> outputs = run.outputs();
    if (rank != 0) return 0; // rank 0 writes what the run made
    if (!out_file.empty()) {
      std::vector<std::pair<std::string, tg::HostBuffer>> arrays;
      for (const auto& o : program.outputs) arrays.emplace_back(o.name, outputs.at(o.name));
      tg::write_output(tg::npz_bytes(arrays), out_file, true);
      return 0;
    }
    if (!out_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(out_dir, ec);
      if (ec) tg::fail("OSError", "--out-dir " + out_dir + ": cannot create the folder: " + ec.message());
      // all outputs or none: a failure on one leaves no file changed
      std::vector<std::string> bytes;
      std::vector<std::pair<std::string, std::string_view>> files;
      for (const auto& o : program.outputs) bytes.push_back(tg::npy_bytes(outputs.at(o.name), o.name));
      for (size_t i = 0; i < program.outputs.size(); ++i)
        files.emplace_back(out_dir + "/" + program.outputs[i].name + ".npy", bytes[i]);
      tg::write_files_atomic(files);
      return 0;
    }
    for (const auto& o : program.outputs) {
      const tg::HostBuffer& b = outputs.at(o.name);
      std::cout << o.name << ": shape=" << tg::shape_repr(b.shape) << " dtype=" << tg::py_name(b.dtype)
                << "\n"
                << tg::format_array(b) << "\n";
    }
    std::cout.flush();
    if (!std::cout)
      tg::fail("OSError", std::string("cannot write the outputs to stdout: ") + std::strerror(errno));
    return 0;
  };
  return tg::run_tool("tg-run", app, argc, argv, [&]() -> int {
    if (!placements.empty() && dist_name.empty()) tg::fail("ValueError", "--place needs --dist");
    if (dist_name.empty()) return body(nullptr);
    std::unique_ptr<tg::Transport> transport = tg::open_transport(dist_name);
    tg::Distribution dist{transport.get(), tg::Placement(transport->size())};
    try {
      dist.placement = tg::Placement(transport->size(), tg::parse_placements(placements, transport->size()));
      return body(&dist);
    } catch (const tg::Error& e) {
      if (transport->size() == 1) throw;
      // one line naming the rank; then every process of the run ends, and no output is written
      std::fprintf(stderr, "tg-run: rank %d: %s\n", transport->rank(), e.what());
      transport->abort(1);
      return 1; // (abort ends the process; not reached)
    }
  });
}
