#!/usr/bin/env bats
# tg-codegen: schedule artifact -> program artifact (man/tg-codegen.1).
load helpers

schedule() { # script text -> s.bin
  printf '%s\n' "$1" >k.tg
  tg-trace k.tg | tg-schedule -o s.bin
}

@test "tg-codegen --version prints the name and version" {
  run_split tg-codegen --version
  [ "$status" -eq 0 ]
  expect_eq "$out" "tg-codegen 0.1.0"
}

@test "tg-codegen --help lists the flags" {
  run_split tg-codegen --help
  [ "$status" -eq 0 ]
  for flag in --device --json -o --help --version; do expect_contains "$out" "$flag"; done
}

@test "tg-codegen rejects an unknown flag with exit 2" {
  run_split tg-codegen --no-such-flag
  [ "$status" -eq 2 ]
}

@test "tg-codegen --json has kernels with name and C source" {
  schedule "$SOFTMAX"
  run_split tg-codegen --json s.bin
  [ "$status" -eq 0 ]
  jq -e '.kernels | length >= 1' <<<"$out" >/dev/null
  jq -e 'all(.kernels[]; (.name|type) == "string" and (.src|type) == "string" and (.src|length) > 0)' <<<"$out" >/dev/null
  jq -e 'all(.kernels[]; .name as $n | .src | contains($n))' <<<"$out" >/dev/null
}

@test "tg-codegen makes one program kernel per scheduled kernel" {
  schedule "$SOFTMAX"
  a=$(tg-schedule --json <(tg-trace k.tg) | jq '.kernels|length')
  b=$(tg-codegen --json s.bin | jq '.kernels|length')
  expect_eq "$b" "$a"
}

@test "tg-codegen --device CLANG is the default" {
  schedule "$MATMUL"
  tg-codegen --json s.bin >default.json
  tg-codegen --json --device CLANG s.bin >clang.json
  expect_eq "$(jq -S .kernels default.json)" "$(jq -S .kernels clang.json)"
}

@test "tg-codegen's C source compiles with clang" {
  schedule "$SOFTMAX"
  tg-codegen --json s.bin >p.json
  n=$(jq '.kernels|length' p.json)
  for ((i = 0; i < n; i++)); do
    jq -r ".kernels[$i].src" p.json >k$i.c
    clang -c -O1 -x c -o k$i.o k$i.c
  done
}

@test "tg-codegen reads stdin, - and the JSON form of a schedule" {
  schedule "$MATMUL"
  printf '%s\n' "$MATMUL" | tg-trace | tg-schedule --json >s.json
  a=$(tg-codegen --json <s.bin | jq '.kernels|length')
  b=$(tg-codegen --json - <s.bin | jq '.kernels|length')
  c=$(tg-codegen --json s.json | jq '.kernels|length')
  expect_eq "$a" 1
  expect_eq "$b" 1
  expect_eq "$c" 1
}

@test "tg-codegen rejects an unknown device" {
  schedule "$MATMUL"
  run_split tg-codegen --device NOSUCHDEVICE s.bin
  [ "$status" -ne 0 ]
  expect_contains "$err" "NOSUCHDEVICE"
  [ -z "$out" ]
}

@test "tg-codegen given a graph names both kinds" {
  printf '%s\n' "$MATMUL" >m.tg
  tg-trace m.tg -o g.bin
  run_split tg-codegen g.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: expected a schedule (from tg-schedule), got a graph (from tg-trace)"
}

@test "tg-codegen given a program names both kinds" {
  schedule "$MATMUL"
  tg-codegen s.bin -o p.bin
  run_split tg-codegen p.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: expected a schedule (from tg-schedule), got a program (from tg-codegen)"
}

@test "tg-codegen rejects garbage in one line, exit 1" {
  run_split tg-codegen <<<"{not json"
  [ "$status" -eq 1 ]
  expect_one_line_error tg-codegen "$err"
  [ -z "$out" ]
}

@test "tg-codegen rejects a truncated schedule in one line, exit 1, no output file" {
  schedule "$SOFTMAX"
  head -c $(($(stat -c %s s.bin) * 2 / 3)) s.bin >part.bin
  run_split tg-codegen part.bin -o p.bin
  [ "$status" -eq 1 ]
  expect_one_line_error tg-codegen "$err"
  [ ! -e p.bin ]
}

@test "tg-codegen refuses to write binary to a terminal" {
  command -v script >/dev/null || skip "needs script(1)"
  schedule "$MATMUL"
  run_split script -qec "tg-codegen s.bin" /dev/null
  [ "$status" -eq 1 ] || [ "$status" -eq 2 ]
  expect_contains "$out" "tg-codegen: "
}
