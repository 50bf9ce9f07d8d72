// tensor layer: tinygrad 0.9.1's Tensor (tensor.py) over the lazy graph. A Tensor is a shared
// handle (copies alias, like Python references); operations build graph nodes, nothing runs.
// Method names, defaults, checks and error messages follow tensor.py; argument forms Python
// accepts several ways (axis=None|int|tuple, *shape or a tuple) are normalised by the caller
// (the script layer) into the C++ types below.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lazy/lazybuffer.h"

namespace tg {

class Tensor;
struct Function; // autograd context (function.h)

// A shape entry that means "keep this dimension" (Python None in reshape/expand).
constexpr int64_t kKeepDim = std::numeric_limits<int64_t>::min();

using Padding = std::vector<std::optional<std::pair<int64_t, int64_t>>>; // None = no change
using SymbolicPadding = std::vector<std::optional<std::pair<sint, sint>>>;
using AxisArg = std::optional<std::vector<int>>; // nullopt = all axes

// One entry of a __getitem__ index tuple.
struct Index {
  enum class Kind : uint8_t { Int, Slice, None, Ellipsis, Tensor } kind = Kind::None;
  int64_t i = 0;
  std::optional<int64_t> start, stop, step; // Slice; nullopt = Python None
  std::shared_ptr<Tensor> tensor;           // Tensor (lists are converted to tensors first)
  static Index integer(int64_t v) {
    Index x;
    x.kind = Kind::Int;
    x.i = v;
    return x;
  }
  static Index slice(std::optional<int64_t> a, std::optional<int64_t> b, std::optional<int64_t> c) {
    Index x;
    x.kind = Kind::Slice;
    x.start = a;
    x.stop = b;
    x.step = c;
    return x;
  }
  static Index none() { return Index{}; }
  static Index ellipsis() {
    Index x;
    x.kind = Kind::Ellipsis;
    return x;
  }
  static Index of_tensor(const Tensor& t);
};

// An argument Python accepts as an int or a tuple of ints (kernel_size, stride, padding).
struct IntOrTuple {
  std::vector<int64_t> values;
  bool is_int = true;
  IntOrTuple(int64_t v) : values{v} {}
  IntOrTuple(std::vector<int64_t> v) : values(std::move(v)), is_int(false) {}
  IntOrTuple(std::initializer_list<int64_t> v) : values(v), is_int(false) {}
  // helpers.make_pair: an int repeated cnt times, a tuple as it is
  std::vector<int64_t> make_pair(size_t cnt) const {
    return is_int ? std::vector<int64_t>(cnt, values[0]) : values;
  }
};

// A Tensor or a Python scalar, as tinygrad's Union[Tensor, ConstType] arguments.
struct Operand;

class Tensor {
public:
  // --- creation ---
  Tensor(); // an empty float32 tensor of shape (0,) (Tensor(None))
  explicit Tensor(LazyBuffer lb, std::optional<bool> requires_grad = std::nullopt);
  static Tensor scalar(const Scalar& v, std::optional<DType> dtype = std::nullopt,
                       std::optional<bool> requires_grad = std::nullopt);
  // Nested Python lists, flattened: `flat` in C order with `shape`. dtype inference as 0.9.1.
  static Tensor from_list(const std::vector<Scalar>& flat, const Shape& shape,
                          std::optional<DType> dtype = std::nullopt,
                          std::optional<bool> requires_grad = std::nullopt);
  static Tensor from_bytes(const std::vector<uint8_t>& bytes, std::optional<DType> dtype = std::nullopt);
  // The pipeline's named placeholder (script builtin input()).
  static Tensor placeholder(const std::string& name, const Shape& shape, DType dtype = DType::Float32,
                            bool requires_grad = false);

  static Tensor empty(const Shape& shape, std::optional<DType> dtype = std::nullopt);
  // tinygrad's full, Tensor(fill, requires_grad=...).reshape(...).expand(shape): requires_grad
  // sits on the 0-d leaf, so the result is made by Functions, and a backward that reaches it
  // without passing a gradient (through a comparison) raises "has no grad", as tinygrad's does.
  static Tensor full(const Shape& shape, const Scalar& fill, std::optional<DType> dtype = std::nullopt,
                     std::optional<bool> requires_grad = std::nullopt);
  static Tensor zeros(const Shape& shape, std::optional<DType> dtype = std::nullopt,
                      std::optional<bool> requires_grad = std::nullopt);
  static Tensor ones(const Shape& shape, std::optional<DType> dtype = std::nullopt,
                     std::optional<bool> requires_grad = std::nullopt);
  // tinygrad's Tensor.from_node: a 0-d int32 tensor holding a dimension's value. A symbolic one
  // is the length of an axis it spans, summed over ones: the loop-collapse rules fold that sum
  // to the kernel's DEFINE_VAR expression, tinygrad's CONST of a Variable.
  static Tensor from_node(const sint& n, std::optional<DType> dtype = std::nullopt);
  static Tensor arange(const Scalar& start, std::optional<Scalar> stop = std::nullopt,
                       const Scalar& step = Scalar::of_int(1), std::optional<DType> dtype = std::nullopt);
  static Tensor eye(int64_t dim, std::optional<DType> dtype = std::nullopt);
  Tensor full_like(const Scalar& fill, std::optional<DType> dtype = std::nullopt,
                   std::optional<bool> requires_grad = std::nullopt) const;
  Tensor zeros_like(std::optional<DType> dtype = std::nullopt,
                    std::optional<bool> requires_grad = std::nullopt) const;
  Tensor ones_like(std::optional<DType> dtype = std::nullopt,
                   std::optional<bool> requires_grad = std::nullopt) const;

  // --- random (bit-exact with tinygrad 0.9.1: numpy's default_rng, or threefry with THREEFRY=1) ---
  static void manual_seed(int64_t seed = 0);
  // Which generator rand() uses: THREEFRY in the environment (tinygrad's helpers.THREEFRY).
  static bool threefry();
  static void set_threefry(bool on);
  // A traced program's bounds: once it has states, random draws count from a state that
  // end_program() advances, so each tg-run step draws new numbers (tinygrad's counter).
  static void begin_program();
  static void end_program();
  // tinygrad realizes `ts` here (output(), realize(), an optimizer step): default-mode draws
  // they reach get their seeds now, in the order tinygrad's schedule runs them.
  static void realize_draws(const std::vector<Tensor>& ts);
  static Tensor rand(const Shape& shape, std::optional<DType> dtype = std::nullopt);
  static Tensor randn(const Shape& shape, std::optional<DType> dtype = std::nullopt);
  static Tensor randint(const Shape& shape, int64_t low = 0, int64_t high = 10);
  static Tensor normal(const Shape& shape, double mean = 0.0, double std = 1.0,
                       std::optional<DType> dtype = std::nullopt);
  static Tensor uniform(const Shape& shape, double low = 0.0, double high = 1.0,
                        std::optional<DType> dtype = std::nullopt);
  // Added: randint's dtype keyword (TypeError unless an int dtype) and the initializers.
  static Tensor randint(const Shape& shape, int64_t low, int64_t high, DType dtype);
  static Tensor scaled_uniform(const Shape& shape, std::optional<DType> dtype = std::nullopt);
  static Tensor glorot_uniform(const Shape& shape, std::optional<DType> dtype = std::nullopt);
  static Tensor kaiming_uniform(const Shape& shape, double a = 0.01,
                                std::optional<DType> dtype = std::nullopt);
  static Tensor kaiming_normal(const Shape& shape, double a = 0.01,
                               std::optional<DType> dtype = std::nullopt);

  // --- properties ---
  const LazyBuffer& lazydata() const;
  const Shape& shape() const { return lazydata().shape(); }
  DType dtype() const { return lazydata().dtype(); }
  int ndim() const { return int(shape().size()); }
  int64_t numel() const { return prod(shape()); }
  int64_t element_size() const { return itemsize(dtype()); }
  int64_t nbytes() const { return numel() * element_size(); }
  bool is_floating_point() const { return is_float(dtype()); }
  int64_t len() const; // __len__: raises TypeError("len() of a 0-d tensor") on 0-d
  std::optional<bool> requires_grad() const;
  void set_requires_grad(std::optional<bool> v);
  std::shared_ptr<Tensor> grad() const;
  void set_grad(std::shared_ptr<Tensor> g);                     // `t.grad = None` (nullptr) or a tensor
  bool same(const Tensor& o) const { return impl_ == o.impl_; } // Python `is`
  // This tensor's value now, as a new handle that keeps it: a later assign into a state it
  // reads does not move it to the newer version (what output() records).
  Tensor snapshot() const;

  // --- devices (tensor_device.cpp): tinygrad's device names, canonicalised; the graph's ""
  // (the program's default device) is "CLANG" here, as Device.DEFAULT names it in a script ---
  bool is_sharded() const { return lazydata().is_multi(); }
  std::string device() const;               // a single-device tensor's device
  std::vector<std::string> devices() const; // a sharded tensor's, in shard order
  Tensor to(const std::string& device) const;
  Tensor& to_(const std::string& device);
  // shard(devices, axis): a copy on each device (axis nullopt) or split along axis.
  Tensor shard(const std::vector<std::string>& devices, std::optional<int> axis = std::nullopt) const;
  Tensor& shard_(const std::vector<std::string>& devices, std::optional<int> axis = std::nullopt);
  // A tensor just made on the default device, moved to where `like` lives (tinygrad makes
  // it there with device=self.device): replicated onto a sharded tensor's devices.
  Tensor placed_like(const Tensor& like) const;

  // --- movement ---
  Tensor reshape(const Shape& shape) const; // -1 infers, kKeepDim keeps
  Tensor view(const Shape& shape) const { return reshape(shape); }
  Tensor expand(const Shape& shape) const; // -1 / kKeepDim keep
  Tensor permute(const std::vector<int>& order) const;
  Tensor flip(const std::vector<int>& axis) const;
  Tensor shrink(const Padding& arg) const;
  Tensor shrink_symbolic(const SymbolicPadding& arg) const; // ends may be symbolic (a Variable)
  Tensor pad(const Padding& arg, double value = 0.0) const;
  // Added: a pad value as the Python scalar it is (an int keeps an int tensor's dtype).
  Tensor pad(const Padding& arg, const Scalar& value) const;
  Tensor pad_symbolic(const SymbolicPadding& arg, const Scalar& value) const; // amounts may be symbolic
  Tensor getitem(const std::vector<Index>& indices) const;
  Tensor T() const { return transpose(1, 0); }
  Tensor transpose(int dim0 = 1, int dim1 = 0) const;
  Tensor flatten(int start_dim = 0, int end_dim = -1) const;
  Tensor unflatten(int dim, const Shape& sizes) const;
  Tensor squeeze(std::optional<int> dim = std::nullopt) const;
  Tensor unsqueeze(int dim) const;
  Tensor contiguous() const;
  Tensor contiguous_backward() const;
  Tensor cat(const std::vector<Tensor>& others, int dim = 0) const;
  Tensor stack(const std::vector<Tensor>& others, int dim = 0) const;
  Tensor repeat(const Shape& repeats) const;
  std::vector<Tensor> split(const std::vector<int64_t>& sizes, int dim = 0) const;
  std::vector<Tensor> split(int64_t size, int dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int dim = 0) const;
  Tensor pad2d(const std::vector<int64_t>& padding, double value = 0.0) const;
  Tensor pad2d(const std::vector<int64_t>& padding, const Scalar& value) const; // Added, as pad
  Tensor gather(int dim, const Tensor& index) const;

  // --- reductions ---
  Tensor sum(const AxisArg& axis = std::nullopt, bool keepdim = false,
             std::optional<DType> acc_dtype = std::nullopt) const;
  Tensor max(const AxisArg& axis = std::nullopt, bool keepdim = false) const;
  Tensor min(const AxisArg& axis = std::nullopt, bool keepdim = false) const;
  Tensor mean(const AxisArg& axis = std::nullopt, bool keepdim = false) const;
  Tensor var(const AxisArg& axis = std::nullopt, bool keepdim = false, int64_t correction = 1) const;
  Tensor std(const AxisArg& axis = std::nullopt, bool keepdim = false, int64_t correction = 1) const;
  Tensor softmax(int axis = -1) const;
  Tensor log_softmax(int axis = -1) const;
  Tensor logsumexp(const AxisArg& axis = std::nullopt, bool keepdim = false) const;
  Tensor argmax(std::optional<int> axis = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int> axis = std::nullopt, bool keepdim = false) const;
  Tensor cumsum(int axis = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor matmul(const Tensor& x, bool reverse = false, std::optional<DType> acc_dtype = std::nullopt) const;
  Tensor dot(const Tensor& w, std::optional<DType> acc_dtype = std::nullopt) const;

  // --- unary math and activations ---
  Tensor logical_not() const;
  Tensor neg() const;
  Tensor log() const;
  Tensor log2() const;
  Tensor exp() const;
  Tensor exp2() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor trunc() const;
  Tensor ceil() const;
  Tensor floor() const;
  Tensor round() const;
  Tensor square() const;
  Tensor sign() const;
  Tensor abs() const;
  Tensor reciprocal() const;
  Tensor tanh() const;
  Tensor elu(double alpha = 1.0) const;
  Tensor celu(double alpha = 1.0) const;
  Tensor swish() const;
  Tensor silu() const;
  Tensor relu6() const;
  Tensor hardswish() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor atanh() const;
  Tensor asinh() const;
  Tensor acosh() const;
  Tensor hardtanh(double min_val = -1, double max_val = 1) const;
  Tensor gelu() const;
  Tensor quick_gelu() const;
  Tensor leakyrelu(double neg_slope = 0.01) const;
  Tensor mish() const;
  Tensor softplus(double beta = 1) const;
  Tensor softsign() const;

  // --- binary / ternary (Operand = Tensor or Python scalar) ---
  Tensor add(const Operand& x, bool reverse = false) const;
  Tensor sub(const Operand& x, bool reverse = false) const;
  Tensor mul(const Operand& x, bool reverse = false) const;
  Tensor div(const Operand& x, bool reverse = false, bool upcast = true) const;
  Tensor xor_(const Operand& x, bool reverse = false) const;
  Tensor lshift(int64_t x) const;
  Tensor rshift(int64_t x) const;
  Tensor pow(const Operand& x, bool reverse = false) const;
  Tensor maximum(const Operand& x) const;
  Tensor minimum(const Operand& x) const;
  Tensor where(const Operand& x, const Operand& y) const;
  Tensor masked_fill(const Tensor& mask, const Operand& value) const;
  Tensor lerp(const Tensor& end, const Operand& weight) const;
  Tensor clip(double min_, double max_) const;
  // Added: bounds as Python scalars or tensors (clip(1, 3) on an int tensor stays int).
  Tensor clip(const Operand& min_, const Operand& max_) const;
  Tensor lt(const Operand& x) const; // <
  Tensor gt(const Operand& x) const; // >
  Tensor ge(const Operand& x) const; // >=
  Tensor le(const Operand& x) const; // <=
  Tensor ne(const Operand& x) const; // !=
  Tensor eq(const Operand& x) const; // ==

  // --- dtype ---
  Tensor cast(DType dtype) const;
  Tensor bitcast(DType dtype) const;
  Tensor float_() const { return cast(DType::Float32); }
  Tensor half() const { return cast(DType::Float16); }
  Tensor int_() const { return cast(DType::Int32); }
  Tensor bool_() const { return cast(DType::Bool); }

  // --- autograd (issue: autograd and training) ---
  Tensor detach() const;
  Tensor& backward();

  // --- state (tensor_state.cpp) ---
  // Nothing runs at trace time, so realize() means: from here on this tensor is a state buffer
  // of the program (named `name`, else "state.N"), whose first value is what it was; tg-run
  // keeps it across steps and can load/save it. A no-op on an input or a state, and on a value
  // computed from this step's data (inputs, assigned states), which every step computes.
  Tensor& realize(const std::string& name = "");
  bool is_state() const; // a state's placeholder, or an ASSIGN into one
  // tensor.py's replace and assign: assign into a state (or the ASSIGN that last wrote one)
  // becomes an ASSIGN the program performs; into anything else it is replace().
  Tensor& replace(const Tensor& x);
  Tensor& assign(const Operand& x);
  // __setitem__: makes this tensor a state and assigns v into the indexed view of it.
  void setitem(const std::vector<Index>& indices, const Operand& v);

  // --- nn functional (issue 3): tensor.py 0.9.1's linear .. sparse_categorical_crossentropy,
  // pooling, convolutions, einsum and multinomial (tensor_nn.cpp) ---
  static bool training; // Tensor.training: dropout is the identity unless set
  Tensor linear(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt) const;
  Tensor layernorm(const AxisArg& axis = std::vector<int>{-1}, double eps = 1e-5) const;
  Tensor batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, const Tensor& mean,
                   const Tensor& invstd, const std::vector<int>& axis = {1}) const;
  Tensor dropout(double p = 0.5) const;
  Tensor one_hot(int64_t num_classes) const;
  Tensor scaled_dot_product_attention(const Tensor& key, const Tensor& value,
                                      const std::optional<Tensor>& attn_mask = std::nullopt,
                                      double dropout_p = 0.0, bool is_causal = false) const;
  Tensor binary_crossentropy(const Tensor& y) const;
  Tensor binary_crossentropy_logits(const Tensor& y) const;
  Tensor sparse_categorical_crossentropy(const Tensor& Y, int64_t ignore_index = -1,
                                         double label_smoothing = 0.0) const;
  Tensor avg_pool2d(const IntOrTuple& kernel_size = IntOrTuple({2, 2}),
                    const std::optional<IntOrTuple>& stride = std::nullopt,
                    const IntOrTuple& dilation = IntOrTuple(1)) const;
  Tensor max_pool2d(const IntOrTuple& kernel_size = IntOrTuple({2, 2}),
                    const std::optional<IntOrTuple>& stride = std::nullopt,
                    const IntOrTuple& dilation = IntOrTuple(1)) const;
  Tensor conv2d(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt, int64_t groups = 1,
                const IntOrTuple& stride = IntOrTuple(1), const IntOrTuple& dilation = IntOrTuple(1),
                const IntOrTuple& padding = IntOrTuple(0),
                std::optional<DType> acc_dtype = std::nullopt) const;
  Tensor conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,
                          int64_t groups = 1, const IntOrTuple& stride = IntOrTuple(1),
                          const IntOrTuple& dilation = IntOrTuple(1),
                          const IntOrTuple& padding = IntOrTuple(0),
                          const IntOrTuple& output_padding = IntOrTuple(0)) const;
  static Tensor einsum(const std::string& formula, const std::vector<Tensor>& xs,
                       std::optional<DType> acc_dtype = std::nullopt);
  Tensor multinomial(int64_t num_samples = 1, bool replacement = false) const;

  // Internals shared with function.cpp: apply a Function and record the autograd context.
  struct Impl;
  std::shared_ptr<Impl> impl_;
  Tensor& make_state(const std::string& name); // realize() without the input/state check
};

struct Operand {
  std::optional<Tensor> tensor;
  Scalar value;
  Operand(const Tensor& t) : tensor(t) {}
  Operand(const Scalar& s) : value(s) {}
  Operand(double v) : value(Scalar::of_float(v)) {}
  Operand(int v) : value(Scalar::of_int(v)) {}
  Operand(int64_t v) : value(Scalar::of_int(v)) {}
  Operand(bool v) : value(Scalar::of_bool(v)) {}
};

// Broadcasting of shapes (_broadcast_shape): raises like tinygrad on mismatch.
Shape broadcast_shape(const std::vector<Shape>& shapes);

} // namespace tg
