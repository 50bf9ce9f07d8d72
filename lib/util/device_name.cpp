#include "util/device_name.h"

#include <cctype>

namespace tg {

std::string canonical_device_name(const std::string& name) {
  size_t colon = name.find(':');
  std::string out = name.substr(0, colon);
  for (char& c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (colon != std::string::npos && name.substr(colon) != ":0") out += name.substr(colon);
  return out;
}

} // namespace tg
