// io layer, .npz: numpy's archive of named arrays (np.savez: a zip of NAME.npy members, stored
// uncompressed), written for `tg-run -o FILE.npz`; np.load reads it back by name.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "io/host_buffer.h"

namespace tg {

// The archive's bytes: one NAME.npy member per (name, array), in order. Zip64 is not written:
// a member or the archive past 4 GiB is an error.
std::string npz_bytes(const std::vector<std::pair<std::string, HostBuffer>>& arrays);

} // namespace tg
