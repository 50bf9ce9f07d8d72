// device layer, host code: TG_CHECK_BOUNDS=1, a debug mode in which every host buffer (CLANG,
// LLVM) ends exactly at an inaccessible page and starts after one, so a kernel that reads or
// writes past its buffer faults at once, and the fault is reported as one line naming the
// kernel and the byte it reached, instead of corrupting memory (a write just below a buffer's
// start is found by a canary when the kernel returns). Costs
// three pages of address space and two mprotect calls per buffer; the tests run with it on.
// Buffers of GPU devices live in device memory and are not covered.
#pragma once
#include <cstddef>

namespace tg {

bool bounds_checking(); // TG_CHECK_BOUNDS is set and not "0", or require_bounds_checking() was called
// Turns the checks on for the rest of the process (tg-run, for a program this machine's tg-codegen
// did not write: io/known_programs.h). Call it before the first host buffer is allocated.
void require_bounds_checking();
void* guarded_alloc(size_t bytes); // zero-filled; its last byte abuts an inaccessible page
void guarded_free(void* buffer);
// The kernel running now, for the report; nullptr between launches.
void set_running_kernel(const char* name);
// After a kernel ran: a tg::Error when it wrote just below the start of one of its buffers
// (within the guard-less part of the buffer's first page, which holds a canary).
void check_canaries(const char* kernel, void* const* buffers, size_t count);

} // namespace tg
