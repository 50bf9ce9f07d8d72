// base64 through libcrypto (EVP_EncodeBlock, EVP_DecodeBlock). See base64.h.
#include "io/base64.h"

#include <openssl/evp.h>

namespace tg {

std::string base64_encode(const uint8_t* data, size_t size) {
  std::string out((size + 2) / 3 * 4 + 1, '\0'); // EVP_EncodeBlock writes a NUL after
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, int(size));
  out.resize(size_t(n));
  return out;
}

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text) {
  // EVP_DecodeBlock skips surrounding blanks and counts padding as zero bytes: accept only
  // canonical text (the alphabet, '=' as the last one or two characters), then drop the padding.
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  for (size_t i = 0; i + pad < text.size(); ++i) {
    char c = text[i];
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!ok) return std::nullopt;
  }
  std::vector<uint8_t> out(text.size() / 4 * 3);
  if (text.empty()) return out;
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()), int(text.size()));
  if (n < 0) return std::nullopt;
  out.resize(size_t(n) - pad);
  return out;
}

} // namespace tg
