// runtime layer, content hashing for the compile cache: SHA-256, computed by OpenSSL's libcrypto.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tg {

class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  Sha256& update(std::string_view data);
  std::array<uint8_t, 32> digest(); // finishes the hash; call once
  std::string hexdigest();

private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

std::string sha256_hex(std::string_view data);

} // namespace tg
