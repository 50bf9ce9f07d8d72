// io/base64 (libcrypto underneath): round trips and the canonical-text check.
#include <gtest/gtest.h>

#include "io/base64.h"

using namespace tg;

TEST(Base64, round_trips_every_length_and_matches_rfc4648) {
  EXPECT_EQ(base64_encode({'f', 'o', 'o', 'b', 'a'}), "Zm9vYmE=");
  EXPECT_EQ(base64_encode({'f', 'o'}), "Zm8=");
  EXPECT_EQ(base64_encode({}), "");
  for (size_t n = 0; n < 40; ++n) {
    std::vector<uint8_t> data(n);
    for (size_t i = 0; i < n; ++i) data[i] = uint8_t(i * 37 + 11);
    EXPECT_EQ(base64_decode(base64_encode(data)), data) << n;
  }
}

TEST(Base64, refuses_text_that_is_not_canonical_padded_base64) {
  for (const char* bad : {"Zm9", "Zm9v=", "Zm=v", "Z m9v", "====", "A===", "Zm9v\n", "Zm9*"})
    EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
}
