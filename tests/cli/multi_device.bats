#!/usr/bin/env bats
# Multi-device programs (issue 31): a sharded script through every stage, the device of each
# node, buffer and kernel, copies between devices as their own kernels, the device names under
# tg-codegen --device, and the errors for what a program cannot hold.
load helpers

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export TG_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
  cat >mm.tg <<'TG'
from tinygrad import Device
d = (f"{Device.DEFAULT}:1", f"{Device.DEFAULT}:2")
x = input("x", (8, 16)).shard(d, axis=0)
w = input("w", (16, 4)).shard(d)
y = (x @ w).relu()
assert y.device == d and y.lazydata.axis == 0
output("y", y)
output("s", y.sum())
TG
  "$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(0)
np.save("x.npy", rng.standard_normal((8, 16)).astype(np.float32))
np.save("w.npy", rng.standard_normal((16, 4)).astype(np.float32))
PY
}

@test "a sharded graph names each node's device, and copies come from another device" {
  tg-trace mm.tg --json >g.json
  expect_eq "$(jq -r '[.nodes[].device] | unique | join(",")' g.json)" ",CLANG:1,CLANG:2"
  # every copy between devices reads a node of another device
  jq -e '[.nodes as $n | .nodes[] | select(.op == "LoadOps.COPY" and (.src | length) == 1)
          | select($n[.src[0]].device == .device)] | length == 0' g.json
  expect_eq "$(jq '[.nodes[] | select(.op == "LoadOps.COPY" and (.src | length) == 1)] | length > 0' g.json)" true
}

@test "the schedule puts each kernel on one device, and a copy is a kernel of its own" {
  tg-trace mm.tg | tg-schedule --json >s.json
  # a kernel's buffers are on its device, except a copy's source
  jq -e '.buffers as $b | [.kernels[] | . as $k | select((.bufs | length) != 2)
          | select([.bufs[] | $b[.].device] | unique != [$k.device])] | length == 0' s.json
  expect_eq "$(jq -r '[.kernels[].device] | unique | join(",")' s.json)" ",CLANG:1,CLANG:2"
}

@test "tg-codegen --device LLVM names a script's CLANG:N as LLVM:N" {
  tg-trace mm.tg | tg-schedule | tg-codegen --device LLVM --json >p.json
  expect_eq "$(jq -r '.device' p.json)" LLVM
  expect_eq "$(jq -r '[.kernels[].device] | unique | join(",")' p.json)" ",LLVM:1,LLVM:2"
  expect_eq "$(jq -r '[.buffers[].device] | unique | join(",")' p.json)" ",LLVM:1,LLVM:2"
}

@test "a sharded program gives the single-device values bit for bit on CLANG, LLVM and GPU" {
  sed -e 's/.shard(d, axis=0)//; s/.shard(d)//; /assert/d' mm.tg >one.tg
  for dev in CLANG LLVM GPU; do
    tg-trace one.tg | tg-schedule | tg-codegen --device "$dev" -o "one-$dev.bin"
    tg-run "one-$dev.bin" --in x=x.npy --in w=w.npy --out-dir "one-$dev"
    tg-trace mm.tg | tg-schedule | tg-codegen --device "$dev" -o "mm-$dev.bin"
    tg-run "mm-$dev.bin" --in x=x.npy --in w=w.npy --out-dir "out-$dev"
    cmp "one-$dev/y.npy" "out-$dev/y.npy"
  done
  "$PYTHON" -c '
import numpy as np
x, w = np.load("x.npy"), np.load("w.npy")
assert np.allclose(np.load("out-CLANG/y.npy"), np.maximum(x @ w, 0), atol=1e-5)'
}

@test "the ring all-reduce (RING=2) gives the naive one's values" {
  printf '%s\n' 'd = ("CLANG:1", "CLANG:2", "CLANG:3")' 'x = input("x", (6, 96)).shard(d, axis=0)' \
    'output("s", x.sum(0))' >r.tg
  "$PYTHON" -c 'import numpy as np; np.save("r.npy", np.arange(576, dtype=np.float32).reshape(6, 96))'
  tg-trace r.tg | tg-schedule | tg-codegen -o naive.bin
  RING=2 tg-trace r.tg | tg-schedule | tg-codegen -o ring.bin
  tg-run naive.bin --in x=r.npy --out-dir naive
  tg-run ring.bin --in x=r.npy --out-dir ring
  cmp naive/s.npy ring/s.npy
  # the ring moves chunks: more copies than the naive all-reduce's
  n=$(tg-trace r.tg --json | jq '[.nodes[] | select(.op == "LoadOps.COPY")] | length')
  r=$(RING=2 tg-trace r.tg --json | jq '[.nodes[] | select(.op == "LoadOps.COPY")] | length')
  [ "$r" -gt "$n" ]
}

@test "a state of a sharded tensor is one state per shard, saved and loaded by name" {
  printf '%s\n' 'd = ("CLANG:1", "CLANG:2")' 'w = Tensor.ones(4, 2).contiguous()' \
    'w.shard_(d, axis=0)' 'state("ws", w)' 'w.assign(w * 2)' 'output("w", w)' >st.tg
  tg-trace st.tg | tg-schedule | tg-codegen -o st.bin
  tg-run st.bin --steps 3 --out-dir st --save-state st.safetensors
  "$PYTHON" -c '
import numpy as np, json, struct
assert (np.load("st/w.npy") == 8).all(), np.load("st/w.npy")
with open("st.safetensors", "rb") as f: hdr = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
assert {"ws@CLANG:1", "ws@CLANG:2"} <= set(hdr), hdr.keys()'
}

@test "a device of another type is refused where it is named" {
  printf 'output("y", Tensor.ones(4, device="GPU:1") + 1)\n' >g.tg
  run_split tg-trace g.tg
  [ "$status" -eq 1 ]
  expect_contains "$err" "NotImplementedError"
  expect_contains "$err" "one device type"
  # a schedule that names one anyway (written by hand) stops tg-codegen with one line
  tg-trace mm.tg | tg-schedule --json | jq '.buffers[0].device = "GPU:1"' >bad.json
  run_split tg-codegen bad.json
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: the schedule places a buffer on GPU:1, but a program runs on one device type (CLANG); programs that mix device types are not supported"
}

@test "a bad device name in an artifact is one line naming it" {
  tg-trace mm.tg --json | jq '.nodes[0].device = "clang:1"' >bad.json
  run_split tg-schedule bad.json
  [ "$status" -eq 1 ]
  expect_contains "$err" "bad device name 'clang:1'"
}

@test "--dot draws one cluster per device" {
  tg-trace mm.tg --dot >g.dot
  expect_eq "$(grep -c '^  subgraph cluster_device_' g.dot)" 2
  tg-trace mm.tg | tg-schedule --dot >s.dot
  expect_eq "$(grep -c '^  subgraph cluster_device_' s.dot)" 2
}

@test "two devices of similar work run at once, one lane each, bit for bit as one kernel at a time" {
  cat >dp.tg <<'TG'
from tinygrad.nn.optim import SGD
Tensor.training = True
d = ("CLANG:1", "CLANG:2")
x = input("x", (512, 128)).shard(d, axis=0)
l1, l2 = nn.Linear(128, 256), nn.Linear(256, 4)
for p in nn.state.get_parameters([l1, l2]): p.to_(d)
opt = SGD(nn.state.get_parameters([l1, l2]), lr=0.01)
loss = l2(l1(x).relu()).square().mean()
opt.zero_grad()
loss.backward()
opt.step()
output("loss", loss)
TG
  "$PYTHON" -c "import numpy as np; np.save('x.npy', np.random.default_rng(2).standard_normal((512, 128)).astype(np.float32))"
  tg-trace dp.tg | tg-schedule | tg-codegen -o dp.bin
  # (bounds checking, on in these tests, runs one kernel at a time: it reports by exceptions)
  export TG_CHECK_BOUNDS=0
  TG_THREADS=1 tg-run dp.bin --in x=x.npy --steps 5 --save-state one.safetensors --out-dir one
  TG_THREADS=2 tg-run dp.bin --in x=x.npy --steps 5 --save-state two.safetensors --out-dir two --profile p.json
  cmp one/loss.npy two/loss.npy
  cmp one.safetensors two.safetensors
  # the profile draws a kernel track per lane: CLANG:1's kernels on one, CLANG:2's on the other
  expect_eq "$(jq -c '[.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .args.name
    | select(startswith("kernels of")) | [contains("CLANG:1"), contains("CLANG:2")]] | sort' p.json)" \
    '[[false,true],[true,false]]'
  expect_eq "$(jq '[.traceEvents[] | select(.ph == "X" and .tid >= 4) | .tid] | unique' p.json | jq -c .)" '[4,5]'
  # one device with almost all the work: one kernel at a time, split over the threads
  cat >uneven.tg <<'TG'
x = input("x", (512, 128))
output("big", (x @ x.T).relu().sum(1))
output("small", x[:1].to("CLANG:1") + 1)
TG
  tg-trace uneven.tg | tg-schedule | tg-codegen -o uneven.bin
  TG_THREADS=2 tg-run uneven.bin --in x=x.npy --out-dir u --profile q.json
  expect_eq "$(jq -c '[.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .args.name]' q.json)" \
    '["steps","CLANG kernels"]'
}
