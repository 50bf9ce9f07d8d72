// nn.optim of tinygrad 0.9.1: SGD (= LARS without trust ratio), LARS, Adam and AdamW (= LAMB
// with adam=True), LAMB. A step is assigns into the parameters and the optimizer's buffers, so
// one run of the traced program is one step.
//
// tg difference: the constructor realize()s the parameters and its own buffers (momentum,
// moments, beta powers), making them states of the program, because in a pipeline nothing is
// realized between steps unless it is a state. Values are the same as tinygrad's; create the
// optimizer before the forward pass so the model reads the states.
#pragma once
#include <memory>
#include <vector>

#include "tensor/tensor.h"

namespace tg::nn {

class Optimizer {
public:
  Optimizer(const std::vector<Tensor>& params, double lr);
  Optimizer() = default; // (OptimizerGroup: its members hold the parameters)
  virtual ~Optimizer() = default;
  void zero_grad();
  // Tensor.realize(*schedule_step()): the assigns are the program's effects; draws they reach
  // are seeded now, as tinygrad realizes them here.
  void step() { Tensor::realize_draws(schedule_step()); }
  std::vector<Tensor> schedule_step();

  std::vector<Tensor> params;  // requires_grad, deduplicated
  std::vector<Tensor> buffers; // the rest: realized, not updated
  Tensor lr;

protected:
  friend class OptimizerGroup;
  virtual std::vector<Tensor> step_impl() = 0;
};

// tinygrad's OptimizerGroup: several optimizers (each over its own parameters) stepped as one;
// its params and buffers are theirs, in order.
class OptimizerGroup : public Optimizer {
public:
  explicit OptimizerGroup(std::vector<std::shared_ptr<Optimizer>> optimizers);
  std::vector<std::shared_ptr<Optimizer>> optimizers;

protected:
  std::vector<Tensor> step_impl() override;
};

class LARS : public Optimizer {
public:
  LARS(const std::vector<Tensor>& params, double lr = 0.001, double momentum = 0.9,
       double weight_decay = 1e-4, bool nesterov = false, bool classic = true, double tcoef = 0.001);
  double momentum, wd;
  bool nesterov, classic;
  double tcoef;
  std::vector<Tensor> b; // momentum buffers

protected:
  std::vector<Tensor> step_impl() override;
};

class LAMB : public Optimizer {
public:
  LAMB(const std::vector<Tensor>& params, double lr = 0.001, double b1 = 0.9, double b2 = 0.999,
       double eps = 1e-6, double weight_decay = 0.0, bool adam = false);
  double b1, b2, eps, wd;
  bool adam;
  Tensor b1_t, b2_t;
  std::vector<Tensor> m, v;

protected:
  std::vector<Tensor> step_impl() override;
};

std::unique_ptr<LARS> SGD(const std::vector<Tensor>& params, double lr = 0.001, double momentum = 0.0,
                          double weight_decay = 0.0, bool nesterov = false, bool classic = false);
std::unique_ptr<LAMB> Adam(const std::vector<Tensor>& params, double lr = 0.001, double b1 = 0.9,
                           double b2 = 0.999, double eps = 1e-8);
std::unique_ptr<LAMB> AdamW(const std::vector<Tensor>& params, double lr = 0.001, double b1 = 0.9,
                            double b2 = 0.999, double eps = 1e-8, double weight_decay = 0.01);

} // namespace tg::nn
