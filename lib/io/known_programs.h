// io layer, the programs this machine's tg-codegen wrote: a program is code, and its kernels'
// extents (how many bytes each touches) are what tg-run's checks rest on. tg-codegen records a
// fingerprint of each program it writes in the cache folder (programs/<sha256>, an empty file);
// tg-run runs a program it finds there as it is, and any other (hand-edited, from another
// machine, from a fuzzer) with TG_CHECK_BOUNDS on, so that a kernel that touches more than its
// program says is stopped with one line instead of corrupting memory.
#pragma once
#include <string>

#include "codegen/program.h"

namespace tg {

// SHA-256 over everything that decides what the kernels touch: the device, buffer table,
// kernels (source, buffers, extents, variables, launch sizes) and named buffers; not the
// constants' contents, which cannot make a kernel reach further.
std::string program_fingerprint(const Program& p);
void remember_program(const Program& p); // best effort: a read-only cache only costs speed later
bool is_known_program(const Program& p);

} // namespace tg
