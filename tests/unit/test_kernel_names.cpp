// Schedule kernels carry tinygrad's names before optimizing (tg-schedule's name_kernels), and the
// names survive the schedule artifact in both encodings.
#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "io/artifact.h"
#include "lazy/lazybuffer.h"
#include "tensor/tensor.h"

using namespace tg;

namespace {

Schedule named_schedule(const Tensor& out, const std::vector<Tensor>& ins) {
  std::vector<GraphInput> i;
  for (const Tensor& t : ins) i.push_back({t.lazydata().node().name, t.lazydata().id(), false});
  Schedule s = schedule_graph(extract_graph({{"y", out.lazydata()}}, i));
  name_kernels(s);
  return s;
}

} // namespace

TEST(KernelNames, elementwise_reduce_and_matmul_kernels_get_tinygrads_names) {
  Tensor x = Tensor::placeholder("kn_x", {4, 8});
  EXPECT_EQ(named_schedule(x.add(1.0), {x}).kernels.at(0).name, "E_32");
  EXPECT_EQ(named_schedule(x.sum(std::vector<int>{1}), {x}).kernels.at(0).name, "r_4_8");
  Tensor a = Tensor::placeholder("kn_a", {16, 32}), b = Tensor::placeholder("kn_b", {32, 8});
  EXPECT_EQ(named_schedule(a.matmul(b), {a, b}).kernels.at(0).name, "r_16_8_32");
}

TEST(KernelNames, names_round_trip_through_binary_and_json_schedules) {
  Tensor x = Tensor::placeholder("kn_x2", {4, 8});
  Schedule s = named_schedule(x.exp().sum(std::vector<int>{0}), {x});
  ASSERT_FALSE(s.kernels.empty());
  for (bool json : {false, true}) {
    Schedule back = read_schedule(write_schedule(s, json));
    ASSERT_EQ(back.kernels.size(), s.kernels.size());
    for (size_t k = 0; k < s.kernels.size(); ++k) EXPECT_EQ(back.kernels[k].name, s.kernels[k].name);
  }
}
