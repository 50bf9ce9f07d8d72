// io layer, artifacts: the graph (tg-trace, tg-grad), schedule (tg-schedule) and program
// (tg-codegen) files that flow between the tools. Binary by default: "TGART", a kind byte, a
// little-endian uint32 version, then a cereal PortableBinary payload. JSON on request: one
// object with "format" ("tg-graph" ...) and "version". formats/*.md documents every field.
// Readers accept both forms, check kind and version, and validate every invariant later
// stages rely on, so a hand-edited or damaged file gives a tg::Error, never a crash.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "codegen/program.h"
#include "io/file.h"
#include "lazy/lazy.h"
#include "schedule/schedule.h"

namespace tg {

enum class ArtifactKind : uint8_t { Unknown = 0, Graph = 1, Schedule = 2, Program = 3 };

// The version this build writes and the newest it reads.
// 2: states, assigns, init kernels; 3: kernel vars, launch sizes; 4: program kernel extents;
// 5: random buffers (CUSTOM nodes, custom program kernels); 6: program kernels op_estimate,
// mem_estimate; 8: symbolic dimensions (text in shapes) and the vars tables; 9: a device per
// graph node, buffer and kernel (multi-device programs); 10: a named constant's dims (its
// safetensors shape); 11: a binary constant's data may be a reference into a weights file
// (io/weights_file.h). Versions 8 to 10 are still read: their buffers and kernels are all on
// the default device (8), their constants unnamed (8, 9).
constexpr uint32_t kArtifactVersion = 11;
constexpr uint32_t kOldestArtifactVersion = 8;

// What a kind is, for messages: "a graph (from tg-trace)".
std::string_view artifact_description(ArtifactKind kind);
// "tg-graph", "tg-schedule", "tg-program": the JSON "format" value.
std::string_view artifact_format_name(ArtifactKind kind);
// Looks at the header (binary) or the "format" field (JSON); Unknown for anything else.
ArtifactKind detect_artifact(std::string_view bytes);

// An artifact as the pieces it is written in: its own bytes, and each large constant's data
// where it already lies (the artifact or model that was read, which the Graph, Schedule or
// Program keeps alive). Writing the pieces copies a model's weights once, into the pipe or
// file; joining them first copied 100 MB more per tool, into fresh pages. Valid while the
// object it was made from lives.
struct ArtifactBytes {
  Pieces pieces;
  std::deque<std::string> own; // what the pieces point into besides the constants (stays put)
  size_t size() const;
  std::string join() const;
};
ArtifactBytes graph_bytes(const Graph& graph, bool json = false);
ArtifactBytes schedule_bytes(const Schedule& schedule, bool json = false);
ArtifactBytes program_bytes(const Program& program, bool json = false);

// The same, as one string.
std::string write_graph(const Graph& graph, bool json = false);
std::string write_schedule(const Schedule& schedule, bool json = false);
std::string write_program(const Program& program, bool json = false);

// With an `owner` (what keeps `bytes` alive), the result's constants point into `bytes`
// instead of copying them: what the tools do with the artifact they read.
Graph read_graph(std::string_view bytes, std::shared_ptr<const void> owner = nullptr);
Schedule read_schedule(std::string_view bytes, std::shared_ptr<const void> owner = nullptr);
Program read_program(std::string_view bytes, std::shared_ptr<const void> owner = nullptr);

// The checks the readers run after decoding; throw tg::Error("... artifact: <what>").
void validate_graph(const Graph& graph);
void validate_schedule(const Schedule& schedule);
void validate_program(const Program& program);

} // namespace tg
