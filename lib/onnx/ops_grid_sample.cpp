// ONNX's GridSample (opset 16; opset 20's names "linear" and "cubic" for 2-D images): each output
// point samples the image where the grid says, with nearest, bilinear or bicubic taps and zeros,
// border or reflection padding, as the ONNX reference implementation computes it. The grid is
// data, so each tap is gathered with a one-hot comparison over the image's pixels.
#include "onnx/node.h"

namespace tg {

namespace {

using Outs = std::vector<Tensor>;

// A coordinate reflected into [lo, hi] as the reference's _gs_reflect does.
Tensor reflect(const Tensor& x, double lo, double hi) {
  double range = hi - lo;
  auto fold = [&](const Tensor& d, double near, double far, double toward) {
    Tensor n = d.div(range).trunc(), r = d.sub(n.mul(range));
    Tensor even = n.sub(n.div(2.0).floor().mul(2.0)).eq(0.0);
    return even.where(r.mul(toward).add(near), r.mul(-toward).add(far));
  };
  Tensor below = fold(x.sub(lo, true), lo, hi, 1.0), above = fold(x.sub(hi), hi, lo, -1.0);
  return x.lt(lo).where(below, x.gt(hi).where(above, x));
}

struct Sampler {
  Tensor image; // (N, C, 1, H*W)
  int64_t h, w;
  std::string padding;
  double x_lo, x_hi, y_lo, y_hi; // the reflection borders
  // The pixels at integer rows r and columns c (N, 1, O), as (N, C, O); zero outside the image
  // with zeros padding, clamped or reflected inside it otherwise.
  Tensor at(Tensor r, Tensor c) const {
    std::optional<Tensor> inside;
    if (padding == "border")
      r = r.clip(0.0, double(h - 1)), c = c.clip(0.0, double(w - 1));
    else if (padding == "reflection")
      r = reflect(r, y_lo, y_hi).trunc(), c = reflect(c, x_lo, x_hi).trunc();
    else
      inside = r.ge(0.0).where(r.lt(double(h)), false).where(c.ge(0.0).where(c.lt(double(w)), false), false);
    Tensor flat = r.mul(double(w)).add(c).cast(DType::Int64).unsqueeze(-1); // (N, 1, O, 1)
    Tensor pixels = positions(h * w);
    Tensor hit = flat.eq(pixels.reshape({1, 1, 1, h * w}));
    if (inside) hit = inside->unsqueeze(-1).where(hit, false);
    return hit.where(image, Scalar::of_int(0)).sum(std::vector<int>{-1});
  }
};

// The reference's cubic convolution weights (Keys, a = -0.75) for the 4 taps around t in [0, 1).
std::vector<Tensor> cubic_weights(const Tensor& t) {
  const double a = -0.75;
  auto near = [&](const Tensor& x) { return x.mul(a + 2).sub(a + 3).mul(x).mul(x).add(1.0); };
  auto far = [&](const Tensor& x) { return x.mul(a).sub(5 * a).mul(x).add(8 * a).mul(x).sub(4 * a); };
  return {far(t.add(1.0)), near(t), near(t.sub(1.0, true)), far(t.sub(2.0, true))};
}

Outs grid_sample(const Node& n) {
  Tensor x = n.in(0), grid = n.in(1);
  if (x.shape().size() != 4 || grid.shape().size() != 4)
    n.bad("only 2-D images (4-D X and grid) are imported");
  std::string mode = n.attr_string("mode", "bilinear");
  if (mode == "linear") mode = "bilinear";
  if (mode == "cubic") mode = "bicubic";
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    n.bad("mode '" + mode + "' is not imported");
  bool align = n.attr_int("align_corners", 0) != 0;
  int64_t batch = x.shape()[0], ch = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  int64_t ho = grid.shape()[1], wo = grid.shape()[2], o = ho * wo;
  Sampler s{x.reshape({batch, ch, 1, h * w}),
            h,
            w,
            n.attr_string("padding_mode", "zeros"),
            align ? 0.0 : -0.5,
            align ? double(w - 1) : double(w) - 0.5,
            align ? 0.0 : -0.5,
            align ? double(h - 1) : double(h) - 0.5};
  if (s.padding != "zeros" && s.padding != "border" && s.padding != "reflection")
    n.bad("padding_mode '" + s.padding + "' is not imported");
  Tensor g = grid.cast(DType::Float32).reshape({batch, 1, o, 2});
  auto coord = [&](int i, int64_t len) {
    Tensor v = g.shrink({std::nullopt, std::nullopt, std::nullopt, std::pair<int64_t, int64_t>(i, i + 1)})
                   .reshape({batch, 1, o});
    return align ? v.add(1.0).div(2.0).mul(double(len - 1)) : v.add(1.0).mul(double(len)).sub(1.0).div(2.0);
  };
  Tensor cx = coord(0, w), cy = coord(1, h);
  if (mode == "nearest") cx = cx.round(), cy = cy.round();
  if (s.padding == "border") // out of bounds: clamped (pixels are clamped again per tap)
    cx = cx.clip(0.0, double(w - 1)), cy = cy.clip(0.0, double(h - 1));
  else if (s.padding == "reflection")
    cx = reflect(cx, s.x_lo, s.x_hi), cy = reflect(cy, s.y_lo, s.y_hi);
  Tensor y;
  if (mode == "nearest") {
    y = s.at(cy, cx);
  } else if (mode == "bilinear") {
    Tensor x1 = cx.floor(), y1 = cy.floor(), dx = cx.sub(x1), dy = cy.sub(y1);
    Tensor top = s.at(y1, x1).mul(dx.sub(1.0, true)).add(s.at(y1, x1.add(1.0)).mul(dx));
    Tensor bottom = s.at(y1.add(1.0), x1).mul(dx.sub(1.0, true)).add(s.at(y1.add(1.0), x1.add(1.0)).mul(dx));
    y = top.mul(dy.sub(1.0, true)).add(bottom.mul(dy));
  } else {
    Tensor x0 = cx.floor().sub(1.0), y0 = cy.floor().sub(1.0);
    std::vector<Tensor> wx = cubic_weights(cx.sub(x0).sub(1.0)), wy = cubic_weights(cy.sub(y0).sub(1.0));
    for (int r = 0; r < 4; ++r) {
      Tensor row = s.at(y0.add(double(r)), x0).mul(wx[0]);
      for (int c = 1; c < 4; ++c)
        row = row.add(s.at(y0.add(double(r)), x0.add(double(c))).mul(wx[size_t(c)]));
      Tensor term = row.mul(wy[size_t(r)]);
      y = r == 0 ? term : y.add(term);
    }
  }
  return {y.reshape({batch, ch, ho, wo}).cast(x.dtype())};
}

} // namespace

void add_grid_sample_ops(OpTable& t) { t["GridSample"] = grid_sample; }

} // namespace tg
