#!/usr/bin/env bats
# States are named without being asked (issue 30): a model's as get_state_dict names them, an
# optimizer's as tinygrad's get_state_dict(opt), a cache by its attribute path, a tensor by its
# variable; a file tg-run --save-state writes loads by name into tinygrad.
load helpers

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export TG_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
}

state_names() { # script file -> the graph's state names, one line, comma-separated
  tg-trace --json "$1" | "$PYTHON" -c 'import json, sys; print(",".join(s["name"] for s in json.load(sys.stdin)["states"]))'
}

@test "a model's, an optimizer's and a variable's states take their names, wherever state() is not called" {
  need_python
  cat >train.tg <<'TG'
from tinygrad.nn.state import get_parameters
class Net:
  def __init__(self):
    self.l1 = nn.Linear(4, 3)
    self.l2 = nn.Linear(3, 2)
  def __call__(self, x): return self.l2(self.l1(x).relu())
model = Net()
opt = nn.optim.Adam(get_parameters(model), lr=0.01)
steps = Tensor.zeros(1).contiguous().realize()
x = input("x", (5, 4))
with Tensor.train():
  opt.zero_grad()
  loss = model(x).sum()
  loss.backward()
  opt.step()
  steps.assign(steps + 1).realize()
output("loss", loss)
TG
  expect_eq "$(state_names train.tg)" \
    "l1.weight,l1.bias,l2.weight,l2.bias,b1_t,b2_t,m.0,m.1,m.2,m.3,v.0,v.1,v.2,v.3,steps"
  # and the weights tg-run saves load by name into tinygrad's own model
  make_npy x.npy 'np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4)'
  tg-trace train.tg | tg-schedule | tg-codegen -o train.program
  run_split tg-run train.program --in x=x.npy --steps 2 --save-state s.safetensors
  [ "$status" -eq 0 ]
  "$PYTHON" - <<'PY'
from tinygrad import Tensor, nn
from tinygrad.nn.state import safe_load, load_state_dict, get_state_dict
class Net:
  def __init__(self):
    self.l1 = nn.Linear(4, 3)
    self.l2 = nn.Linear(3, 2)
saved = safe_load("s.safetensors")
assert set(get_state_dict(Net())) <= set(saved), sorted(saved)
net = Net()
load_state_dict(net, {k: v for k, v in saved.items() if k in get_state_dict(net)})
assert saved["steps"].numpy().tolist() == [2.0]
assert net.l1.weight.shape == (3, 4)
PY
}

@test "state() before the optimizer keeps its names; two models are told apart by their variables" {
  cat >two.tg <<'TG'
enc = [nn.Linear(2, 2), nn.Linear(2, 2)]
dec = {"proj": nn.Linear(2, 1, bias=False)}
state("encoder", enc[0].weight)
opt = nn.optim.SGD(nn.state.get_parameters(enc) + nn.state.get_parameters(dec), lr=0.1, momentum=0.9)
x = input("x", (3, 2))
with Tensor.train():
  opt.zero_grad()
  loss = dec["proj"](enc[1](enc[0](x))).sum()
  loss.backward()
  opt.step()
output("loss", loss)
TG
  expect_eq "$(state_names two.tg)" "encoder,enc.0.bias,enc.1.weight,enc.1.bias,dec.proj.weight,b.0,b.1,b.2,b.3,b.4"
}

@test "a cache made inside __call__ is named by the attribute path that holds it" {
  cat >cache.tg <<'TG'
class Attn:
  def __init__(self): self.wq = nn.Linear(4, 4, bias=False)
  def __call__(self, x):
    if not hasattr(self, "cache_kv"): self.cache_kv = Tensor.zeros(2, 4).contiguous().realize()
    self.cache_kv.assign(self.cache_kv + self.wq(x)).realize()
    return self.cache_kv.sum()
class Model:
  def __init__(self): self.blocks = [Attn()]
  def __call__(self, x): return self.blocks[0](x)
m = Model()
output("y", m(input("x", (2, 4))))
TG
  expect_eq "$(state_names cache.tg)" "blocks.0.cache_kv" # (wq.weight is not realized: no state)
}
