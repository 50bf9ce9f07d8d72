#include "nn/optim.h"

#include "util/error.h"

namespace tg::nn {

namespace {

std::vector<Tensor> dedup(const std::vector<Tensor>& xs, bool want_grad) {
  std::vector<Tensor> out;
  for (const Tensor& x : xs) {
    if (x.requires_grad().value_or(false) != want_grad) continue;
    bool seen = false;
    for (const Tensor& o : out) seen |= o.same(x);
    if (!seen) out.push_back(x);
  }
  return out;
}

Tensor zeros_state(const Tensor& t, DType dtype) {
  return Tensor::zeros(t.shape(), dtype).placed_like(t).contiguous().realize();
}

} // namespace

Optimizer::Optimizer(const std::vector<Tensor>& ps, double lr_) {
  // if it's None, but being put into an optimizer, set it to True
  for (Tensor x : ps)
    if (!x.requires_grad()) x.set_requires_grad(true);
  params = dedup(ps, true);
  check(!params.empty(), "AssertionError", "optimizer must have at least one param");
  buffers = dedup(ps, false);
  for (Tensor& t : params) t.realize();
  for (Tensor& t : buffers) t.realize();
  // store lr in at least float32 precision
  lr = Tensor::from_list({Scalar::of_float(lr_)}, {1}, DType::Float32, false).placed_like(params[0]);
}

void Optimizer::zero_grad() {
  for (Tensor& p : params) p.set_grad(nullptr);
}

OptimizerGroup::OptimizerGroup(std::vector<std::shared_ptr<Optimizer>> opts) : optimizers(std::move(opts)) {
  for (const auto& o : optimizers) {
    params.insert(params.end(), o->params.begin(), o->params.end());
    buffers.insert(buffers.end(), o->buffers.begin(), o->buffers.end());
  }
}

std::vector<Tensor> OptimizerGroup::step_impl() {
  std::vector<Tensor> out;
  for (const auto& o : optimizers) {
    std::vector<Tensor> x = o->step_impl();
    out.insert(out.end(), x.begin(), x.end());
  }
  return out;
}

std::vector<Tensor> Optimizer::schedule_step() {
  check(Tensor::training, "AssertionError",
        "Tensor.training=False, Tensor.training must be enabled to use the optimizer.\n"
        "                - help: Consider setting Tensor.training=True before calling Optimizer.step().");
  std::vector<Tensor> out = step_impl();
  out.insert(out.end(), params.begin(), params.end());
  out.insert(out.end(), buffers.begin(), buffers.end());
  return out;
}

LARS::LARS(const std::vector<Tensor>& ps, double lr_, double momentum_, double weight_decay, bool nesterov_,
           bool classic_, double tcoef_)
    : Optimizer(ps, lr_), momentum(momentum_), wd(weight_decay), nesterov(nesterov_), classic(classic_),
      tcoef(tcoef_) {
  if (momentum != 0)
    for (const Tensor& t : params) b.push_back(zeros_state(t, t.dtype()));
}

std::vector<Tensor> LARS::step_impl() {
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor& t = params[i];
    check(t.grad() != nullptr, "AssertionError", "");
    // contiguous is needed since the grads can allegedly form a "diamond"
    Tensor g = t.grad()->contiguous();
    Operand r = 1.0;
    if (tcoef != 0) {
      Tensor r1 = t.detach().square().sum().sqrt();
      Tensor r2 = g.square().sum().sqrt();
      r = r1.gt(0).where(r2.gt(0).where(r1.mul(tcoef).div(r2.add(r1.mul(wd))), 1.0), 1.0);
    }
    g = g.add(t.detach().mul(wd));
    // classic momentum does post learning rate update
    if (classic) g = g.mul(r).mul(lr);
    if (momentum != 0) {
      b[i].assign(b[i].mul(momentum).add(g)); // b[i] is zero on the first run, no if required
      g = nesterov ? g.add(b[i].mul(momentum)) : b[i];
    }
    // popular momentum does pre learning rate update
    if (!classic) g = g.mul(r).mul(lr);
    t.assign(t.detach().sub(g).cast(t.dtype()));
  }
  return b;
}

LAMB::LAMB(const std::vector<Tensor>& ps, double lr_, double b1_, double b2_, double eps_,
           double weight_decay, bool adam_)
    : Optimizer(ps, lr_), b1(b1_), b2(b2_), eps(eps_), wd(weight_decay), adam(adam_) {
  b1_t = Tensor::from_list({Scalar::of_int(1)}, {1}, DType::Float32, false).placed_like(params[0]).realize();
  b2_t = Tensor::from_list({Scalar::of_int(1)}, {1}, DType::Float32, false).placed_like(params[0]).realize();
  for (const Tensor& t : params) m.push_back(zeros_state(t, DType::Float32));
  for (const Tensor& t : params) v.push_back(zeros_state(t, DType::Float32));
}

std::vector<Tensor> LAMB::step_impl() {
  b1_t.assign(b1_t.mul(b1));
  b2_t.assign(b2_t.mul(b2));
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor& t = params[i];
    check(t.grad() != nullptr, "AssertionError", "");
    const Tensor& grad = *t.grad();
    m[i].assign(m[i].mul(b1).add(grad.mul(1.0 - b1, true)));
    v[i].assign(v[i].mul(b2).add(grad.mul(grad).mul(1.0 - b2, true)));
    Tensor m_hat = m[i].div(b1_t.sub(1.0, true));
    Tensor v_hat = v[i].div(b2_t.sub(1.0, true));
    Tensor up = m_hat.div(v_hat.sqrt().add(eps)).add(t.detach().mul(wd));
    Operand r = 1.0;
    if (!adam) {
      Tensor r1 = t.detach().square().sum().sqrt();
      Tensor r2 = up.square().sum().sqrt();
      r = r1.gt(0).where(r2.gt(0).where(r1.div(r2), 1.0), 1.0);
    }
    t.assign(t.detach().sub(lr.mul(r).mul(up)).cast(t.dtype()));
  }
  std::vector<Tensor> out{b1_t, b2_t};
  out.insert(out.end(), m.begin(), m.end());
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

std::unique_ptr<LARS> SGD(const std::vector<Tensor>& params, double lr, double momentum, double weight_decay,
                          bool nesterov, bool classic) {
  return std::make_unique<LARS>(params, lr, momentum, weight_decay, nesterov, classic, 0.0);
}
std::unique_ptr<LAMB> Adam(const std::vector<Tensor>& params, double lr, double b1, double b2, double eps) {
  return std::make_unique<LAMB>(params, lr, b1, b2, eps, 0.0, true);
}
std::unique_ptr<LAMB> AdamW(const std::vector<Tensor>& params, double lr, double b1, double b2, double eps,
                            double weight_decay) {
  return std::make_unique<LAMB>(params, lr, b1, b2, eps, weight_decay, true);
}

} // namespace tg::nn
