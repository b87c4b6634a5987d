"""The lab's network written in PyTorch, to compare CPU speed with the burn
model side by side (`stratego bench model` prints the burn figures).

Same architecture as model/src/network.rs: a Linear projection of each of the
92 square tokens plus a learned position embedding, a learned value token,
a pre-LayerNorm transformer encoder (GELU FFN, dropout 0), a final LayerNorm,
a policy head q_src . k_dst / sqrt(d) gathered into 1800 action ids and
masked, a loss/draw/win value head and a 12-type belief head; the training
step is forward + the same three cross-entropies + backward + AdamW.

usage: python3 benches/torch_reference.py [--batch 64] [--iterations 5]
Prints `NAME: NUMBER UNIT` lines like the Rust benchmarks.
"""
import argparse
import math
import statistics
import time

import torch
from torch import nn

PRESETS = {"tiny": (32, 2, 2, 64), "small": (128, 4, 4, 512)}
LAKES = {42, 43, 46, 47, 52, 53, 56, 57}
TOKEN_CELLS = [c for c in range(100) if c not in LAKES]
CELL_TOKEN = {c: t for t, c in enumerate(TOKEN_CELLS)}


def decode(action):
    """The engine's action encoding (docs/CONTRACT.md)."""
    channel, src = divmod(action, 100)
    row, col = divmod(src, 10)
    if channel < 9:
        dst = (channel + (channel >= row)) * 10 + col
    else:
        c = channel - 9
        dst = row * 10 + c + (c >= col)
    return src, dst


def action_pairs():
    index, valid = [], []
    for a in range(1800):
        src, dst = decode(a)
        ok = src in CELL_TOKEN and dst in CELL_TOKEN
        index.append(CELL_TOKEN[src] * 92 + CELL_TOKEN[dst] if ok else 0)
        valid.append(ok)
    return torch.tensor(index), torch.tensor(valid)


class Net(nn.Module):
    def __init__(self, channels, d, layers, heads, ffn):
        super().__init__()
        self.embed = nn.Linear(channels, d)
        self.position = nn.Parameter(torch.randn(92, d) * 0.1)
        self.value_token = nn.Parameter(torch.randn(1, d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.final_norm = nn.LayerNorm(d)
        self.query, self.key = nn.Linear(d, d), nn.Linear(d, d)
        self.value_head, self.belief_head = nn.Linear(d, 3), nn.Linear(d, 12)
        self.cells = torch.tensor(TOKEN_CELLS)
        self.pair_index, self.on_board = action_pairs()
        self.d = d

    def forward(self, planes, legal):
        b = planes.shape[0]
        squares = planes.transpose(1, 2)[:, self.cells]
        x = self.embed(squares) + self.position
        x = torch.cat([x, self.value_token.expand(b, 1, self.d)], 1)
        h = self.final_norm(self.encoder(x))
        sq, v = h[:, :92], h[:, 92]
        pair = (self.query(sq) @ self.key(sq).transpose(1, 2)) / math.sqrt(self.d)
        logits = pair.reshape(b, -1)[:, self.pair_index]
        logits = logits.masked_fill(~(legal & self.on_board), -1e9)
        return logits, self.value_head(v), self.belief_head(sq)


def batch(b, channels):
    g = torch.Generator().manual_seed(1)
    planes = torch.rand(b, channels, 100, generator=g)
    legal = torch.rand(b, 1800, generator=g) < 0.02
    legal[:, 0] = True
    target = legal.float() / legal.float().sum(1, keepdim=True)
    outcome = torch.full((b,), 2)
    belief = torch.randint(0, 12, (b, 92), generator=g)
    belief_weight = (torch.rand(b, 92, generator=g) < 0.3).float()
    return planes, legal, target, outcome, belief, belief_weight


def loss_fn(out, target, outcome, belief, weight):
    logits, value, belief_logits = out
    policy = -(torch.log_softmax(logits, 1) * target).sum(1).mean()
    value_loss = nn.functional.cross_entropy(value, outcome)
    ce = nn.functional.cross_entropy(belief_logits.reshape(-1, 12), belief.reshape(-1), reduction="none")
    belief_loss = (ce * weight.reshape(-1)).sum() / weight.sum().clamp_min(1)
    return policy + value_loss + 0.5 * belief_loss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--threads", type=int, default=0, help="intra-op threads (0: PyTorch's default, one per core)")
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    channels = 58
    for name, (d, layers, heads, ffn) in PRESETS.items():
        torch.manual_seed(0)
        net = Net(channels, d, layers, heads, ffn)
        planes, legal, target, outcome, belief, weight = batch(args.batch, channels)
        times = []
        with torch.no_grad():
            for i in range(args.iterations + 1):
                start = time.perf_counter()
                net(planes, legal)[0].sum().item()
                if i:
                    times.append(time.perf_counter() - start)
        print(f"torch {name} compact forward (cpu, batch {args.batch}): {args.batch / statistics.median(times):.1f} samples/s")
        optim = torch.optim.AdamW(net.parameters(), lr=1e-4)
        times = []
        for i in range(args.iterations + 1):
            start = time.perf_counter()
            optim.zero_grad()
            loss = loss_fn(net(planes, legal), target, outcome, belief, weight)
            loss.backward()
            optim.step()
            loss.item()
            if i:
                times.append(time.perf_counter() - start)
        print(f"torch {name} compact train step (cpu, batch {args.batch}): {args.batch / statistics.median(times):.1f} samples/s")
    print(f"torch threads: {torch.get_num_threads()} threads")


if __name__ == "__main__":
    main()
