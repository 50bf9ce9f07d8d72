// runtime layer, content hashing for the compile cache: SHA-256 (FIPS 180-4).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tg {

class Sha256 {
public:
  Sha256();
  Sha256& update(std::string_view data);
  std::array<uint8_t, 32> digest(); // finishes the hash; call once
  std::string hexdigest();

private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);

} // namespace tg
