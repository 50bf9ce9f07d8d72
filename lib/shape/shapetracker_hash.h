// shape layer: a structural hash of Views and ShapeTrackers, for hash-consing and caches keyed
// by a ShapeTracker (lazy graph interning, the scheduler's (buffer, st) cache).
#pragma once
#include <cstdint>
#include <cstring>

#include "shape/shapetracker.h"

namespace tg {

// FNV-1a over raw bytes; small and good enough for interning tables.
struct Fnv1a {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    auto* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  }
  template <class T> void pod(const T& v) { bytes(&v, sizeof v); }
  void ints(const std::vector<int64_t>& v) {
    pod(v.size());
    if (!v.empty()) bytes(v.data(), v.size() * sizeof v[0]);
  }
  void dim(const sint& d) { d.is_int() ? pod(int64_t(d)) : pod(d.node()); } // a symbol: its interned node
  void ints(const Shape& v) {
    pod(v.size());
    for (const sint& d : v) dim(d);
  }
};

inline void hash_into(Fnv1a& h, const ShapeTracker& st) {
  h.pod(st.views.size());
  for (const View& v : st.views) {
    h.ints(v.shape);
    h.ints(v.strides);
    h.dim(v.offset);
    h.pod(v.mask.has_value());
    if (v.mask)
      for (auto& [b, e] : *v.mask) {
        h.pod(b);
        h.pod(e);
      }
  }
}

struct ShapeTrackerHash {
  size_t operator()(const ShapeTracker& st) const {
    Fnv1a h;
    hash_into(h, st);
    return h.h;
  }
};

} // namespace tg
