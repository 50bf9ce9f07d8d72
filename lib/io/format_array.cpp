// numpy's np.array2string with its default options (precision 8, floatmode 'maxprec',
// suppress_small False, linewidth 75, threshold 1000, edgeitems 3, separator ' '), following
// numpy/core/arrayprint.py: FloatingFormat, IntegerFormat, BoolFormat and _formatArray.
#include "io/format_array.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "dtype/dtype_bytes.h"

namespace tg {
namespace {

constexpr int kPrecision = 8;
constexpr size_t kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

// The float width numpy formats at: bfloat16 has no numpy dtype and prints as float32.
enum class FloatKind { Half, Single, Double };

FloatKind float_kind(DType dt) {
  if (dt == DType::Float16) return FloatKind::Half;
  if (dt == DType::Float64) return FloatKind::Double;
  return FloatKind::Single;
}

// Correctly rounded double -> half (ties to even), as a double; overflow gives inf.
double round_to_half(double d) {
  if (std::isnan(d) || std::isinf(d) || d == 0) return d;
  double a = std::fabs(d);
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  // half: 11 significant bits for normals (exponent >= -14, i.e. e >= -13); subnormal step 2^-24
  int step_exp = std::max(e - 11, -24);
  double step = std::ldexp(1.0, step_exp);
  double q = a / step;          // exact (power of two scaling)
  double r = std::nearbyint(q); // default rounding mode: ties to even
  double res = r * step;
  if (res > 65504.0) {
    // 65504 + half an ulp (16) rounds to inf
    res = std::numeric_limits<double>::infinity();
  }
  return std::copysign(res, d);
}

double round_to_kind(double d, FloatKind k) {
  switch (k) {
  case FloatKind::Half:
    return round_to_half(d);
  case FloatKind::Single:
    return double(float(d));
  case FloatKind::Double:
    return d;
  }
  return d;
}

bool round_trips(const char* s, double v, FloatKind k) {
  if (k == FloatKind::Single) return double(std::strtof(s, nullptr)) == v;
  double d = std::strtod(s, nullptr);
  if (k == FloatKind::Half) return round_to_half(d) == v;
  return d == v;
}

// Shortest decimal digits that read back as v in its own precision: v ~ 0.d1d2.. * 10^(exp+1),
// i.e. d1.d2... * 10^exp. v is finite and nonzero.
struct Digits {
  std::string digits;
  int exp = 0;
};

Digits shortest_digits(double v, FloatKind k) {
  char buf[64];
  double a = std::fabs(v);
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, a);
    if (p == 17 || round_trips(buf, a, k)) break;
  }
  Digits d;
  const char* e = std::strchr(buf, 'e');
  for (const char* c = buf; c < e; ++c)
    if (*c >= '0' && *c <= '9') d.digits += *c;
  d.exp = std::atoi(e + 1);
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

std::string strip_zeros(std::string s) { // "1.2500" -> "1.25", "3.000" -> "3."
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

// dragon4_positional(x, precision=8, unique=True, fractional=True, trim='.'): always has a '.'.
std::string positional(double v, FloatKind k) {
  std::string sign = std::signbit(v) ? "-" : "";
  if (v == 0) return sign + "0.";
  Digits d = shortest_digits(v, k);
  int n = int(d.digits.size());
  int frac = std::max(0, n - 1 - d.exp);
  if (frac > kPrecision) {
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.*f", kPrecision, std::fabs(v));
    return sign + strip_zeros(buf);
  }
  std::string ip, fp;
  if (d.exp < 0) {
    ip = "0";
    fp = std::string(size_t(-d.exp - 1), '0') + d.digits;
  } else if (n <= d.exp + 1) {
    ip = d.digits + std::string(size_t(d.exp + 1 - n), '0');
  } else {
    ip = d.digits.substr(0, size_t(d.exp + 1));
    fp = d.digits.substr(size_t(d.exp + 1));
  }
  return sign + ip + "." + fp;
}

// dragon4_scientific(x, precision=8, unique=True, trim='.') split into mantissa and exponent.
struct Sci {
  std::string mant; // "-1.25" or "1."
  int exp = 0;
};

Sci scientific(double v, FloatKind k) {
  std::string sign = std::signbit(v) ? "-" : "";
  if (v == 0) return {sign + "0.", 0};
  Digits d = shortest_digits(v, k);
  if (int(d.digits.size()) - 1 > kPrecision) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", kPrecision, std::fabs(v));
    const char* e = std::strchr(buf, 'e');
    return {sign + strip_zeros(std::string(buf, size_t(e - buf))), std::atoi(e + 1)};
  }
  return {sign + d.digits.substr(0, 1) + "." + d.digits.substr(1), d.exp};
}

std::string exp_text(int e, int digits) {
  std::string s = std::to_string(std::abs(e));
  if (int(s.size()) < digits) s = std::string(size_t(digits - int(s.size())), '0') + s;
  return (e < 0 ? "e-" : "e+") + s;
}

// numpy's FloatingFormat with sign='-', floatmode='maxprec', suppress_small=False.
class FloatFormat {
public:
  FloatFormat(const std::vector<double>& data, FloatKind k) : kind_(k) {
    std::vector<double> finite;
    for (double x : data)
      if (std::isfinite(x)) finite.push_back(x);
    double mx = 0, mn = std::numeric_limits<double>::infinity();
    bool any_nonzero = false;
    for (double x : finite)
      if (x != 0) {
        any_nonzero = true;
        mx = std::max(mx, std::fabs(x));
        mn = std::min(mn, std::fabs(x));
      }
    if (any_nonzero) {
      // numpy compares in the array's own dtype (NEP 50: the python floats become that dtype)
      // numpy >= 2.3: the large cutoff is 10**min(8, finfo(dtype).precision)
      double big = k == FloatKind::Half ? 1e3 : k == FloatKind::Single ? 1e6 : 1e8;
      double small = round_to_kind(1e-4, k);
      double ratio = round_to_kind(mx / mn, k);
      exp_format_ = mx >= big || mn < small || ratio > 1000.;
    }
    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_format_) {
      int exp_len = 0;
      for (double x : finite) {
        Sci s = scientific(x, k);
        size_t dot = s.mant.find('.');
        precision_ = std::max(precision_, int(s.mant.size() - dot - 1));
        pad_left_ = std::max(pad_left_, int(dot));
        exp_len = std::max(exp_len, int(exp_text(s.exp, 2).size()) - 1); // "-05" -> 3
      }
      exp_size_ = exp_len - 1;
      pad_right_ = exp_size_ + 2 + precision_;
    } else {
      for (double x : finite) {
        std::string s = positional(x, k);
        size_t dot = s.find('.');
        pad_left_ = std::max(pad_left_, int(dot));
        pad_right_ = std::max(pad_right_, int(s.size() - dot - 1));
      }
    }
    if (finite.size() != data.size()) {
      bool neginf = false;
      for (double x : data)
        if (std::isinf(x) && x < 0) neginf = true;
      int offset = pad_right_ + 1;
      pad_left_ = std::max({pad_left_, 3 - offset, 3 + int(neginf) - offset});
    }
  }

  std::string operator()(double x) const {
    if (!std::isfinite(x)) {
      std::string r = std::isnan(x) ? "nan" : (x < 0 ? "-inf" : "inf");
      int w = pad_left_ + pad_right_ + 1;
      return std::string(size_t(std::max(0, w - int(r.size()))), ' ') + r;
    }
    std::string s;
    size_t dot;
    if (exp_format_) {
      Sci sc = scientific(x, kind_);
      if (int(sc.mant.size() - sc.mant.find('.') - 1) < precision_) {
        // min_digits: Dragon4 keeps generating the exact value's digits, rounding the last one
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*e", precision_, x);
        const char* e = std::strchr(buf, 'e');
        sc = {std::string(buf, size_t(e - buf)), std::atoi(e + 1)};
        if (precision_ == 0) sc.mant += ".";
      }
      dot = sc.mant.find('.');
      s = sc.mant + exp_text(sc.exp, exp_size_);
    } else {
      s = positional(x, kind_);
      dot = s.find('.');
      int frac = int(s.size() - dot - 1);
      s += std::string(size_t(std::max(0, pad_right_ - frac)), ' ');
    }
    if (int(dot) < pad_left_) s = std::string(size_t(pad_left_ - int(dot)), ' ') + s;
    return s;
  }

private:
  FloatKind kind_;
  bool exp_format_ = false;
  int pad_left_ = 0, pad_right_ = 0, precision_ = 0, exp_size_ = -1;
};

bool is_integral_dtype(DType dt) { return dt != DType::Bool && !is_float(dt); }

double element_as_double(DType dt, const uint8_t* p) { return load_element(p, dt).as_double(); }

std::string int_text(DType dt, const uint8_t* p) {
  int64_t v = load_element(p, dt).as_int();
  return dt == DType::UInt64 ? std::to_string(uint64_t(v)) : std::to_string(v); // uint64 wraps in a Scalar
}

// _extendLine: wrap before `word` when the line would pass `width`, unless wrapping cannot help.
void extend_line(std::string& s, std::string& line, const std::string& word, size_t width,
                 const std::string& indent) {
  bool wrap = line.size() + word.size() > width;
  if (line.size() <= indent.size()) wrap = false;
  if (wrap) {
    size_t end = line.find_last_not_of(' ');
    s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
    line = indent;
  }
  line += word;
}

} // namespace

std::string format_array(const HostBuffer& b) {
  int64_t n = 1;
  for (int64_t d : b.shape) n *= d;
  if (n == 0) return "[]";
  const size_t rank = b.shape.size();
  const size_t isz = size_t(itemsize(b.dtype));
  const bool summarize = n > kThreshold;

  // Strides in elements (C order).
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * b.shape[d];

  // The elements that get printed (numpy's _leading_trailing) decide the formatting widths.
  std::vector<int64_t> shown;
  std::function<void(size_t, int64_t)> collect = [&](size_t axis, int64_t off) {
    if (axis == rank) {
      shown.push_back(off);
      return;
    }
    int64_t len = b.shape[axis];
    for (int64_t i = 0; i < len; ++i) {
      if (summarize && len > 2 * kEdgeItems && i == kEdgeItems) i = len - kEdgeItems;
      collect(axis + 1, off + i * strides[axis]);
    }
  };
  collect(0, 0);

  auto ptr = [&](int64_t i) { return b.data.data() + size_t(i) * isz; };
  std::function<std::string(int64_t)> fmt;
  std::optional<FloatFormat> ff;
  std::vector<double> vals;
  if (b.dtype == DType::Bool) {
    std::string truestr = rank == 0 ? "True" : " True";
    fmt = [&, truestr](int64_t i) { return *ptr(i) ? truestr : std::string("False"); };
  } else if (is_integral_dtype(b.dtype)) {
    size_t width = 0;
    for (int64_t i : shown) width = std::max(width, int_text(b.dtype, ptr(i)).size());
    fmt = [&, width](int64_t i) {
      std::string s = int_text(b.dtype, ptr(i));
      return std::string(width - std::min(width, s.size()), ' ') + s;
    };
  } else {
    for (int64_t i : shown) vals.push_back(element_as_double(b.dtype, ptr(i)));
    ff.emplace(vals, float_kind(b.dtype));
    fmt = [&](int64_t i) { return (*ff)(element_as_double(b.dtype, ptr(i))); };
  }

  // numpy's _formatArray recurser.
  std::function<std::string(size_t, int64_t, const std::string&, size_t)> rec =
      [&](size_t axis, int64_t off, const std::string& indent, size_t width) -> std::string {
    if (axis == rank) return fmt(off);
    std::string next_indent = indent + " ";
    size_t next_width = width - 1;
    int64_t len = b.shape[axis];
    bool show_summary = summarize && 2 * kEdgeItems < len;
    int64_t leading = show_summary ? kEdgeItems : 0;
    int64_t trailing = show_summary ? kEdgeItems : len;
    auto at = [&](int64_t i) { return off + i * strides[axis]; };
    std::string s;
    if (rank - axis == 1) {
      size_t elem_width = width - 1;
      std::string line = indent;
      for (int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, rec(axis + 1, at(i), next_indent, next_width), elem_width, indent);
        line += " ";
      }
      if (show_summary) {
        extend_line(s, line, "...", elem_width, indent);
        line += " ";
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend_line(s, line, rec(axis + 1, at(len - i), next_indent, next_width), elem_width, indent);
        line += " ";
      }
      extend_line(s, line, rec(axis + 1, at(len - 1), next_indent, next_width), elem_width, indent);
      s += line;
    } else {
      std::string line_sep(rank - axis - 1, '\n');
      for (int64_t i = 0; i < leading; ++i)
        s += indent + rec(axis + 1, at(i), next_indent, next_width) + line_sep;
      if (show_summary) s += indent + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i)
        s += indent + rec(axis + 1, at(len - i), next_indent, next_width) + line_sep;
      s += indent + rec(axis + 1, at(len - 1), next_indent, next_width);
    }
    return "[" + s.substr(indent.size()) + "]";
  };
  return rec(0, 0, " ", kLineWidth);
}

} // namespace tg
