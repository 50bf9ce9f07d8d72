// The "mpi" transport (libtg-mpi.so): Open MPI's point-to-point and collectives. Built only
// where CMake finds MPI; tg-run loads it for --dist mpi alone, so no other run pays for it.
// (only MPI's C interface: its C++ bindings are another library)
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "dist/transport.h"
#include "util/error.h"

namespace tg {
namespace {

// MPI counts are ints: larger buffers go in pieces of at most 1 GiB.
constexpr size_t kPiece = size_t(1) << 30;

void checked(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fail("RuntimeError", std::string("MPI ") + what + ": " + std::string(text, size_t(len)));
}

class MpiTransport : public Transport {
public:
  MpiTransport() {
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready) {
      int provided = 0;
      // tg-run makes every MPI call from the thread that initialised it
      checked(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "init");
      owns_ = true;
    }
    // errors come back as codes, and become one line naming the call
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiTransport() override {
    int done = 0;
    MPI_Finalized(&done);
    if (owns_ && !done) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(const void* data, size_t bytes, int to) override {
    const char* p = static_cast<const char*>(data);
    for (size_t off = 0; off < bytes || off == 0; off += kPiece) {
      int n = int(std::min(kPiece, bytes - off));
      checked(MPI_Send(p + off, n, MPI_BYTE, to, 0, MPI_COMM_WORLD), "send");
      if (bytes == 0) break;
    }
  }
  void recv(void* data, size_t bytes, int from) override {
    char* p = static_cast<char*>(data);
    for (size_t off = 0; off < bytes || off == 0; off += kPiece) {
      int n = int(std::min(kPiece, bytes - off));
      checked(MPI_Recv(p + off, n, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
      if (bytes == 0) break;
    }
  }
  // Nonblocking, receives posted first: the exchange of an all-reduce's two copies takes the
  // time of one.
  void exchange(const std::vector<Move>& moves) override {
    std::vector<MPI_Request> requests;
    for (int pass = 0; pass < 2; ++pass) // receives, then sends
      for (const Move& m : moves) {
        if (m.send != (pass == 1)) continue;
        char* p = static_cast<char*>(m.data);
        for (size_t off = 0; off < m.bytes || off == 0; off += kPiece) {
          int n = int(std::min(kPiece, m.bytes - off));
          requests.emplace_back();
          if (m.send)
            checked(MPI_Isend(p + off, n, MPI_BYTE, m.peer, 0, MPI_COMM_WORLD, &requests.back()), "isend");
          else
            checked(MPI_Irecv(p + off, n, MPI_BYTE, m.peer, 0, MPI_COMM_WORLD, &requests.back()), "irecv");
          if (m.bytes == 0) break;
        }
      }
    checked(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "waitall");
  }
  void allgather(const void* mine, size_t bytes, void* all) override {
    if (bytes > size_t(INT_MAX)) fail("RuntimeError", "MPI allgather: more than 2 GiB per rank");
    checked(MPI_Allgather(mine, int(bytes), MPI_BYTE, all, int(bytes), MPI_BYTE, MPI_COMM_WORLD),
            "allgather");
  }
  void broadcast(void* data, size_t bytes, int root) override {
    char* p = static_cast<char*>(data);
    for (size_t off = 0; off < bytes; off += kPiece)
      checked(MPI_Bcast(p + off, int(std::min(kPiece, bytes - off)), MPI_BYTE, root, MPI_COMM_WORLD),
              "broadcast");
  }
  [[noreturn]] void abort(int code) override {
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code); // (MPI_Abort does not return)
  }

private:
  int rank_ = 0, size_ = 1;
  bool owns_ = false;
};

} // namespace
} // namespace tg

extern "C" tg::Transport* tg_mpi_transport() { return new tg::MpiTransport(); }
