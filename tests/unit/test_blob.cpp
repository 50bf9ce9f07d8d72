#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "io/artifact.h"
#include "sample_artifacts.h"
#include "util/blob.h"

using namespace tg;
using tg::samples::sample_graph;

TEST(Blob, copies_share_the_bytes_and_compare_by_content) {
  Blob a(std::vector<uint8_t>{1, 2, 3, 4, 5});
  Blob b = a;
  EXPECT_EQ(a.data(), b.data());
  Blob c(std::vector<uint8_t>{1, 2, 3, 4, 5});
  EXPECT_NE(a.data(), c.data());
  EXPECT_EQ(a, c);
  EXPECT_EQ(a.hash(), c.hash());
  EXPECT_FALSE(a == Blob(std::vector<uint8_t>{1, 2, 3, 4, 6}));
  EXPECT_EQ(Blob(), Blob(std::vector<uint8_t>{}));
}

TEST(Blob, the_hash_sees_every_byte_and_the_length) {
  std::vector<uint8_t> bytes(1000, 7);
  uint64_t h = Blob(bytes).hash();
  for (size_t i : {size_t(0), size_t(31), size_t(32), size_t(999)}) {
    std::vector<uint8_t> other = bytes;
    other[i] ^= 1;
    EXPECT_NE(Blob(other).hash(), h) << i;
  }
  EXPECT_NE(Blob(std::vector<uint8_t>(999, 7)).hash(), h);
  EXPECT_NE(Blob(std::vector<uint8_t>(64, 0)).hash(), Blob(std::vector<uint8_t>(65, 0)).hash());
}

TEST(Blob, an_alias_keeps_its_owner_alive) {
  std::weak_ptr<const std::string> watch;
  Blob alias;
  {
    auto owner = std::make_shared<const std::string>("abcdef");
    watch = owner;
    alias = Blob(owner, reinterpret_cast<const uint8_t*>(owner->data()) + 2, 3);
  }
  ASSERT_FALSE(watch.expired());
  EXPECT_EQ(std::string(alias.begin(), alias.end()), "cde");
  alias = Blob();
  EXPECT_TRUE(watch.expired());
}

// A graph read from shared bytes points into them; one read from a view copies: both equal
// the graph that was written.
TEST(Blob, a_graph_read_from_shared_bytes_aliases_them) {
  Graph g = sample_graph();
  auto bytes = std::make_shared<const std::string>(write_graph(g));
  Graph shared = read_graph(*bytes, bytes), copied = read_graph(*bytes);
  const char* begin = bytes->data();
  const char* end = begin + bytes->size();
  size_t literals = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    EXPECT_EQ(shared.nodes[i].data, g.nodes[i].data) << i;
    EXPECT_EQ(copied.nodes[i].data, g.nodes[i].data) << i;
    if (g.nodes[i].data.empty()) continue;
    ++literals;
    auto at = reinterpret_cast<const char*>(shared.nodes[i].data.data());
    EXPECT_TRUE(at >= begin && at < end) << i;
    at = reinterpret_cast<const char*>(copied.nodes[i].data.data());
    EXPECT_FALSE(at >= begin && at < end) << i;
  }
  EXPECT_GT(literals, 0u);
}
