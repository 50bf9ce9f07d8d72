// .npz writer. See npz.h.
#include "io/npz.h"

#include <zlib.h>

#include "io/npy.h"
#include "util/error.h"

namespace tg {

namespace {

void le16(std::string& out, uint32_t v) {
  out += char(v & 0xff);
  out += char((v >> 8) & 0xff);
}
void le32(std::string& out, uint32_t v) {
  le16(out, v & 0xffff);
  le16(out, v >> 16);
}

constexpr uint32_t kMax32 = 0xffffffffu;

} // namespace

std::string npz_bytes(const std::vector<std::pair<std::string, HostBuffer>>& arrays) {
  std::string out, directory;
  for (const auto& [name, array] : arrays) {
    std::string file = name + ".npy", data = npy_bytes(array, file);
    if (data.size() >= kMax32 || out.size() >= kMax32 || file.size() > 0xffff)
      fail("ValueError", "'" + name + "' does not fit a .npz without zip64 (4 GiB)");
    uint32_t crc = uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(data.data()), uInt(data.size())));
    uint32_t offset = uint32_t(out.size());
    // local file header: version 2.0, no flags, stored, no date
    le32(out, 0x04034b50);
    le16(out, 20), le16(out, 0), le16(out, 0), le16(out, 0), le16(out, 0x21);
    le32(out, crc), le32(out, uint32_t(data.size())), le32(out, uint32_t(data.size()));
    le16(out, uint32_t(file.size())), le16(out, 0);
    out += file;
    out += data;
    // its central directory entry
    le32(directory, 0x02014b50);
    le16(directory, 20), le16(directory, 20), le16(directory, 0), le16(directory, 0), le16(directory, 0),
        le16(directory, 0x21);
    le32(directory, crc), le32(directory, uint32_t(data.size())), le32(directory, uint32_t(data.size()));
    le16(directory, uint32_t(file.size())), le16(directory, 0), le16(directory, 0), le16(directory, 0),
        le16(directory, 0);
    le32(directory, 0), le32(directory, offset);
    directory += file;
  }
  if (out.size() + directory.size() >= kMax32 || arrays.size() > 0xffff)
    fail("ValueError", "the outputs do not fit a .npz without zip64 (4 GiB)");
  uint32_t directory_at = uint32_t(out.size());
  out += directory;
  le32(out, 0x06054b50); // end of central directory
  le16(out, 0), le16(out, 0), le16(out, uint32_t(arrays.size())), le16(out, uint32_t(arrays.size()));
  le32(out, uint32_t(directory.size())), le32(out, directory_at), le16(out, 0);
  return out;
}

} // namespace tg
