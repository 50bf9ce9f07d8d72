// io layer, base64 (RFC 4648, with padding): how byte blobs appear in JSON artifacts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

std::string base64_encode(const uint8_t* data, size_t size);
inline std::string base64_encode(const std::vector<uint8_t>& data) {
  return base64_encode(data.data(), data.size());
}
// nullopt for text that is not canonical padded base64.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

} // namespace tg
