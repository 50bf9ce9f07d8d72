#!/usr/bin/env bats
# A script error inside functions prints Python's traceback, then tg's one line (issue 30).
load helpers

@test "an error inside a method prints each frame with file, line and source, then the error line" {
  cat >tb.tg <<'TG'
def inner(x):
  return x.foo()

class Net:
  def __call__(self, x):
    return inner(x)

def train(n):
  return n(Tensor.ones(3))

train(Net())
TG
  run_split tg-trace tb.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" 'Traceback (most recent call last):
  File "tb.tg", line 11, in <module>
    train(Net())
  File "tb.tg", line 9, in train
    return n(Tensor.ones(3))
  File "tb.tg", line 6, in __call__
    return inner(x)
  File "tb.tg", line 2, in inner
    return x.foo()
tg-trace: tb.tg:2: AttributeError: '"'"'Tensor'"'"' object has no attribute '"'"'foo'"'"''
}

@test "an error at the top level is one line, and a runaway recursion's frames collapse" {
  echo 'x = Tensor.ones(3).foo()' >top.tg
  run_split tg-trace top.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: top.tg:1: AttributeError: 'Tensor' object has no attribute 'foo'"
  printf 'def f(n):\n  return f(n+1)\nf(0)\n' >rec.tg
  run_split tg-trace rec.tg
  [ "$status" -eq 1 ]
  expect_contains "$err" "  [Previous line repeated"
  [[ "$err" == *$'\ntg-trace: rec.tg:2: RecursionError: maximum recursion depth exceeded' ]]
}
