// SHA-256 through libcrypto's EVP interface. See sha256.h.
#include "runtime/sha256.h"

#include <openssl/evp.h>

#include "util/error.h"

namespace tg {

struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    fail("RuntimeError", "libcrypto could not start a SHA-256 hash");
}

Sha256::~Sha256() = default;

Sha256& Sha256::update(std::string_view data) {
  if (EVP_DigestUpdate(ctx_->md, data.data(), data.size()) != 1)
    fail("RuntimeError", "libcrypto SHA-256 update failed");
  return *this;
}

std::array<uint8_t, 32> Sha256::digest() {
  std::array<uint8_t, 32> out{};
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_->md, out.data(), &n) != 1 || n != out.size())
    fail("RuntimeError", "libcrypto SHA-256 finish failed");
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
