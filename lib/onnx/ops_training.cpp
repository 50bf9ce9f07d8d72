// ONNX's training operators (domain ai.onnx.preview.training): one optimizer step over n
// tensors, whose inputs come in groups (R, T, X1..Xn, G1..Gn, then the state tensors) and whose
// outputs are the new tensors then the new states, group by group (ONNX operator docs).
#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

// The tensors of group g (0: X, 1: G, 2 and on: the states) when there are `groups` groups.
Tensor group_input(const Node& n, int groups, int g, int i) {
  int count = (n.input_count() - 2) / groups;
  if ((n.input_count() - 2) % groups)
    n.bad("its inputs do not come in " + std::to_string(groups) + " equal groups");
  return n.in(2 + g * count + i);
}

int tensor_count(const Node& n, int groups) { return (n.input_count() - 2) / groups; }

Outs adagrad(const Node& n) {
  Tensor r = n.in(0), t = n.in(1).cast(r.dtype());
  double decay = n.attr_float("decay_factor", 0.0), eps = n.attr_float("epsilon", 0.0),
         norm = n.attr_float("norm_coefficient", 0.0);
  Tensor rate = r.div(t.mul(decay).add(1.0));
  int count = tensor_count(n, 3);
  Outs xs, hs;
  for (int i = 0; i < count; ++i) {
    Tensor x = group_input(n, 3, 0, i), g = group_input(n, 3, 1, i), h = group_input(n, 3, 2, i);
    Tensor reg = x.mul(norm).add(g), h_new = h.add(reg.mul(reg));
    xs.push_back(x.sub(rate.mul(reg).div(h_new.sqrt().add(eps))));
    hs.push_back(h_new);
  }
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

Outs momentum(const Node& n) {
  Tensor r = n.in(0), t = n.in(1);
  double alpha = n.attr_float("alpha", 0.0), beta = n.attr_float("beta", 0.0),
         norm = n.attr_float("norm_coefficient", 0.0);
  std::string mode = n.attr_string("mode", "standard");
  if (mode != "standard" && mode != "nesterov") n.bad("mode '" + mode + "' is neither standard nor nesterov");
  Tensor beta_adjusted =
      t.gt(Operand(int64_t(0))).where(beta, 1.0).cast(r.dtype()); // the first step takes the whole gradient
  int count = tensor_count(n, 3);
  Outs xs, vs;
  for (int i = 0; i < count; ++i) {
    Tensor x = group_input(n, 3, 0, i), g = group_input(n, 3, 1, i), v = group_input(n, 3, 2, i);
    Tensor reg = x.mul(norm).add(g), v_new = v.mul(alpha).add(beta_adjusted.mul(reg));
    xs.push_back(x.sub(r.mul(mode == "standard" ? v_new : reg.add(v_new.mul(alpha)))));
    vs.push_back(v_new);
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  return xs;
}

Outs adam(const Node& n) {
  Tensor r = n.in(0), t = n.in(1).cast(r.dtype());
  double alpha = n.attr_float("alpha", 0.9), beta = n.attr_float("beta", 0.999),
         eps = n.attr_float("epsilon", 0.0), norm = n.attr_float("norm_coefficient", 0.0),
         post = n.attr_float("norm_coefficient_post", 0.0);
  // bias correction from the second step on
  Tensor corrected = r.mul(t.pow(beta, true).sub(1.0, true).sqrt()).div(t.pow(alpha, true).sub(1.0, true));
  Tensor rate = t.gt(0.0).where(corrected, r);
  int count = tensor_count(n, 4);
  Outs xs, vs, hs;
  for (int i = 0; i < count; ++i) {
    Tensor x = group_input(n, 4, 0, i), g = group_input(n, 4, 1, i), v = group_input(n, 4, 2, i),
           h = group_input(n, 4, 3, i);
    Tensor reg = x.mul(norm).add(g);
    Tensor v_new = v.mul(alpha).add(reg.mul(1.0 - alpha)),
           h_new = h.mul(beta).add(reg.mul(reg).mul(1.0 - beta));
    xs.push_back(x.sub(rate.mul(v_new.div(h_new.sqrt().add(eps)))).mul(1.0 - post));
    vs.push_back(v_new), hs.push_back(h_new);
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

// Gradient: d y / d x for each name in xs, by tg's autograd. The importer marks those values
// requires_grad where they are made (ImportState::grad_sources), so y records how it came from
// them. One Gradient per model: backward() consumes the graph it walks, as tinygrad's does.
Outs gradient(const Node& n) {
  std::vector<std::string> xs = n.attr_strings("xs");
  std::string y_name = n.attr_string("y", "");
  if (xs.empty() || y_name.empty()) n.bad("the attributes 'xs' and 'y' name what to differentiate");
  if (n.input_count() != int(xs.size())) n.bad("its inputs are the xs, one each (zs is not imported)");
  if (n.gradient_taken()) n.bad("tg imports one Gradient node per model");
  Tensor y = n.value(y_name);
  if (y.numel() != 1) n.bad("y '" + y_name + "' is not a scalar; tg differentiates scalars only");
  y.reshape({}).backward();
  Outs grads;
  for (const std::string& x_name : xs) {
    Tensor x = n.value(x_name);
    std::shared_ptr<Tensor> g = x.grad();
    grads.push_back(g ? *g : x.zeros_like());
  }
  return grads;
}

} // namespace

void add_training_ops(OpTable& t) {
  t["Gradient"] = gradient;
  t["Adagrad"] = adagrad;
  t["Momentum"] = momentum;
  t["Adam"] = adam;
}

} // namespace tg
