// Weights by reference (io/weights_file.h): a constant whose bytes lie in a weights file is
// written as a reference to them, read back from the file, refused when the file changed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error_of.h"
#include "io/artifact.h"
#include "io/file.h"
#include "io/weights_file.h"
#include "sample_artifacts.h"
#include "temp_dir.h"

using namespace tg;

namespace {

// A file of `n` bytes i*7, written whole.
void write_pattern(const std::string& path, size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = char(i * 7);
  write_file_atomic(path, bytes);
}

// The sample graph with one more constant: `size` bytes at `offset` in `file`.
Graph graph_with(const std::shared_ptr<const ReadBuffer>& file, size_t offset, size_t size) {
  Graph g = samples::sample_graph();
  LazyNode w = samples::node(Op::COPY, DType::UInt8, {int64_t(size)});
  w.data = Blob(file, reinterpret_cast<const uint8_t*>(file->view().data()) + offset, size);
  g.nodes.push_back(w);
  g.outputs.push_back({"w", NodeId(g.nodes.size() - 1)});
  return g;
}

// A weights file of `n` bytes in `dir`, read and shared as tg-trace shares a model.
struct Model {
  std::string path;
  std::shared_ptr<const ReadBuffer> file;
};
Model shared_model(const TempDir& dir, size_t n) {
  Model m{dir.file("model.bin"), nullptr};
  write_pattern(m.path, n);
  m.file = read_file_shared(m.path);
  share_weights_file(m.file, m.path);
  return m;
}

struct EmbedOff { // the setting is process-wide: each test leaves it off
  ~EmbedOff() { set_embed_weights(false); }
};

} // namespace

TEST(WeightsFile, a_constant_in_a_weights_file_is_written_as_a_reference_and_read_back_from_it) {
  TempDir dir("tg-weights");
  auto [model, file] = shared_model(dir, 3 << 20);
  const size_t offset = 12345, size = 1 << 20;
  Graph g = graph_with(file, offset, size);
  std::string bytes = write_graph(g);
  EXPECT_LT(bytes.size(), size_t(4096)); // the megabyte stayed in the file
  Graph back = read_graph(bytes);
  const Blob& w = back.nodes.back().data;
  ASSERT_EQ(w.size(), size);
  EXPECT_EQ(w, g.nodes.back().data);
  EXPECT_EQ(w[0], uint8_t(offset * 7));
  // what was read by reference is written by reference again (tg-schedule, tg-codegen)
  EXPECT_EQ(write_graph(back), bytes);
  // JSON carries the bytes
  EXPECT_GT(write_graph(g, true).size(), size);
}

TEST(WeightsFile, embed_weights_and_small_constants_carry_their_bytes) {
  EmbedOff restore;
  TempDir dir("tg-weights-embed");
  auto [model, file] = shared_model(dir, 2 << 20);
  EXPECT_LT(write_graph(graph_with(file, 0, 1 << 20)).size(), size_t(4096));
  // below kReferencedBytes a reference would cost more than the bytes
  Graph small = graph_with(file, 0, kReferencedBytes - 1);
  EXPECT_GT(write_graph(small).size(), kReferencedBytes - 1);
  set_embed_weights(true);
  Graph g = graph_with(file, 0, 1 << 20);
  std::string bytes = write_graph(g);
  EXPECT_GT(bytes.size(), size_t(1 << 20));
  ::unlink(model.c_str());
  EXPECT_EQ(read_graph(bytes).nodes.back().data, g.nodes.back().data);
}

TEST(WeightsFile, a_changed_or_missing_weights_file_is_one_error_naming_it) {
  TempDir dir("tg-weights-changed");
  Model shared = shared_model(dir, 2 << 20);
  const std::string model = shared.path;
  std::string bytes = write_graph(graph_with(shared.file, 64, 1 << 20));
  shared.file.reset();
  // another file of the same size: the modification time tells
  write_pattern(model, 2 << 20);
  struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, model.c_str(), times, 0), 0);
  std::string changed = error_of([&] { read_graph(bytes); });
  EXPECT_NE(changed.find("RuntimeError: "), std::string::npos) << changed;
  EXPECT_NE(changed.find("model.bin has changed since it was traced"), std::string::npos) << changed;
  ::unlink(model.c_str());
  std::string missing = error_of([&] { read_graph(bytes); });
  EXPECT_EQ(missing.rfind("FileNotFoundError: ", 0), 0u) << missing;
  EXPECT_NE(missing.find("model.bin"), std::string::npos) << missing;
  EXPECT_NE(missing.find("--embed-weights"), std::string::npos) << missing;
}

TEST(WeightsFile, a_reference_to_a_device_or_outside_its_file_is_refused_without_reading) {
  TempDir dir("tg-weights-crafted");
  auto [model, file] = shared_model(dir, 2 << 20);
  std::string bytes = write_graph(graph_with(file, 0, 1 << 20));
  const std::string path = std::filesystem::canonical(model).string();
  auto with_path = [&](const std::string& to) { // same length: the encoding's lengths stay right
    std::string b = bytes;
    size_t at = b.find(path);
    b.replace(at, path.size(), to);
    return b;
  };
  std::string dev = "/dev/zero";
  dev.insert(0, path.size() - dev.size(), '/'); // "////.../dev/zero"
  std::string refused = error_of([&] { read_graph(with_path(dev)); });
  EXPECT_NE(refused.find("has changed since it was traced"), std::string::npos) << refused;
  std::string relative = path;
  relative[0] = 'x';
  std::string rel = error_of([&] { read_graph(with_path(relative)); });
  EXPECT_NE(rel.find("truncated or corrupt graph artifact"), std::string::npos) << rel;
  EXPECT_NE(rel.find("not absolute"), std::string::npos) << rel;
}
