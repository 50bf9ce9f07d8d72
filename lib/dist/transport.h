// dist layer: one program run spread over several processes (tg-run --dist). A Transport
// moves bytes between them; it is kept this small (point-to-point, allgather, broadcast,
// abort) so that another engine than MPI needs only these. Placement says which process runs
// which device.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tg {

class Transport {
public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Blocking; messages between two ranks arrive in the order they were sent.
  virtual void send(const void* data, size_t bytes, int to) = 0;
  virtual void recv(void* data, size_t bytes, int from) = 0;
  // `all` gets every rank's `bytes` in rank order.
  virtual void allgather(const void* mine, size_t bytes, void* all) = 0;
  virtual void broadcast(void* data, size_t bytes, int root) = 0;
  // Several sends and receives of this process at once, so that two processes exchanging
  // buffers move both ways together (an all-reduce's copies). Every process lists its part of
  // one common order; the default runs them one by one in that order, as send and recv would.
  struct Move {
    void* data;
    size_t bytes;
    int peer;
    bool send;
  };
  virtual void exchange(const std::vector<Move>& moves) {
    for (const Move& m : moves)
      if (m.send)
        send(m.data, m.bytes, m.peer);
      else
        recv(m.data, m.bytes, m.peer);
  }
  // Ends every process of the run with `code` (after this process printed why).
  [[noreturn]] virtual void abort(int code) = 0;
};

// The transports tg knows: "mpi" (Open MPI, from libtg-mpi.so beside libtgcore.so, loaded when
// asked for). Throws tg::Error naming what is missing.
std::unique_ptr<Transport> open_transport(const std::string& name);
std::vector<std::string> transport_names();

// Which rank runs each device of a program: the device with index i (the default device is
// 0, "CLANG:3" is 3) runs on rank i mod size, unless `by_hand` names it ("CLANG:3" -> 1).
class Placement {
public:
  Placement(int ranks, std::map<std::string, int> by_hand = {});
  int rank_of(const std::string& device) const;
  int ranks() const { return ranks_; }

private:
  int ranks_;
  std::map<std::string, int> by_hand_;
};

// tg-run --place DEVICE=RANK, checked against the run's size.
std::map<std::string, int> parse_placements(const std::vector<std::string>& given, int ranks);

} // namespace tg
