// script layer: the .tg language (a Python subset with tinygrad's names) evaluated over the
// Tensor API. trace_script runs a script and returns the lazy graph of its named outputs,
// with the placeholders declared by input() as the graph's inputs.
#pragma once
#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lazy/lazy.h"
#include "tensor/tensor.h"

namespace tg {

// A script failure: the file and line, the Python/tinygrad exception type and its message.
// what() is "FILE:LINE: Kind: message".
// Where an error went through a function: the traceback, outermost call first.
struct TraceFrame {
  int line;
  std::string function; // "<module>" for the script's top level
};

class ScriptError : public std::runtime_error {
public:
  // `line` is where the error was: the innermost frame's line.
  ScriptError(std::string file, int line, std::string kind, std::string message,
              std::vector<TraceFrame> traceback = {});
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& kind() const { return kind_; }
  const std::string& message() const { return message_; }
  // Empty for an error at the top level; else every frame down to the innermost.
  const std::vector<TraceFrame>& traceback() const { return traceback_; }
  // Python's form ("Traceback (most recent call last):", then File "f", line N, in fn and the
  // source line of each frame), without the final line; "" when there is no traceback.
  std::string traceback_text(const std::string& source) const;

private:
  std::string file_;
  int line_;
  std::string kind_, message_;
  std::vector<TraceFrame> traceback_;
};

struct ScriptOptions {
  std::ostream* print_stream = nullptr; // print(); nullptr = stderr
  int recursion_limit = 1000;           // Python's default
  // The `args` dict of str (tg-trace --arg NAME=VALUE), in order; a repeated name keeps the last.
  std::vector<std::pair<std::string, std::string>> args;
};

struct ScriptInput {
  std::string name;
  Tensor tensor;
  bool requires_grad = false;
};

// What a script produced: its inputs in declaration order, its outputs in output() order (or
// the single output "out": the value of the last expression statement).
struct ScriptResult {
  std::vector<ScriptInput> inputs;
  std::vector<std::pair<std::string, Tensor>> outputs;
  // states the script left unnamed (state.N) -> the names of what holds them (state_names.h)
  std::map<std::string, std::string> state_names;
};

ScriptResult run_script(const std::string& source, const std::string& filename,
                        const ScriptOptions& options = {});
Graph trace_script(const std::string& source, const std::string& filename, const ScriptOptions& options = {});

} // namespace tg
