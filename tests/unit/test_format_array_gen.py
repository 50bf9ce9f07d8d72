# Writes tests/unit/test_format_array.cpp: each case's expected string is numpy's np.array2string.
import numpy as np, math
np.set_printoptions()  # defaults
DT = {np.bool_:'Bool', np.int8:'Int8', np.uint8:'UInt8', np.int16:'Int16', np.uint16:'UInt16',
      np.int32:'Int32', np.uint32:'UInt32', np.int64:'Int64', np.uint64:'UInt64',
      np.float16:'Float16', np.float32:'Float32', np.float64:'Float64'}
cases = []
def case(name, arr, dt=None, bf16=False):
    arr = np.asarray(arr)
    cases.append((name, arr, bf16))
def bf16(vals, shape=None):
    a = np.asarray(vals, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    r = bits.astype(np.uint32).view(np.float32)
    return r.reshape(shape) if shape else r
f32 = np.float32; f64 = np.float64; f16 = np.float16
case('Sigmoid2x3', 1/(1+np.exp(-np.array([[-1,1,0],[2,-2,3]],dtype=f32))))
case('Float32Simple', np.array([1.5, 2, 3.25], f32))
case('Float32Shortest', np.array([0.1, 0.2, 1/3], f32))
case('Float64MaxPrec', np.array([1/3, 2/3, 0.1], f64))
case('Float64Integers', np.array([1., 2., 100.], f64))
case('NegativePadding', np.array([-1.5, 2.25, 10.0], f32))
case('NegativeZero', np.array([-0.0, 1.0], f32))
case('AllZero', np.zeros((2,2), f32))
case('SciSmall', np.array([1e-5, 1.0], f32))
case('SciLarge', np.array([1.2345e8, 1.0], f64))
case('SciRatio', np.array([1.0, 1001.0, -3.5], f32))
case('SciExp3Digits', np.array([1e-100, 1.0, 2.5e200], f64))
case('SciWithZero', np.array([0.0, 1e-7, -2e-7], f32))
case('SciPrecisionCap', np.array([1/3*1e-6, 1.0], f64))
case('ThresholdBoundary', np.array([0.0001, 0.1, 100.0], f64))
case('Float32OneE4', np.array([f32(1e-4), f32(1)], f32))
case('RatioExactly1000', np.array([1.0, 1000.0], f32))
case('NanInf', np.array([np.nan, 1.5, -np.inf, np.inf], f32))
case('NanOnly', np.array([np.nan, np.nan], f32))
case('InfOnlyNeg', np.array([np.inf, -np.inf], f64))
case('NanInSci', np.array([np.nan, 1e-9, 1.0], f32))
case('Float16', np.array([0.1, 0.2, 1/3, 65504], f16))
case('Float16Sci', np.array([1e-5, 1, 3], f16))
case('Float16Large', np.array([60000, 0.5], f16))
case('BFloat16', bf16([0.1, 1.5, -3.3]), bf16=True)
case('ZeroDimFloat', np.array(1.5, f32))
case('ZeroDimNan', np.array(np.nan, f64))
case('ZeroDimSci', np.array(1e-7, f64))
case('ZeroDimBool', np.array(True))
case('ZeroDimInt', np.array(-7, np.int32))
case('Empty1D', np.zeros((0,), f32))
case('Empty0x3', np.zeros((0,3), np.int32))
case('Bool2x2', np.array([[True, False],[False, False]]))
case('BoolAllTrue', np.array([True, True]))
case('IntAlign', np.array([[1, -20],[300, 4]], np.int32))
case('Int8', np.array([-128, 5, 127], np.int8))
case('UInt8', np.array([0, 7, 255], np.uint8))
case('Int16', np.array([-1, 1000], np.int16))
case('UInt16', np.array([65535, 1], np.uint16))
case('UInt32', np.array([4294967295, 0], np.uint32))
case('Int64', np.array([-9223372036854775808, 9223372036854775807, 0], np.int64))
case('UInt64', np.array([18446744073709551615, 3], np.uint64))
case('Wrap1DFloat', (np.arange(30, dtype=f32) / 7).astype(f32))
case('WrapInt2D', np.arange(60, dtype=np.int64).reshape(2,30) * 1000)
case('Wrap3D', (np.arange(2*2*20, dtype=f64)/3).reshape(2,2,20))
case('ThreeD', np.arange(24, dtype=np.int32).reshape(2,3,4))
case('FourD', np.arange(16, dtype=f32).reshape(2,2,2,2))
case('Summarize1D', np.arange(2000, dtype=f32) * f32(0.5))
case('Summarize2D', np.arange(2000, dtype=np.int32).reshape(40,50))
case('Summarize3D', np.arange(1008, dtype=np.int16).reshape(12,6,14))
case('SummarizeFormatsShownOnly', np.concatenate([np.ones(3), np.full(1000, 1e-9), np.ones(3)]).astype(f64))
case('SummarizeBool', np.arange(1500).reshape(30,50) % 3 == 0)
case('LongMixed', np.array([123456.789, -0.001, 3.14159265358979], f64))
case('RoundingAt8', np.array([0.001953125, 1.0], f64))
case('Float32Big', np.array([16777216., 3.0], f32))
case('Float32SciExtraDigits', np.array([0.1, 1e-5, 3.0], f32))
case('Float64SciExtraDigits', np.array([0.1, 1e-5, 2.5], f64))
case('SciRoundsUpExponent', np.array([9.9999999999e-5, 0.5], f64))
case('Float32Cutoff1e6', np.array([2e6, 1.5e6], f32))
case('Float32Below1e6', np.array([999999.0, 500000.0], f32))
case('Float16Cutoff1e3', np.array([1500, 1200], f16))
case('BFloat16Cutoff1e6', bf16([2e6, 1.5e6]), bf16=True)
case('Sci1e8', np.array([1e8], f32))

def lit(x, isfloat):
    if isfloat:
        x = float(x)
        if math.isnan(x): return 'NAN'
        if math.isinf(x): return 'INFINITY' if x > 0 else '-INFINITY'
        if x == 0: return '-0.0' if math.copysign(1, x) < 0 else '0.0'
        return repr(x)
    return str(int(x))

def cstr(s):
    return '"' + s.replace('\\','\\\\').replace('"','\\"').replace('\n','\\n"\n            "') + '"'

out = []
for name, arr, isbf in cases:
    expected = np.array2string(arr.astype(np.float32) if isbf else arr)
    dt = 'BFloat16' if isbf else DT[arr.dtype.type]
    shape = '{' + ', '.join(str(d) for d in arr.shape) + '}'
    flat = arr.reshape(-1)
    isf = arr.dtype.kind == 'f'
    if arr.dtype.kind == 'b':
        data = 'std::vector<int64_t>{' + ', '.join('1' if v else '0' for v in flat) + '}'
        mk = f'ints(DType::{dt}, {shape}, {data})'
    elif arr.dtype.kind == 'u':
        data = 'std::vector<uint64_t>{' + ', '.join(str(int(v))+'u' for v in flat) + '}'
        mk = f'uints(DType::{dt}, {shape}, {data})'
    elif arr.dtype.kind == 'i':
        data = 'std::vector<int64_t>{' + ', '.join(('INT64_MIN' if int(v) == -2**63 else str(int(v))) for v in flat) + '}'
        mk = f'ints(DType::{dt}, {shape}, {data})'
    else:
        data = 'std::vector<double>{' + ', '.join(lit(v, True) for v in flat) + '}'
        mk = f'floats(DType::{dt}, {shape}, {data})'
    out.append(f'TEST(FormatArray, {name}) {{\n  EXPECT_EQ(format_array({mk}),\n            {cstr(expected)});\n}}\n')

hdr = '''// Expected strings come from numpy 2.4 np.array2string on the same data (default options).
// Generated by tests/unit/test_format_array_gen.py (.venv/bin/python tests/unit/test_format_array_gen.py,\n// then clang-format -i);
// edit the case list there, not this file.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>

#include "io/format_array.h"

namespace tg {
namespace {

template <class T> void put(HostBuffer& b, size_t i, T v) {
  std::memcpy(b.data.data() + i * sizeof(T), &v, sizeof(T));
}

HostBuffer make(DType dt, Shape shape, size_t n) {
  HostBuffer b{dt, std::move(shape), {}};
  b.data.resize(n * size_t(itemsize(dt)));
  return b;
}

HostBuffer floats(DType dt, Shape shape, const std::vector<double>& v) {
  HostBuffer b = make(dt, std::move(shape), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dt) {
    case DType::Float16: put(b, i, float_to_half(float(v[i]))); break;
    case DType::BFloat16: put(b, i, float_to_bf16(float(v[i]))); break;
    case DType::Float32: put(b, i, float(v[i])); break;
    default: put(b, i, v[i]); break;
    }
  }
  return b;
}

HostBuffer ints(DType dt, Shape shape, const std::vector<int64_t>& v) {
  HostBuffer b = make(dt, std::move(shape), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dt) {
    case DType::Bool: put(b, i, uint8_t(v[i] != 0)); break;
    case DType::Int8: put(b, i, int8_t(v[i])); break;
    case DType::Int16: put(b, i, int16_t(v[i])); break;
    case DType::Int32: put(b, i, int32_t(v[i])); break;
    default: put(b, i, v[i]); break;
    }
  }
  return b;
}

HostBuffer uints(DType dt, Shape shape, const std::vector<uint64_t>& v) {
  HostBuffer b = make(dt, std::move(shape), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dt) {
    case DType::UInt8: put(b, i, uint8_t(v[i])); break;
    case DType::UInt16: put(b, i, uint16_t(v[i])); break;
    case DType::UInt32: put(b, i, uint32_t(v[i])); break;
    default: put(b, i, v[i]); break;
    }
  }
  return b;
}

} // namespace

TEST(FormatShape, Tuples) {
  EXPECT_EQ(shape_repr({}), "()");
  EXPECT_EQ(shape_repr({4}), "(4,)");
  EXPECT_EQ(shape_repr({2, 3}), "(2, 3)");
}

'''
import os
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_format_array.cpp'),'w').write(hdr + '\n'.join(out) + '\n} // namespace tg\n')

