"""A transformer block trained with its sequence sharded over the ranks: the attention runs as
flash_ext.distributed.ring_attention, everything else (norms, projections, MLP) acts on each
rank's rows alone. Checks the sharded block against the same block on the whole sequence in one
process (output and parameter gradients) and prints the largest differences.

    torchrun --standalone --nproc-per-node 2 examples/ring_attention_block.py            # CPU, gloo
    torchrun --standalone --nproc-per-node 2 examples/ring_attention_block.py --device cuda  # NCCL

Position-dependent parts (RoPE, ALiBi) must use global positions: shard(torch.arange(S), dim=0)
gives each rank its rows' positions under the layout.
"""

from __future__ import annotations

import argparse
import os
import sys

import torch
import torch.distributed as dist
from torch import nn

import flash_ext
from flash_ext.distributed import ring_attention, shard, unshard


class Block(nn.Module):
    """Pre-norm attention (GQA, causal) and MLP; `attention(q, k, v)` on (B, H, S, D)."""

    def __init__(self, width: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, width // heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv = nn.Linear(width, (heads + 2 * kv_heads) * self.head_dim, bias=False)
        self.proj = nn.Linear(width, width, bias=False)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor, attention) -> torch.Tensor:
        batch, seqlen, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(
            [self.heads * self.head_dim, self.kv_heads * self.head_dim,
             self.kv_heads * self.head_dim], dim=-1)
        q, k, v = (t.view(batch, seqlen, -1, self.head_dim).transpose(1, 2) for t in (q, k, v))
        x = x + self.proj(attention(q, k, v).transpose(1, 2).reshape(batch, seqlen, width))
        return x + self.mlp(self.norm2(x))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--layout", default="zigzag", choices=("contiguous", "zigzag"))
    parser.add_argument("--seqlen", type=int, default=256)
    args = parser.parse_args()
    dist.init_process_group("nccl" if args.device == "cuda" else "gloo")
    rank = dist.get_rank()
    device = torch.device(args.device, int(os.environ.get("LOCAL_RANK", 0))) \
        if args.device == "cuda" else torch.device("cpu")
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    torch.manual_seed(0)  # the same weights and data on every rank
    block = Block(width=128, heads=4, kv_heads=2).to(device, dtype)
    x = torch.randn(2, args.seqlen, 128, device=device, dtype=dtype)
    grad = torch.randn_like(x)

    ring_options = {}
    if args.device == "cuda":  # the forward's exchanges on 4 CTAs, its kernels leaving 4 SMs free
        options = dist.ProcessGroupNCCL.Options()
        options.config.max_ctas = 4
        ring_options = {"forward_group": dist.new_group(backend="nccl", pg_options=options),
                        "sm_margin": 4}

    def ring(q, k, v):
        return ring_attention(q, k, v, is_causal=True, enable_gqa=True, layout=args.layout,
                              **ring_options)

    out = block(shard(x, layout=args.layout, dim=1), ring)
    out.backward(shard(grad, layout=args.layout, dim=1))
    out = unshard(out.detach(), layout=args.layout, dim=1)
    grads = [p.grad.clone() for p in block.parameters()]
    for g in grads:  # each rank holds its rows' share of every parameter gradient
        dist.all_reduce(g)

    block.zero_grad()
    whole = block(x, lambda q, k, v: flash_ext.attention(q, k, v, is_causal=True, enable_gqa=True))
    whole.backward(grad)
    out_err = (out - whole.detach()).abs().max().item()
    grad_err = max((g - p.grad).abs().max().item() / max(p.grad.abs().max().item(), 1e-12)
                   for g, p in zip(grads, block.parameters()))
    tolerance = 2e-2 if dtype == torch.bfloat16 else 1e-4
    ok = out_err <= tolerance and grad_err <= tolerance
    if rank == 0:
        print(f"ring attention block, {dist.get_world_size()} ranks, {args.layout}, "
              f"S={args.seqlen}: max |out diff| {out_err:.2e}, max relative parameter gradient "
              f"diff {grad_err:.2e} (tolerance {tolerance:.0e}): {'ok' if ok else 'MISMATCH'}")
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
