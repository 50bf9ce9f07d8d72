// util layer: Blob, immutable bytes shared by every copy. A constant's contents (an ONNX
// model's 100 MB of weights) travel from the lazy graph through the schedule to the program;
// a Blob makes each of those hops a reference count, not a copy, and can alias the artifact a
// tool read (the bytes stay where the reader put them, owned by that buffer).
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace tg {

class Blob {
public:
  Blob() = default;
  // Takes the bytes over (implicit: a vector is a Blob's usual source).
  Blob(std::vector<uint8_t> bytes) { // NOLINT(google-explicit-constructor)
    if (bytes.empty()) return;
    auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    data_ = owned->data();
    size_ = owned->size();
    owner_ = std::move(owned);
  }
  // `size` bytes at `data`, kept alive by `owner` (the buffer they live in).
  Blob(std::shared_ptr<const void> owner, const uint8_t* data, size_t size)
      : owner_(size ? std::move(owner) : nullptr), data_(size ? data : nullptr), size_(size) {}
  Blob(const Blob& o) : owner_(o.owner_), data_(o.data_), size_(o.size_), hash_(o.hash_.load()) {}
  Blob& operator=(const Blob& o) {
    owner_ = o.owner_;
    data_ = o.data_;
    size_ = o.size_;
    hash_ = o.hash_.load();
    return *this;
  }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }
  const uint8_t& operator[](size_t i) const { return data_[i]; }
  std::vector<uint8_t> to_vector() const { return {begin(), end()}; }

  // A fast non-cryptographic hash of the contents (for hash-consing; equality still compares
  // bytes), computed once per Blob.
  uint64_t hash() const;

  friend bool operator==(const Blob& a, const Blob& b) {
    return a.size_ == b.size_ &&
           (a.size_ == 0 || a.data_ == b.data_ || std::memcmp(a.data_, b.data_, a.size_) == 0);
  }

private:
  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  mutable std::atomic<uint64_t> hash_{0}; // 0: not yet computed
};

} // namespace tg
