// The fuzz targets' bodies, shared by the libFuzzer executables (tests/fuzz/<target>.cpp,
// `make fuzz`) and the unit test that replays every past finding (tests/fuzz/regressions/,
// test_fuzz_regressions.cpp). A reader given any bytes must return a value or throw tg::Error
// (one clear line for the user); any other exception, crash, sanitizer report, leak, hang or
// runaway allocation is a finding. What a reader accepts must also write back and read again
// to the same bytes (the writers are deterministic).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/artifact.h"
#include "io/npy.h"
#include "nn/safetensors.h"
#include "script/ast.h"
#include "script/lexer.h"
#include "util/error.h"

namespace tg::fuzz {

// f() with tg::Error swallowed (a clean refusal); anything else escapes.
template <class F> void expect_clean(F&& f) {
  try {
    f();
  } catch (const tg::Error&) {
  }
}

template <class T, class Read, class Write> void round_trip(std::string_view in, Read read, Write write) {
  expect_clean([&] {
    T value = read(in);
    for (bool json : {false, true}) {
      std::string once = write(value, json);
      if (write(read(once), json) != once) throw std::logic_error("artifact does not round-trip");
    }
  });
}

inline void graph(std::string_view in) {
  round_trip<Graph>(
      in, [](std::string_view b) { return read_graph(b); },
      [](const Graph& g, bool json) { return write_graph(g, json); });
}
inline void schedule(std::string_view in) {
  round_trip<Schedule>(
      in, [](std::string_view b) { return read_schedule(b); },
      [](const Schedule& s, bool json) { return write_schedule(s, json); });
}
inline void program(std::string_view in) {
  round_trip<Program>(
      in, [](std::string_view b) { return read_program(b); },
      [](const Program& p, bool json) { return write_program(p, json); });
}

inline void npy(std::string_view in) {
  expect_clean([&] {
    std::string once = npy_bytes(read_npy_bytes(in));
    if (npy_bytes(read_npy_bytes(once)) != once) throw std::logic_error(".npy does not round-trip");
  });
}

inline void safetensors(std::string_view in) {
  expect_clean([&] {
    std::string once = nn::write_safetensors(nn::parse_safetensors(std::string(in), "fuzz.safetensors"));
    if (nn::write_safetensors(nn::parse_safetensors(once, "again.safetensors")) != once)
      throw std::logic_error("safetensors does not round-trip");
  });
}

// The lexer and parser only: running a valid script may legitimately ask for any amount of work.
inline void script(std::string_view in) {
  std::string source(in);
  expect_clean([&] { script::tokenize(source); });
  expect_clean([&] { script::parse_program(source); });
}

} // namespace tg::fuzz
