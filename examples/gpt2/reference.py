#!/usr/bin/env python3
# decode.tg's model run by tinygrad 0.9.1 itself, as examples/gpt2.py runs GPT-2: the prompt fed
# one token per step, then greedy tokens, a KV cache per layer and a bound Variable start_pos.
# It prints the generated ids as decode.sh does, so the two can be compared (run with CLANG=1):
#
#   CLANG=1 python examples/gpt2/reference.py [--logits FILE.npy] N TOKEN...
#
# --logits saves the last step's logits. The model is decode.tg's, line for line: the same
# seed and the same order of realizes give the same random weights.
import sys, numpy as np
from tinygrad import Tensor, Variable, dtypes, nn

VOCAB, DIM, N_HEADS, N_LAYERS, MAX_CONTEXT = 128, 64, 4, 2, 32

class Attention:
  def __init__(self, dim, n_heads):
    self.c_attn = nn.Linear(dim, 3 * dim)
    self.c_proj = nn.Linear(dim, dim)
    self.n_heads, self.dim, self.head_dim = n_heads, dim, dim // n_heads

  def __call__(self, x, start_pos):
    xqkv = self.c_attn(x)
    xq, xk, xv = [xqkv.shrink((None, None, (i * self.dim, (i + 1) * self.dim))).reshape(None, None, self.n_heads, self.head_dim) for i in range(3)]
    bsz, seqlen, _, _ = xq.shape
    if not hasattr(self, "cache_kv"):
      self.cache_kv = Tensor.zeros(2, bsz, MAX_CONTEXT, self.n_heads, self.head_dim).contiguous().realize()
    self.cache_kv.shrink((None, None, (start_pos, start_pos + seqlen), None, None)).assign(Tensor.stack(xk, xv)).realize()
    keys = self.cache_kv[0].shrink((None, (0, start_pos + seqlen), None, None))
    values = self.cache_kv[1].shrink((None, (0, start_pos + seqlen), None, None))
    xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
    return self.c_proj(xq.scaled_dot_product_attention(keys, values).transpose(1, 2).reshape(bsz, seqlen, self.dim))

class FeedForward:
  def __init__(self, dim, hidden_dim):
    self.c_fc = nn.Linear(dim, hidden_dim)
    self.c_proj = nn.Linear(hidden_dim, dim)
  def __call__(self, x): return self.c_proj(self.c_fc(x).gelu())

class TransformerBlock:
  def __init__(self, dim, n_heads):
    self.attn = Attention(dim, n_heads)
    self.mlp = FeedForward(dim, 4 * dim)
    self.ln_1, self.ln_2 = nn.LayerNorm(dim, 1e-5), nn.LayerNorm(dim, 1e-5)
  def __call__(self, x, start_pos):
    h = x + self.attn(self.ln_1(x), start_pos)
    return h + self.mlp(self.ln_2(h))

class Transformer:
  def __init__(self, dim, n_heads, n_layers, vocab_size, max_seq_len):
    self.wte = nn.Embedding(vocab_size, dim)
    self.wpe = nn.Embedding(max_seq_len, dim)
    self.h = [TransformerBlock(dim, n_heads) for _ in range(n_layers)]
    self.ln_f = nn.LayerNorm(dim, 1e-5)
    self.lm_head = nn.Linear(dim, vocab_size, bias=False)

  def __call__(self, tokens, start_pos):
    seqlen = tokens.shape[1]
    pos = Tensor.arange(MAX_CONTEXT).reshape(1, -1).shrink((None, (start_pos, start_pos + seqlen)))
    h = self.wte(tokens) + self.wpe(pos)
    for block in self.h: h = block(h, start_pos)
    return self.lm_head(self.ln_f(h))[:, -1, :]

if __name__ == "__main__":
  argv, logits_file = sys.argv[1:], None
  if argv[:1] == ["--logits"]: logits_file, argv = argv[1], argv[2:]
  n_new, prompt = int(argv[0]), [int(t) for t in argv[1:]]
  Tensor.manual_seed(1337)
  model = Transformer(DIM, N_HEADS, N_LAYERS, VOCAB, MAX_CONTEXT)
  for w in nn.state.get_state_dict(model).values(): w.realize()
  assert 0 < len(prompt) and len(prompt) + n_new <= MAX_CONTEXT
  tok, generated = prompt[0], []
  for p in range(len(prompt) + n_new - 1):
    start_pos = Variable("start_pos", 0, MAX_CONTEXT - 1).bind(p)
    logits = model(Tensor([[tok]], dtype=dtypes.int32), start_pos).realize()
    nxt = int(logits.argmax(-1).item())
    if p + 1 < len(prompt): tok = prompt[p + 1]  # still reading the prompt: its next token, not ours
    else: tok = nxt; generated.append(nxt)
  if logits_file: np.save(logits_file, logits.numpy())
  print(" ".join(map(str, generated)))
