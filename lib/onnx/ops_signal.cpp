// ONNX's window functions, computed while importing (their size is known): periodic windows
// divide by N, symmetric ones by N - 1 (ONNX operator docs).
#include <cmath>

#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

// sum of a_j cos(2 pi j n / N) over the coefficients, n in [0, size)
Outs window(const Node& n, const std::vector<double>& a) {
  int64_t size = n.known(0).ints().at(0);
  bool periodic = n.attr_int("periodic", 1) != 0;
  std::optional<DType> dt = dtype_of_onnx(int(n.attr_int("output_datatype", 1)));
  if (!dt) n.bad("output_datatype " + std::to_string(n.attr_int("output_datatype", 1)) + " is not imported");
  double denom = double(periodic ? size : size - 1);
  std::vector<Scalar> w;
  for (int64_t i = 0; i < size; ++i) {
    double v = 0;
    for (size_t j = 0; j < a.size(); ++j) v += a[j] * std::cos(2 * M_PI * double(j) * double(i) / denom);
    w.push_back(Scalar::of_float(v));
  }
  Known k = known_values(*dt, {size}, w);
  n.set_known(0, k);
  return {tensor_of(k)};
}

} // namespace

void add_signal_ops(OpTable& t) {
  t["HannWindow"] = [](const Node& n) -> Outs { return window(n, {0.5, -0.5}); };
  t["HammingWindow"] = [](const Node& n) -> Outs { return window(n, {25.0 / 46.0, -(1 - 25.0 / 46.0)}); };
  t["BlackmanWindow"] = [](const Node& n) -> Outs { return window(n, {0.42, -0.5, 0.08}); };
}

} // namespace tg
