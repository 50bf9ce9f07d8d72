// Tensor's devices: tensor.py 0.9.1's device, to, to_, shard and shard_ over the lazy layer's
// MultiLazyBuffer. Names are Device.canonicalize'd; the script's "CLANG" (Device.DEFAULT) is the
// graph's default device "", which tg-codegen --device makes CLANG, LLVM, GPU or CUDA.
#include "tensor/tensor_device.h"

#include "tensor/tensor_impl.h"
#include "util/error.h"

namespace tg {

std::string graph_device_name(const std::string& name) {
  std::string c = canonical_device_name(name);
  return c == "CLANG" ? "" : c;
}

std::string Tensor::device() const { return script_device_name(lazydata().device()); }

std::vector<std::string> Tensor::devices() const {
  std::vector<std::string> out;
  for (const std::string& d : lazydata().devices()) out.push_back(script_device_name(d));
  return out;
}

Tensor Tensor::to(const std::string& device_name) const {
  std::string to = graph_device_name(device_name);
  if (!is_sharded() && lazydata().device() == to) return *this;
  Tensor ret(lazydata().copy_to_device(to), requires_grad());
  if (impl_->grad) ret.impl_->grad = std::make_shared<Tensor>(impl_->grad->to(device_name));
  ret.impl_->ctx = impl_->ctx; // as tensor.py: the moved tensor keeps the autograd context
  return ret;
}

Tensor& Tensor::to_(const std::string& device_name) {
  Tensor real = to(device_name);
  if (impl_->grad) impl_->grad->to_(device_name);
  impl_->lazydata = real.lazydata();
  return *this;
}

Tensor Tensor::shard(const std::vector<std::string>& devices, std::optional<int> axis) const {
  check(!is_sharded(), "AssertionError", "can't shard a MultiLazyBuffer");
  std::vector<std::string> canon;
  for (const std::string& d : devices) canon.push_back(graph_device_name(d));
  if (axis && *axis < 0) *axis += ndim();
  return Tensor(LazyBuffer::from_sharded(lazydata(), canon, axis), requires_grad());
}

Tensor& Tensor::shard_(const std::vector<std::string>& devices, std::optional<int> axis) {
  impl_->lazydata = shard(devices, axis).lazydata();
  return *this;
}

Tensor Tensor::placed_like(const Tensor& like) const {
  const LazyBuffer& where = like.lazydata();
  if (where.is_multi())
    return Tensor(LazyBuffer::from_sharded(lazydata(), where.devices(), std::nullopt), requires_grad());
  if (where.device() == lazydata().device()) return *this;
  return Tensor(lazydata().copy_to_device(where.device()), requires_grad());
}

Tensor draw_placed(const std::function<Tensor()>& draw, const std::vector<std::string>& graph_devices) {
  if (Tensor::threefry()) return Tensor(LazyBuffer::from_sharded(draw().lazydata(), graph_devices, std::nullopt));
  std::vector<LazyBuffer> lbs;
  std::optional<bool> requires_grad;
  for (const std::string& d : graph_devices) {
    Tensor t = draw();
    requires_grad = t.requires_grad();
    lbs.push_back(t.lazydata().copy_to_device(d));
  }
  return Tensor(LazyBuffer::multi(std::move(lbs), std::nullopt), requires_grad);
}

Tensor draw_placed_like(const std::function<Tensor()>& draw, const Tensor& like) {
  if (like.is_sharded()) return draw_placed(draw, like.lazydata().devices());
  return draw().placed_like(like);
}

} // namespace tg
