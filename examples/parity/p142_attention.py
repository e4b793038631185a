# Attention as the docs show it: scaled_dot_product_attention (causal, boolean and float
# masks, scale), nn.MultiheadAttention (its repr and parameters, batch_first, key padding
# masks, per-head weights, need_weights=False, unbatched inputs, cross-attention), and
# gradients through both, in float64.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
q = torch.randn(2, 3, 4, 8, requires_grad=True)
k = torch.randn(2, 3, 5, 8, requires_grad=True)
v = torch.randn(2, 3, 5, 8)
out = F.scaled_dot_product_attention(q, k, v)
print(out.shape, out.grad_fn.name(), [type(f).__name__ if f else None
                                      for f, _ in out.grad_fn.next_functions])
print(out[0, 0])
sq = torch.randn(1, 4, 6)
print(F.scaled_dot_product_attention(sq, sq, sq, is_causal=True))
mask = torch.tensor([[True, True, False, True, False]] * 4)
print(F.scaled_dot_product_attention(q, k, v, attn_mask=mask)[1, 2])
print(F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(4, 5), scale=0.5)[0, 1, 0])
out.sum().backward()
print(q.grad[0, 0, 0], k.grad[1, 2, 4])
try:
    F.scaled_dot_product_attention(sq, sq, sq, attn_mask=torch.ones(4, 4, dtype=torch.bool),
                                   is_causal=True)
except RuntimeError as e:
    print("RuntimeError:", e)

embed_dim, num_heads = 8, 2
mha = nn.MultiheadAttention(embed_dim, num_heads)
print(mha)
print([(n, tuple(p.shape)) for n, p in mha.named_parameters()])
print(mha.head_dim, mha.batch_first, mha.in_proj_bias.sum().item(), mha.in_proj_weight[0, :3])
x = torch.randn(4, 2, embed_dim)
attn_output, attn_output_weights = mha(x, x, x)
print(attn_output.shape, attn_output_weights.shape, attn_output.grad_fn.name(),
      attn_output_weights.grad_fn.name())
print(attn_output[0], attn_output_weights[0])
kpm = torch.tensor([[False, False, True, True], [False, False, False, True]])
o2, w2 = mha(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
print(w2.shape, w2[0, 1], o2[1, 1])
causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
o3, w3 = mha(x, x, x, attn_mask=causal)
print(w3[1])
o4, w4 = mha(x, x, x, need_weights=False)
print(w4, (o4 - attn_output).abs().max() < 1e-12)
mem = torch.randn(6, 2, embed_dim)
o5, w5 = mha(x, mem, mem)
print(o5.shape, w5.shape, o5[2, 0])
bf = nn.MultiheadAttention(embed_dim, 4, batch_first=True)
xb = torch.randn(2, 4, embed_dim)
o6, w6 = bf(xb, xb, xb)
print(o6.shape, w6.shape, o6.grad_fn.name())
o7, w7 = bf(xb[0], xb[0], xb[0])
print(o7.shape, w7.shape, (o7 - o6[0]).abs().max() < 1e-12)
loss = o6.pow(2).sum() + o5.sum()
loss.backward()
print(bf.in_proj_weight.grad[:2, :4], bf.out_proj.bias.grad)
print(mha.out_proj.weight.grad is None, mha.in_proj_bias.grad[:4])
print(sum(p.numel() for p in bf.parameters()), list(bf.state_dict().keys()))
try:
    nn.MultiheadAttention(8, 3)
except AssertionError as e:
    print("AssertionError:", e)
