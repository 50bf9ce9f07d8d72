#include "io/input_kind.h"

#include <cstdint>

namespace tg {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Mostly printable text: a script, or text of another kind.
bool looks_like_text(std::string_view bytes) {
  std::string_view head = bytes.substr(0, 4096);
  size_t odd = 0;
  for (char ch : head) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == 0) return false;
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') ++odd;
  }
  return odd * 100 <= head.size();
}

bool looks_like_safetensors(std::string_view bytes) {
  if (bytes.size() < 10) return false;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | uint8_t(bytes[size_t(i)]);
  return n >= 2 && n <= bytes.size() - 8 && bytes[8] == '{';
}

// An ONNX ModelProto starts with field 1 (ir_version, a varint: tag 0x08) and names its producer
// or opsets in plain text soon after.
bool looks_like_onnx(std::string_view bytes) {
  if (bytes.size() < 16 || uint8_t(bytes[0]) != 0x08 || uint8_t(bytes[1]) >= 0x80) return false;
  std::string_view head = bytes.substr(0, 512);
  return head.find("onnx") != std::string_view::npos || head.find("torch") != std::string_view::npos ||
         head.find('\x3a') != std::string_view::npos || head.find('\x42') != std::string_view::npos;
}

} // namespace

std::string describe_foreign_input(std::string_view bytes) {
  if (starts_with(bytes, "\x93NUMPY")) return "a .npy array (tg-run binds one with --in NAME=FILE.npy)";
  if (starts_with(bytes, "PK\x03\x04")) return "a zip archive, such as tg-run's -o .npz output";
  if (starts_with(bytes, "\x7f"
                         "ELF"))
    return "a compiled binary";
  if (looks_like_safetensors(bytes)) return "a safetensors file (tg-run --load-state reads one)";
  if (looks_like_onnx(bytes)) return "an ONNX model (tg-trace reads it: tg-trace model.onnx | tg-schedule)";
  if (looks_like_text(bytes)) {
    std::string_view head = bytes.substr(0, 65536);
    for (std::string_view word : {"output(", "input(", "Tensor", "import ", "def ", "nn."})
      if (head.find(word) != std::string_view::npos)
        return "a tg script (tg-trace reads it: tg-trace FILE.tg | tg-schedule)";
  }
  return "";
}

} // namespace tg
