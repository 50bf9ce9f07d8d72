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

@test "--dot-output draws one output and what it depends on; --dot-depth cuts it, a cut source a dashed box" {
  demo
  run_split tg-trace demo.tg --dot-output total
  [ "$status" -eq 0 ]
  expect_contains "$out" 'label="output total"'
  [[ "$out" != *'output probs'* && "$out" != *'(input x)'* && "$out" != *'...'* ]]
  all=$(tg-trace demo.tg --dot | grep -cE '^  n[0-9]+ \[label=')
  some=$(grep -cE '^  n[0-9]+ \[label=' <<<"$out")
  [ "$some" -lt "$all" ]
  run_split tg-trace demo.tg --dot-output probs --dot-depth 0
  [ "$status" -eq 0 ]
  expect_eq "$(grep -cE '^  n[0-9]+ \[label="[0-9]+: [A-Z]' <<<"$out")" 1
  expect_contains "$out" ': ...", style=dashed'
  dot -Tsvg <<<"$out" | grep -q '<svg'
  # depth alone: that many levels above every output
  run_split tg-trace demo.tg --dot-depth 1
  [ "$status" -eq 0 ]
  expect_contains "$out" 'label="output h"'
  expect_contains "$out" 'label="output total"'
}

@test "tg-schedule --dot-kernel draws one kernel and its buffers, --dot-depth the kernels before it" {
  demo
  tg-trace demo.tg | tg-schedule --json >s.json
  last=$(($(jq '.kernels | length' s.json) - 1))
  run_split bash -o pipefail -c "tg-trace demo.tg | tg-schedule --dot-kernel $last"
  [ "$status" -eq 0 ]
  expect_eq "$(grep -c '^  subgraph cluster_[0-9]' <<<"$out")" 1
  expect_contains "$out" "label=\"kernel $last "
  run_split bash -o pipefail -c "tg-trace demo.tg | tg-schedule --dot-kernel $last --dot-depth 1"
  [ "$(grep -c '^  subgraph cluster_[0-9]' <<<"$out")" -gt 1 ]
  run_split bash -o pipefail -c "tg-trace demo.tg | tg-schedule --dot-output probs"
  [ "$status" -eq 0 ]
  expect_contains "$out" '(output probs)'
  [[ "$out" != *'(output total)'* ]]
  dot -Tsvg <<<"$out" | grep -q '<svg'
}

@test "--dot filters refuse what is not there, in one line" {
  demo
  run_split tg-trace demo.tg --dot-output nope
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: --dot-output 'nope': the graph has no output of that name (it has: h, probs, total)"
  run_split tg-trace demo.tg --dot-depth -1
  [ "$status" -eq 2 ]
  expect_eq "$err" "tg-trace: --dot-depth: expected an integer >= 0, got '-1' (see tg-trace --help)"
  run_split bash -c 'tg-trace demo.tg | tg-schedule --dot-kernel 99'
  [ "$status" -eq 1 ]
  expect_contains "$err" "tg-schedule: --dot-kernel 99: the schedule has "
  run_split tg-trace demo.tg --dot-output h --json
  [ "$status" -eq 2 ]
  run_split bash -c 'tg-trace demo.tg | tg-schedule --dot-kernel 0 --dot-output h'
  [ "$status" -eq 1 ]
  expect_contains "$err" "tg-schedule: --dot-kernel and --dot-output each pick the part to draw: give one"
}

@test "--dot-depth alone keeps the states' updates of a training step, not only its outputs" {
  printf '%s\n' 'Tensor.training = True' 'x = input("x", (4, 3))' 'w = Tensor([[0.5], [-0.25], [1.0]]).realize()' \
    'opt = nn.optim.SGD([w], lr=0.1)' 'loss = (x @ w).square().mean()' 'opt.zero_grad()' 'loss.backward()' \
    'opt.step()' 'output("loss", loss)' >t.tg
  run_split tg-trace t.tg --dot-depth 0
  [ "$status" -eq 0 ]
  expect_contains "$out" 'ASSIGN'
  run_split bash -o pipefail -c 'tg-trace t.tg | tg-schedule --dot-depth 0'
  [ "$status" -eq 0 ]
  expect_contains "$out" '(state '
}

@test "--dot on a large graph says how large and how to draw a part" {
  printf '%s\n' 'x = input("x", (4,))' 'for i in range(250): x = x * 2 + i' 'output("y", x)' >big.tg
  run_split tg-trace big.tg --dot
  [ "$status" -eq 0 ]
  expect_contains "$err" "tg-trace: warning: --dot: the graph has "
  expect_contains "$err" "--dot-output NAME or --dot-depth N draws a part"
  run_split tg-trace big.tg --dot-depth 3
  expect_eq "$err" ""
}
