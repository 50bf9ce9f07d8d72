// ONNX's recurrent layers (RNN, GRU, LSTM), unrolled over the sequence, which is known while
// importing. Gate order, biases, peepholes, activations, clip, direction, sequence_lens and
// layout follow the ONNX operator docs.
#include <algorithm>

#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;
using Activation = std::function<Tensor(const Tensor&)>;

Padding cut(size_t rank, size_t axis, int64_t lo, int64_t hi) {
  Padding p(rank, std::nullopt);
  p[axis] = std::pair(lo, hi);
  return p;
}

// The activation functions the node names (with their alpha/beta lists), or the defaults.
std::vector<Activation> activations(const Node& n, const std::vector<std::string>& defaults, int directions) {
  std::vector<std::string> names = n.attr_strings("activations");
  if (names.empty())
    for (int d = 0; d < directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  std::vector<double> alphas = n.attr_floats("activation_alpha").value_or(std::vector<double>{}),
                      betas = n.attr_floats("activation_beta").value_or(std::vector<double>{});
  std::vector<Activation> out;
  size_t ai = 0, bi = 0;
  for (const std::string& raw : names) {
    std::string name = raw;
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    auto alpha = [&](double def) { return ai < alphas.size() ? alphas[ai++] : def; };
    auto beta = [&](double def) { return bi < betas.size() ? betas[bi++] : def; };
    if (name == "sigmoid")
      out.push_back([](const Tensor& x) { return x.sigmoid(); });
    else if (name == "tanh")
      out.push_back([](const Tensor& x) { return x.tanh(); });
    else if (name == "relu")
      out.push_back([](const Tensor& x) { return x.relu(); });
    else if (name == "leakyrelu")
      out.push_back([a = alpha(0.01)](const Tensor& x) { return x.leakyrelu(a); });
    else if (name == "thresholdedrelu")
      out.push_back([a = alpha(1.0)](const Tensor& x) { return x.gt(a).where(x, 0.0); });
    else if (name == "elu")
      out.push_back([a = alpha(1.0)](const Tensor& x) { return x.elu(a); });
    else if (name == "softsign")
      out.push_back([](const Tensor& x) { return x.softsign(); });
    else if (name == "softplus")
      out.push_back([](const Tensor& x) { return x.softplus(); });
    else if (name == "affine") {
      double a = alpha(1.0), b = beta(0.0);
      out.push_back([a, b](const Tensor& x) { return x.mul(a).add(b); });
    } else if (name == "scaledtanh") {
      double a = alpha(1.0), b = beta(1.0);
      out.push_back([a, b](const Tensor& x) { return x.mul(b).tanh().mul(a); });
    } else if (name == "hardsigmoid") {
      double a = alpha(0.2), b = beta(0.5);
      out.push_back([a, b](const Tensor& x) { return x.mul(a).add(b).clip(0.0, 1.0); });
    } else
      n.bad("activation '" + raw + "' is not imported");
  }
  return out;
}

enum class Cell { Rnn, Gru, Lstm };

struct Recurrence {
  Cell cell;
  int gates;
  int64_t hidden;
  double clip;
  bool linear_before_reset;
};

// One direction over the whole sequence. x: (seq, batch, input); w: (G*H, input); r: (G*H, H);
// b: (2*G*H) or none; p: (3*H) or none; h, c: (batch, H); lens: (batch) or none. Returns Y
// (seq, batch, H), the last H and the last C.
std::tuple<Tensor, Tensor, Tensor> run_direction(const Recurrence& rc, const std::vector<Activation>& act,
                                                 const Tensor& x, const Tensor& w, const Tensor& r,
                                                 const std::optional<Tensor>& b,
                                                 const std::optional<Tensor>& p, Tensor h, Tensor c,
                                                 const std::optional<Tensor>& lens) {
  int64_t seq = x.shape()[0], batch = x.shape()[1], H = rc.hidden, G = rc.gates;
  Tensor xw = x.matmul(w.transpose()); // (seq, batch, G*H), all steps at once
  std::optional<Tensor> wb, rb;
  if (b)
    wb = b->shrink({std::pair<int64_t, int64_t>(0, G * H)}),
    rb = b->shrink({std::pair<int64_t, int64_t>(G * H, 2 * G * H)});
  auto gate = [&](const Tensor& t, int g) {
    return t.shrink(cut(t.shape().size(), t.shape().size() - 1, g * H, (g + 1) * H));
  };
  auto clipped = [&](const Tensor& t) { return rc.clip > 0 ? t.clip(-rc.clip, rc.clip) : t; };
  std::vector<Tensor> ys;
  for (int64_t s = 0; s < seq; ++s) {
    Tensor xs = xw.shrink(cut(3, 0, s, s + 1)).reshape({batch, G * H});
    if (wb) xs = xs.add(*wb);
    Tensor hr = h.matmul(r.transpose()); // (batch, G*H)
    Tensor hr_b = rb ? hr.add(*rb) : hr;
    Tensor h_new = h, c_new = c;
    if (rc.cell == Cell::Rnn) {
      h_new = act[0](clipped(xs.add(hr_b)));
    } else if (rc.cell == Cell::Gru) { // gates z, r, h
      Tensor z = act[0](clipped(gate(xs, 0).add(gate(hr_b, 0))));
      Tensor rg = act[0](clipped(gate(xs, 1).add(gate(hr_b, 1))));
      Tensor cand;
      if (rc.linear_before_reset)
        cand = gate(xs, 2).add(rg.mul(gate(hr_b, 2)));
      else {
        Tensor rh = rg.mul(h).matmul(gate(r.transpose(), 2));
        cand = gate(xs, 2).add(rb ? rh.add(gate(*rb, 2)) : rh);
      }
      Tensor hh = act[1](clipped(cand));
      h_new = z.sub(1.0, true).mul(hh).add(z.mul(h));
    } else { // LSTM: gates i, o, f, c
      Tensor pre = xs.add(hr_b);
      Tensor pi = gate(pre, 0), po = gate(pre, 1), pf = gate(pre, 2), pc = gate(pre, 3);
      if (p) pi = pi.add(gate(*p, 0).mul(c)), pf = pf.add(gate(*p, 2).mul(c));
      Tensor i = act[0](clipped(pi)), f = act[0](clipped(pf)), g = act[1](clipped(pc));
      c_new = f.mul(c).add(i.mul(g));
      if (p) po = po.add(gate(*p, 1).mul(c_new));
      Tensor o = act[0](clipped(po));
      h_new = o.mul(act[2](c_new));
    }
    if (lens) { // past its length a batch entry keeps its state and outputs zeros
      Tensor live = lens->gt(Operand(s)).reshape({batch, 1});
      ys.push_back(live.where(h_new, 0.0));
      h = live.where(h_new, h), c = live.where(c_new, c);
    } else {
      ys.push_back(h_new);
      h = h_new, c = c_new;
    }
  }
  std::vector<Tensor> rest;
  for (size_t i = 1; i < ys.size(); ++i) rest.push_back(ys[i].unsqueeze(0));
  return {ys[0].unsqueeze(0).cat(rest, 0), h, c};
}

// Each batch entry's first lens[b] steps reversed (all steps without lens).
Tensor reverse_steps(const Tensor& x, const std::optional<Tensor>& lens) {
  return lens ? reverse_prefixes(x, *lens, 0, 1) : x.flip({0});
}

Outs recurrent(const Node& n, Cell cell) {
  Recurrence rc{cell,
                cell == Cell::Rnn   ? 1
                : cell == Cell::Gru ? 3
                                    : 4,
                n.attr_int("hidden_size", 0), n.attr_float("clip", 0.0),
                n.attr_int("linear_before_reset", 0) != 0};
  if (n.attr_int("input_forget", 0)) n.bad("input_forget=1 is not imported");
  std::string dir = n.attr_string("direction", "forward");
  int directions = dir == "bidirectional" ? 2 : 1;
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    n.bad("direction '" + dir + "' is not imported");
  bool batch_first = n.attr_int("layout", 0) != 0;
  Tensor x = n.in(0);
  if (batch_first) x = x.permute({1, 0, 2});
  Tensor w = n.in(1), r = n.in(2);
  if (rc.hidden == 0) rc.hidden = r.shape().back();
  int64_t batch = x.shape()[1], H = rc.hidden;
  std::vector<Activation> act =
      activations(n,
                  cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
                  : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                      : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"},
                  directions);
  size_t per_dir = act.size() / size_t(directions);
  std::optional<Tensor> lens;
  if (n.has_input(4)) lens = n.in(4).cast(DType::Int64);
  auto state = [&](int input, int d) {
    if (!n.has_input(input)) return Tensor::full({batch, H}, Scalar::of_float(0.0), x.dtype());
    Tensor s = n.in(input);
    if (batch_first) s = s.permute({1, 0, 2});
    return s.shrink(cut(3, 0, d, d + 1)).reshape({batch, H});
  };
  auto of_dir = [&](const Tensor& t, int d) {
    return t.shrink(cut(t.shape().size(), 0, d, d + 1))
        .reshape(Shape(t.shape().begin() + 1, t.shape().end()));
  };
  std::vector<Tensor> ys, hs, cs;
  for (int d = 0; d < directions; ++d) {
    bool reverse = dir == "reverse" || d == 1;
    std::optional<Tensor> b, p;
    if (n.has_input(3)) b = of_dir(n.in(3), d);
    if (cell == Cell::Lstm && n.has_input(7)) p = of_dir(n.in(7), d);
    std::vector<Activation> a(act.begin() + long(d * per_dir), act.begin() + long((d + 1) * per_dir));
    Tensor xd = reverse ? reverse_steps(x, lens) : x;
    auto [y, h, c] = run_direction(rc, a, xd, of_dir(w, d), of_dir(r, d), b, p, state(5, d),
                                   cell == Cell::Lstm ? state(6, d) : state(5, d), lens);
    ys.push_back((reverse ? reverse_steps(y, lens) : y).unsqueeze(1)); // (seq, 1, batch, H)
    hs.push_back(h.unsqueeze(0)), cs.push_back(c.unsqueeze(0));
  }
  Tensor y = directions == 1 ? ys[0] : ys[0].cat({ys[1]}, 1);
  Tensor yh = directions == 1 ? hs[0] : hs[0].cat({hs[1]}, 0),
         yc = directions == 1 ? cs[0] : cs[0].cat({cs[1]}, 0);
  if (batch_first) y = y.permute({2, 0, 1, 3}), yh = yh.permute({1, 0, 2}), yc = yc.permute({1, 0, 2});
  if (cell == Cell::Lstm) return {y, yh, yc};
  return {y, yh};
}

} // namespace

void add_rnn_ops(OpTable& t) {
  t["RNN"] = [](const Node& n) { return recurrent(n, Cell::Rnn); };
  t["GRU"] = [](const Node& n) { return recurrent(n, Cell::Gru); };
  t["LSTM"] = [](const Node& n) { return recurrent(n, Cell::Lstm); };
}

} // namespace tg
