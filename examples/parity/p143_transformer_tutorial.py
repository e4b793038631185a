# Adapted from "Language Modeling with nn.Transformer": positional encoding as a buffer,
# an Embedding + TransformerEncoder model with the square subsequent mask, a few training
# steps with SGD, StepLR and clip_grad_norm_ (dropout on: PyTorch's draws), evaluation,
# a decoder layer and nn.Transformer; float64 throughout.
import math
import warnings

import torch
from torch import nn, Tensor
from torch.nn import TransformerEncoder, TransformerEncoderLayer

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.5):
        super().__init__()
        self.model_type = 'Transformer'
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src, src_mask=None):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        output = self.linear(output)
        return output


ntokens, emsize, d_hid, nlayers, nhead, dropout = 20, 16, 32, 2, 2, 0.2
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = TransformerModel(ntokens, emsize, nhead, d_hid, nlayers, dropout)
print([str(w.message) for w in caught])
print(model)
print(sum(p.numel() for p in model.parameters()))
print(nn.Transformer.generate_square_subsequent_mask(4))
data = torch.randint(0, ntokens, (9, 3))
criterion = nn.CrossEntropyLoss()
lr = 5.0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
bptt = 4


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


model.train()
for epoch in range(2):
    total_loss = 0.
    for batch, i in enumerate(range(0, data.size(0) - 1, bptt)):
        inp, targets = get_batch(data, i)
        output = model(inp)
        output_flat = output.view(-1, ntokens)
        loss = criterion(output_flat, targets)
        optimizer.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total_loss += loss.item()
        print(f"| epoch {epoch:3d} | batch {batch:3d} | lr {scheduler.get_last_lr()[0]:02.2f} "
              f"| loss {loss.item():5.4f} | grad norm {norm.item():.4f} | "
              f"ppl {math.exp(loss.item()):8.3f}")
    scheduler.step()
model.eval()
with torch.no_grad():
    inp, targets = get_batch(data, 0)
    out = model(inp)
    print(out.shape, f"{criterion(out.view(-1, ntokens), targets).item():.6f}")

dec = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
memory = torch.rand(5, 2, 8)
tgt = torch.rand(3, 2, 8)
print(dec(tgt, memory)[0])
pre = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=True, activation="gelu",
                                 batch_first=True)
print(pre(torch.rand(2, 3, 8))[1])
t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                   dim_feedforward=16, dropout=0.0)
src, tg = torch.rand(4, 2, 8), torch.rand(3, 2, 8)
out = t(src, tg, tgt_mask=t.generate_square_subsequent_mask(3))
(out * torch.arange(8.0)).sum().backward()   # (a plain sum of a LayerNorm has zero gradient)
print(out[2], t.decoder.layers[0].multihead_attn.in_proj_weight.grad[0, :4])
print(type(t.encoder.layers[0]).__name__, len(t.decoder.layers), t.encoder.norm)
