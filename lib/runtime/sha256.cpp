// SHA-256 through libcrypto's SHA256_* functions. See sha256.h.
//
// Not the EVP interface: OpenSSL 3's first EVP_DigestInit loads the default provider, about
// 5 million instructions (1.5 ms) — a third of tg-run's start-up on a cached program. The
// SHA256_* functions are the same implementation without the provider lookup; OpenSSL 3 marks
// them deprecated, not removed.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "runtime/sha256.h"

#include <openssl/sha.h>

#include "util/error.h"

namespace tg {

struct Sha256::Context {
  SHA256_CTX ctx;
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  if (SHA256_Init(&ctx_->ctx) != 1) fail("RuntimeError", "libcrypto could not start a SHA-256 hash");
}

Sha256::~Sha256() = default;

Sha256& Sha256::update(std::string_view data) {
  if (SHA256_Update(&ctx_->ctx, data.data(), data.size()) != 1)
    fail("RuntimeError", "libcrypto SHA-256 update failed");
  return *this;
}

std::array<uint8_t, 32> Sha256::digest() {
  std::array<uint8_t, 32> out{};
  if (SHA256_Final(out.data(), &ctx_->ctx) != 1) fail("RuntimeError", "libcrypto SHA-256 finish failed");
  return out;
}

std::string Sha256::hexdigest() {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest()) out += kHex[b >> 4], out += kHex[b & 15];
  return out;
}

std::string sha256_hex(std::string_view data) { return Sha256().update(data).hexdigest(); }

} // namespace tg
