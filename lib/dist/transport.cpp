#include "dist/transport.h"

#include "device/plugin.h"
#include "util/device_name.h"
#include "util/error.h"

namespace tg {

std::vector<std::string> transport_names() { return {"mpi"}; }

std::unique_ptr<Transport> open_transport(const std::string& name) {
  if (name != "mpi") {
    std::string known;
    for (const std::string& n : transport_names()) known += (known.empty() ? "" : ", ") + n;
    fail("ValueError", "--dist " + name + ": unknown transport (known: " + known + ")");
  }
  using Make = Transport* (*)();
  Make make;
  try {
    make = reinterpret_cast<Make>(load_plugin_entry("--dist mpi", "tg-mpi", "tg_mpi_transport"));
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.find("No such file") == std::string::npos) throw;
    fail("RuntimeError", why + " (tg was built without Open MPI: install libopenmpi-dev and build again)");
  }
  return std::unique_ptr<Transport>(make());
}

Placement::Placement(int ranks, std::map<std::string, int> by_hand) : ranks_(ranks), by_hand_(std::move(by_hand)) {}

int Placement::rank_of(const std::string& device) const {
  if (auto it = by_hand_.find(device); it != by_hand_.end()) return it->second;
  size_t colon = device.find(':');
  int64_t index = colon == std::string::npos ? 0 : std::stoll(device.substr(colon + 1));
  return int(index % ranks_);
}

std::map<std::string, int> parse_placements(const std::vector<std::string>& given, int ranks) {
  std::map<std::string, int> out;
  for (const std::string& g : given) {
    size_t eq = g.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == g.size())
      fail("ValueError", "--place " + g + ": expected DEVICE=RANK");
    std::string device = canonical_device_name(g.substr(0, eq)), rank = g.substr(eq + 1);
    size_t used = 0;
    int r = -1;
    try {
      r = std::stoi(rank, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != rank.size() || r < 0 || r >= ranks)
      fail("ValueError", "--place " + g + ": the rank must be 0 to " + std::to_string(ranks - 1));
    // the default device is "" in a program; a script and the user call it by its type
    size_t colon = device.find(':');
    if (colon == std::string::npos) device = "";
    out[device] = r;
  }
  return out;
}

} // namespace tg
