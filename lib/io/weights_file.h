// io layer, weights by reference: a model file whose bytes constants alias (tg-trace maps the
// .onnx it imports) is a weights file, and a binary artifact names where in it a constant's
// data lies instead of carrying the bytes. ResNet-50's 100 MB of weights would otherwise cross
// every pipe between the tools and land in the program file; as references, each tool maps
// the model's pages from the page cache instead. JSON artifacts always carry the bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "io/file.h"
#include "util/blob.h"

namespace tg {

// Where a constant's data lies: `size` bytes at `offset` in the file `path` (absolute), which
// had `file_size` bytes and modification time `mtime_ns` when it was read.
struct FileSpan {
  std::string path;
  uint64_t offset = 0, size = 0, file_size = 0;
  int64_t mtime_ns = 0;
};

// Data this small is always written into the artifact (a reference costs ~100 bytes).
constexpr size_t kReferencedBytes = size_t(1) << 16;

// Makes `buffer` (the whole regular file `path`, read from its start) a weights file: constants
// whose data lies in it are written by reference while it lives. No effect on a pipe's buffer.
void share_weights_file(const std::shared_ptr<const ReadBuffer>& buffer, const std::string& path);
// Where `size` bytes at `data` lie in a weights file; nullopt when in none, when smaller than
// kReferencedBytes, or after set_embed_weights(true).
std::optional<FileSpan> weights_span(const uint8_t* data, size_t size);
// The bytes `span` names, from its file (read or mapped once per process, then itself a weights
// file). A missing file or one whose size or time differ from the span's is a tg::Error naming
// it.
Blob weights_blob(const FileSpan& span);
// --embed-weights: every constant's bytes go into the artifacts this process writes.
void set_embed_weights(bool embed);

} // namespace tg
