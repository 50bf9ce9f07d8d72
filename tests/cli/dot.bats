#!/usr/bin/env bats
# --dot on tg-trace, tg-grad and tg-schedule: Graphviz pictures of the artifacts (tinygrad's
# GRAPH=1), rendered here with dot(1).
load helpers

demo() { cp "$ROOT/examples/demo.tg" demo.tg; }

@test "tg-trace --dot draws every node and edge of the graph, and dot renders it" {
  demo
  tg-trace demo.tg --json >g.json
  run_split tg-trace demo.tg --dot
  [ "$status" -eq 0 ]
  [[ "$out" == "digraph graph_artifact {"* ]]
  nodes=$(jq '.nodes | length' g.json)
  edges=$(jq '[.nodes[].src | length] | add' g.json)
  expect_eq "$(grep -cE '^  n[0-9]+ \[label=' <<<"$out")" "$nodes"
  expect_eq "$(grep -cE '^  n[0-9]+ -> n[0-9]+;' <<<"$out")" "$edges"
  expect_contains "$out" '(input x)'
  expect_contains "$out" 'label="output probs"'
  expect_contains "$out" ': MAX\naxes (1,)' # softmax's max, a reduce
  dot -Tsvg <<<"$out" >g.svg
  grep -q '<svg' g.svg
  grep -q 'output probs' g.svg
}

@test "tg-grad --dot draws the gradient outputs" {
  printf 'w = input("w", (3,), requires_grad=True)\noutput("loss", (w * w).sum())\n' >l.tg
  run_split bash -o pipefail -c 'tg-trace l.tg | tg-grad --wrt w --dot'
  [ "$status" -eq 0 ]
  expect_contains "$out" 'label="output grad_w"'
  dot -Tsvg <<<"$out" | grep -q 'grad_w'
}

@test "tg-schedule --dot draws one cluster per kernel, named, with buffers between them" {
  demo
  tg-trace demo.tg | tg-schedule --json >s.json
  run_split bash -o pipefail -c 'tg-trace demo.tg | tg-schedule --dot -o s.dot'
  [ "$status" -eq 0 ]
  expect_eq "$out" ""
  kernels=$(jq '.kernels | length' s.json)
  [ "$kernels" -ge 2 ]
  expect_eq "$(grep -c '^  subgraph cluster_' s.dot)" "$kernels"
  expect_eq "$(grep -cE '^  b[0-9]+ \[label=' s.dot)" "$(jq '.buffers | length' s.json)"
  grep -qE 'label="kernel [0-9]+ r_[0-9_]+"' s.dot
  grep -q 'buf [0-9]* (output probs)' s.dot
  # a buffer one kernel stores and a later one loads has edges both ways
  grep -qE '^  k[0-9]+_[0-9]+ -> b[0-9]+;' s.dot
  grep -qE '^  b[0-9]+ -> k[0-9]+_[0-9]+;' s.dot
  dot -Tsvg s.dot | grep -q '<svg'
}

@test "--dot with --json is a usage error" {
  demo
  run_split tg-trace demo.tg --dot --json
  [ "$status" -eq 2 ]
  [[ "$err" == "tg-trace: "*"excludes"* ]]
}
