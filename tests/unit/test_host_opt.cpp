// tg's host optimizer (Kernel::host_optimizations) and vector lanes in the linearizer and the
// C renderer. Widths are given explicitly, so the tests do not depend on this machine's CPU;
// results against the unoptimized kernels are in tests/cli/vectors.bats and the codegen fuzz.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "codegen/codegen.h"
#include "device/registry.h"
#include "schedule/schedule.h"
#include "script/trace.h"

using namespace tg;

namespace {

Kernel kernel_of(const std::string& script, int lanes) {
  Schedule s = schedule_graph(trace_script(script, "t.tg"));
  RendererOpts opts = device_renderer("CLANG").opts();
  opts.vector_lanes = lanes;
  Kernel k(s.kernels.at(0).ast, opts);
  k.host_optimizations();
  return k;
}

// The source (CLANG or LLVM) of a script's first kernel, which must get `lanes` lanes.
std::string src_of(const std::string& script, int lanes, const char* device = "CLANG") {
  Kernel k = kernel_of(script, lanes);
  EXPECT_EQ(k.lanes, lanes) << script;
  return lower_kernel(k, device_renderer(device)).src;
}

const char* kMatmul = "a = input('a', (64, 32))\nb = input('b', (32, 64))\noutput('c', a @ b)";

} // namespace

TEST(HostOpt, a_matmul_gets_lanes_over_its_columns_and_a_tile_of_rows_by_vectors) {
  Kernel k = kernel_of(kMatmul, 8);
  EXPECT_EQ(k.lanes, 8);
  // lanes over the 64 columns, then 4 rows (b is broadcast along them) by 2 vectors (a is
  // broadcast along those): 8 accumulators for 16 vector registers, 6 loads per 8 FMAs where
  // 8 rows by 1 vector needs 9
  EXPECT_EQ(k.applied_opts,
            (std::vector<Opt>{{OptOps::UPCAST, 1, 8}, {OptOps::UPCAST, 0, 4}, {OptOps::UPCAST, 1, 2}}));
  k = kernel_of(kMatmul, 16);
  // 32 registers hold 8 rows by 2 vectors
  EXPECT_EQ(k.lanes, 16);
  EXPECT_EQ(k.applied_opts,
            (std::vector<Opt>{{OptOps::UPCAST, 1, 16}, {OptOps::UPCAST, 0, 8}, {OptOps::UPCAST, 1, 2}}));
  std::string src = lower_kernel(k, device_renderer("CLANG")).src;
  EXPECT_NE(src.find("floatx16 acc15 = tg_splat_floatx16(0.0f);"), std::string::npos) << src;
  EXPECT_EQ(src.find("floatx16 acc16"), std::string::npos) << src;
  // 40 columns: no multiple of 16, so lanes of 8
  k = kernel_of("a = input('a', (64, 32))\nb = input('b', (32, 40))\noutput('c', a @ b)", 16);
  EXPECT_EQ(k.lanes, 8);
  EXPECT_EQ(k.applied_opts, (std::vector<Opt>{{OptOps::UPCAST, 1, 8}, {OptOps::UPCAST, 0, 8}}));
}

TEST(HostOpt, no_lanes_means_tinygrads_optimizations) {
  // (a row of 63: contiguous, but no vector width divides it)
  for (const char* script : {kMatmul, "a = input('a', (40, 63))\noutput('r', a.sum(axis=1))",
                             "a = input('a', (8, 8), dtype=dtypes.int32)\noutput('r', a + 1)"}) {
    Kernel k = kernel_of(script, 0), strided = kernel_of(script, 16);
    Schedule s = schedule_graph(trace_script(script, "t.tg"));
    Kernel want(s.kernels.at(0).ast, device_renderer("CLANG").opts());
    want.hand_coded_optimizations();
    EXPECT_EQ(k.applied_opts, want.applied_opts) << script;
    EXPECT_EQ(k.lanes, 1);
    if (std::string(script) != kMatmul) { // a strided input, an int kernel: no lanes at any width
      EXPECT_EQ(strided.applied_opts, want.applied_opts) << script;
      EXPECT_EQ(strided.lanes, 1);
    }
  }
}

TEST(HostOpt, a_padded_image_is_a_range_load_with_stride_1_or_2) {
  // a padded conv's image is masked along the lane axis at its edges: lanes lo..hi-1 load as
  // one vector; each vector feeds the tile of output channels
  Kernel k = kernel_of("x = input('x', (1, 2, 4, 16))\nw = input('w', (4, 2, 3, 3))\n"
                       "output('y', x.conv2d(w, padding=1))",
                       8);
  ASSERT_EQ(k.lanes, 8);
  LoweredKernel lk = lower_kernel(k, device_renderer("CLANG"));
  EXPECT_NE(lk.uops.find("float32.vec(8)"), std::string::npos) << lk.uops;
  EXPECT_NE(lk.uops.find("lanes 8 in [lo, hi)"), std::string::npos) << lk.uops;
  EXPECT_NE(lk.src.find("= tg_vload_range_floatx8(data1+"), std::string::npos) << lk.src;
  EXPECT_NE(lk.src.find("tg_vstore_floatx8(data0+"), std::string::npos) << lk.src;
  // stride 2: every other element, lanes lo..hi-1 of them (two vector loads and a shuffle), not
  // a vector built lane by lane
  k = kernel_of("x = input('x', (1, 2, 8, 32))\nw = input('w', (4, 2, 3, 3))\n"
                "output('y', x.conv2d(w, padding=1, stride=2))",
                8);
  ASSERT_EQ(k.lanes, 8);
  lk = lower_kernel(k, device_renderer("CLANG"));
  EXPECT_NE(lk.uops.find("lanes 8 in [lo, hi), stride 2"), std::string::npos) << lk.uops;
  EXPECT_NE(lk.src.find("= tg_vload2_range_floatx8(data1+"), std::string::npos) << lk.src;
  EXPECT_EQ(lk.src.find("(floatx8){"), std::string::npos) << lk.src;
  // LLVM: the same two (masked) vector loads and a shuffle of the even lanes, no gather
  std::string ir = lower_kernel(k, device_renderer("LLVM")).src;
  EXPECT_EQ(ir.find("llvm.masked.gather"), std::string::npos) << ir;
  EXPECT_NE(ir.find("shufflevector <8 x float> %"), std::string::npos) << ir;
  EXPECT_NE(ir.find("<8 x i32> <i32 0, i32 2, i32 4, i32 6, i32 8, i32 10, i32 12, i32 14>"),
            std::string::npos)
      << ir;
  // with nothing to reuse a vector (no reduce), a masked input consecutive where valid still
  // gets lanes: each vector is one range load, not a gather (a depthwise conv's image, a pad)
  k = kernel_of("x = input('x', (4, 16))\noutput('y', x.pad(((0, 0), (1, 15))) * 2)", 8);
  ASSERT_EQ(k.lanes, 8);
  lk = lower_kernel(k, device_renderer("CLANG"));
  EXPECT_NE(lk.src.find("= tg_vload_range_floatx8(data1+"), std::string::npos) << lk.src;
  EXPECT_EQ(lk.src.find("(floatx8){"), std::string::npos) << lk.src;
}

TEST(HostOpt, a_splat_is_written_lane_by_lane_not_as_a_loop) {
  // kernels compile with -fno-unroll-loops: a splat written as a loop stayed a loop (a 32-way
  // concatenation's padding zeros, 32 splats per vector, took 9x the kernel's other work)
  for (int lanes : {4, 8, 16}) {
    std::string src = src_of("x = input('x', (4, 64))\noutput('y', x.pad(((0, 0), (0, 64))) + 1)", lanes);
    const std::string name = "tg_splat_floatx" + std::to_string(lanes) + "(float x) {";
    size_t at = src.find(name);
    ASSERT_NE(at, std::string::npos) << src;
    std::string body = src.substr(at, src.find('\n', at) - at);
    EXPECT_EQ(body.find("for ("), std::string::npos) << body;
    std::string lanes_written = "{x";
    for (int i = 1; i < lanes; ++i) lanes_written += ",x";
    EXPECT_NE(body.find(lanes_written + "}"), std::string::npos) << body;
  }
}

TEST(HostOpt, a_row_padded_to_several_vectors_loads_each_as_a_range) {
  // 28 columns over 8 lanes pad to 4 vectors: the image's index is (8*v+lane+kx)%30, which is
  // 8*v+lane+kx wherever 8*v+lane < 28 (the only lanes loaded or stored): each vector of the row
  // is one range load, not 8 lanes gathered one by one (ResNet-50's 28- and 14-wide 3x3 convs)
  std::string src = src_of("x = input('x', (1, 4, 6, 28))\nw = input('w', (8, 4, 3, 3))\n"
                           "output('y', x.conv2d(w, padding=1))",
                           8);
  EXPECT_NE(src.find("= tg_vload_range_floatx8(data1+"), std::string::npos) << src;
  EXPECT_EQ(src.find("(floatx8){"), std::string::npos) << src;
  EXPECT_EQ(src.find("%"), std::string::npos) << src;
}

TEST(HostOpt, a_padded_row_of_range_loads_is_tiled_as_vector_loads_are) {
  // the 28-wide image loads each vector as one range (above), so its tile is a vector input's:
  // 4 output channels x 2 vectors (6 loads per 8 FMAs), not 8 channels x 1 vector (9 loads, of
  // 8 weight rows) as for an image gathered lane by lane (ResNet-50's 28x28 3x3 convs, 55 -> 62
  // GFLOP/s a core)
  Kernel k = kernel_of("x = input('x', (1, 4, 6, 28))\nw = input('w', (8, 4, 3, 3))\n"
                       "output('y', x.conv2d(w, padding=1))",
                       8);
  ASSERT_EQ(k.lanes, 8);
  std::vector<int64_t> upcasts;
  for (const Opt& o : k.applied_opts)
    if (o.op == OptOps::UPCAST) upcasts.push_back(o.amt.value_or(0));
  EXPECT_EQ(upcasts, (std::vector<int64_t>{8, 4, 2}));
}

TEST(HostOpt, a_stride_2_row_is_tiled_as_a_vector_where_its_window_is_packed) {
  // pack_panels copies a strided conv's image out for all its output-channel blocks, so the tile
  // reads vectors: 4 channels x 2 vectors. A window past the packing budget stays two loads and a
  // shuffle per vector, priced as a gather: 8 channels x 1 vector.
  Schedule s = schedule_graph(trace_script("x = input('x', (1, 16, 8, 32))\nw = input('w', (8, 16, 1, 1))\n"
                                           "output('y', x.conv2d(w, stride=2))",
                                           "t.tg"));
  auto upcasts = [&](int64_t budget) {
    RendererOpts opts = device_renderer("CLANG").opts();
    opts.vector_lanes = 8;
    opts.pack_panel_bytes = budget;
    Kernel k(s.kernels.at(0).ast, opts);
    k.host_optimizations();
    EXPECT_EQ(k.lanes, 8);
    std::vector<int64_t> out;
    for (const Opt& o : k.applied_opts)
      if (o.op == OptOps::UPCAST) out.push_back(o.amt.value_or(0));
    return out;
  };
  EXPECT_EQ(upcasts(256 << 10), (std::vector<int64_t>{8, 4, 2})); // 16 channels x 2 x 8 floats: 1 KB
  EXPECT_EQ(upcasts(512), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(upcasts(0), (std::vector<int64_t>{8, 8})); // no packing (a device without local arrays)
}

TEST(HostOpt, padded_lanes_leave_a_broadcast_input_unmasked) {
  // a 14-wide image gets 16 lanes (PADTO): the weights, broadcast along the lanes, load as
  // one scalar per value instead of a vector built lane by lane with zeros in lanes 14 and 15
  const char* conv = "x = input('x', (1, 4, 14, 14))\nw = input('w', (8, 4, 3, 3))\n"
                     "output('y', x.conv2d(w, padding=1))";
  Kernel k = kernel_of(conv, 16);
  ASSERT_EQ(k.lanes, 16);
  ASSERT_NE(std::find_if(k.applied_opts.begin(), k.applied_opts.end(),
                         [](const Opt& o) { return o.op == OptOps::PADTO; }),
            k.applied_opts.end());
  std::string src = lower_kernel(k, device_renderer("CLANG")).src;
  const std::regex masked_splat(R"(\{(val\d+),\1,)"); // {val8,val8,...,0.0f,0.0f}
  EXPECT_FALSE(std::regex_search(src, masked_splat)) << src;
  EXPECT_NE(src.find("data2["), std::string::npos) << src;
  // the image's row index is (x+kx)%16 over 16 lanes, x+kx over the 14 that are stored: one
  // range load, not lanes gathered one by one
  EXPECT_NE(src.find("= tg_vload_range_floatx16(data1+"), std::string::npos) << src;
  EXPECT_EQ(src.find("(floatx16){"), std::string::npos) << src;
  // a mask that is the program's own (the weights padded along that axis) stays
  Kernel own = kernel_of("x = input('x', (4, 14))\nw = input('w', (8, 4, 1))\nb = input('b', (4, 1))\n"
                         "p = b.expand(4, 12).pad(((0, 0), (0, 2))).reshape(1, 4, 14)\n"
                         "output('y', (x.reshape(1, 4, 14) * w * p).sum(1))",
                         16);
  std::string own_src = lower_kernel(own, device_renderer("CLANG")).src;
  ASSERT_EQ(own.lanes, 16);
  EXPECT_TRUE(std::regex_search(own_src, masked_splat)) << own_src;
}

TEST(HostOpt, maximum_and_clip_select_whole_vectors_by_masks) {
  // tinygrad's maximum is where(x<y, y, where((x!=y)!=True, (x+y)/2, x)): the compares of float
  // vectors are masks (intx8: -1 or 0), the negation ~m, the selects tg_vsel; no lane by lane ?:
  const char* clip = "a = input('a', (16, 32))\nb = input('b', (32, 64))\noutput('c', (a @ b).clip(0, 6))";
  std::string src = src_of(clip, 8);
  EXPECT_NE(src.find("tg_vsel_floatx8("), std::string::npos) << src;
  EXPECT_NE(src.find("(~("), std::string::npos) << src;
  EXPECT_EQ(src.find("(floatx8){"), std::string::npos) << src;
  EXPECT_FALSE(std::regex_search(src, std::regex(R"(\[\d+\]<)"))) << src; // a lane's compare: alu9[0]<val0
  // the same on LLVM: <8 x i1> compares and selects
  std::string ll = src_of(clip, 8, "LLVM");
  EXPECT_NE(ll.find("fcmp contract olt <8 x float>"), std::string::npos) << ll;
  EXPECT_NE(ll.find("select contract <8 x i1>"), std::string::npos) << ll;
}

TEST(HostOpt, a_conv_window_is_unrolled_and_its_range_loads_are_avx_masked_loads) {
  // the 3x3 window's loops unroll (their masks then move out of the channel loop) and a range
  // load is one vmaskmovps where AVX is there: 2.7x on UNet's 3x3 convs, bit for bit the same
  const char* conv =
      "x = input('x', (1, 4, 6, 16))\nw = input('w', (8, 4, 3, 3))\noutput('y', x.conv2d(w, padding=1))";
  std::string src = src_of(conv, 8);
  auto count = [](const std::string& text, const char* what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(src, "#pragma GCC unroll 3"), 2u) << src;
  EXPECT_NE(src.find("__builtin_ia32_maskloadps256((const floatx8*)p, m)"), std::string::npos) << src;
  // LLVM: the same loops carry llvm.loop.unroll.full
  EXPECT_NE(src_of(conv, 8, "LLVM").find("!\"llvm.loop.unroll.full\""), std::string::npos);
  // stride 2: masked loads of the 2*lanes elements 2*lo .. 2*hi-2, then the even ones
  std::string s2src = src_of("x = input('x', (1, 2, 8, 32))\nw = input('w', (4, 2, 3, 3))\n"
                             "output('y', x.conv2d(w, padding=1, stride=2))",
                             8);
  EXPECT_NE(s2src.find("(j0 >= z + 2 * lo) & (j0 < z + 2 * hi - 1)"), std::string::npos) << s2src;
  // a depthwise conv's reduce is its window alone: both loops unroll (neighbouring output rows'
  // loads of one image row are then one load); a conv over 16 channels keeps its channel loop
  std::string dw = src_of("x = input('x', (1, 16, 6, 16))\nw = input('w', (16, 1, 3, 3))\n"
                          "output('y', x.conv2d(w, padding=1, groups=16))",
                          8);
  EXPECT_EQ(count(dw, "#pragma GCC unroll 3"), 2u) << dw;
  std::string wide = src_of("x = input('x', (1, 16, 6, 16))\nw = input('w', (8, 16, 3, 3))\n"
                            "output('y', x.conv2d(w, padding=1))",
                            8);
  EXPECT_EQ(count(wide, "#pragma GCC unroll"), 2u) << wide;
  // tinygrad's kernels have no range loads: no pragma
  Kernel tiny(schedule_graph(trace_script(conv, "t.tg")).kernels.at(0).ast, device_renderer("CLANG").opts());
  tiny.hand_coded_optimizations();
  EXPECT_EQ(lower_kernel(tiny, device_renderer("CLANG")).src.find("#pragma GCC unroll"), std::string::npos);
}

TEST(HostOpt, a_reduce_along_a_contiguous_axis_gets_the_lanes) {
  // no output axis for lanes (each row's sum is one scalar): the lanes go to the reduce axis,
  // each lane sums every 16th element, and the lanes are added in order after the loop
  Kernel k = kernel_of("a = input('a', (40, 64))\noutput('r', (a * 2).exp().sum(axis=1))", 16);
  ASSERT_EQ(k.lanes, 16);
  EXPECT_TRUE(k.reduce_lanes);
  std::string src = lower_kernel(k, device_renderer("CLANG")).src;
  EXPECT_NE(src.find("floatx16 acc0 = tg_splat_floatx16(0.0f);"), std::string::npos) << src;
  EXPECT_NE(src.find("tg_vexp2_floatx16("), std::string::npos) << src;
  EXPECT_NE(src.find("(acc0[0]+acc0[1]+acc0[2]+"), std::string::npos) << src;
  EXPECT_NE(lower_kernel(k, device_renderer("LLVM")).src.find("<16 x float>"), std::string::npos);
  // a max keeps tinygrad's order: with lanes, a tie of 0.0 and -0.0 could keep the other zero
  EXPECT_FALSE(kernel_of("a = input('a', (40, 64))\noutput('r', a.max(axis=1))", 8).reduce_lanes);
  // an input strided along the reduce axis keeps tinygrad's opts
  EXPECT_FALSE(kernel_of("a = input('a', (64, 40))\noutput('r', a.T.sum(axis=1).reshape(40, 1) * "
                         "input('b', (40, 64)))",
                         8)
                   .reduce_lanes);
}
