"""One small call of every CUDA kernel family, forward and backward, for compute-sanitizer.

scripts/sanitize.sh runs this under memcheck, racecheck, synccheck and initcheck; the kernels'
correctness is the tests' job, this file only has to reach every kernel (the Hopper and the
mma.sync flash kernels, dropout, split-KV with its combine, the decode kernel on dense and paged
caches, varlen, deterministic mode, head dims between the kernels', GQA, mem_eff with a bias
and its gradient, fp32) with shapes that leave partial tiles at every edge. The cases of head
dims or dtypes this build left out are skipped and named. Prints each case as it starts, so a
report can be placed. --planted makes one read of memory nothing wrote instead, for
sanitize.sh to check that initcheck reports it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import torch

import flash_ext
from flash_ext.dispatch import FLASH_DTYPE_NAMES, AttentionCall, explain_call

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_decode import paged  # noqa: E402


def not_built(backend: str, dtype: torch.dtype, head_dim: int) -> list[str]:
    """Why this build cannot run a plain call of the backend (dispatch's reasons; [] if it can)."""
    call = AttentionCall(device_type="cuda", dtype=dtype, head_dim=head_dim,
                         compute_capability=torch.cuda.get_device_capability())
    return explain_call(call, backend).reasons[backend]


def tensors(*shapes, dtype, grad=True):
    return [torch.randn(*s, device="cuda", dtype=dtype, requires_grad=grad) for s in shapes]


def forward_backward(fn, inputs, grad=True):
    """fn(*inputs) -> out or (out, lse); the backward of out's sum when grad."""
    result = fn(*inputs)
    out = result[0] if isinstance(result, tuple) else result
    if grad:
        torch.autograd.grad(out.float().sum(), [t for t in inputs if t.requires_grad])


def attention(**kwargs):
    return lambda q, k, v: flash_ext.attention(q, k, v, return_lse=True, **kwargs)


def kvcache(page: int, window_size=(-1, -1)):
    """flash_attn_with_kvcache on (B, S, Hkv, D) caches: the query's tokens appended after
    lengths (0, S - Sq, ...), causal (and window_size); as shuffled pages of `page` tokens (0:
    dense), with one split and with the split count the op chooses."""
    def run(q, k_cache, v_cache):
        batch, seqlen, heads_kv, head_dim = k_cache.shape
        new = q.shape[1]
        lengths = torch.tensor([0, seqlen - new, seqlen // 2][:batch], dtype=torch.int32,
                               device=q.device)
        k_new, v_new = (torch.randn(batch, new, heads_kv, head_dim, device=q.device,
                                    dtype=q.dtype) for _ in range(2))
        kwargs = dict(cache_seqlens=lengths, causal=True, window_size=window_size)
        if page:
            k_cache, table = paged(k_cache, page, torch.Generator().manual_seed(0))
            v_cache, _ = paged(v_cache, page, torch.Generator().manual_seed(0))
            kwargs["block_table"] = table
        for splits in (1, 0):
            out = flash_ext.flash_attn_with_kvcache(q, k_cache, v_cache, k_new, v_new,
                                                    num_splits=splits, **kwargs)
        return out

    return run


def flash_cases(dtype):
    """(name, head dim, sm80 only, fn, input shapes, grad) of the flash backend."""
    b, hq, hkv = 2, 4, 2
    for head_dim in (40, 64, 96, 128, 256):
        for causal in (False, True):
            yield (f"D={head_dim} causal={causal} gqa", head_dim, attention(
                is_causal=causal, enable_gqa=True, backend="flash"),
                [(b, hq, 77, head_dim), (b, hkv, 130, head_dim), (b, hkv, 130, head_dim)], True)
    shapes = [(b, hq, 90, 64), (b, hq, 150, 64), (b, hq, 150, 64)]
    yield "D=64 dropout", 64, attention(dropout_p=0.2, backend="flash"), shapes, True
    yield "D=64 deterministic", 64, attention(deterministic=True, backend="flash"), shapes, True
    # A window (no causal mask): the ordered additions' rising walk, each head's key blocks
    # started from the last.
    yield ("D=64 deterministic window", 64, attention(
        deterministic=True, window_size=(40, 10), backend="flash"), shapes, True)
    # More than four waves of causal CTAs: the head-major grid, each CTA a key block and its
    # mirror (3 key blocks a head: the middle one alone).
    yield ("D=128 causal paired key blocks", 128, attention(is_causal=True, backend="flash"),
           [(8, 32, 300, 128), (8, 32, 300, 128), (8, 32, 300, 128)], True)
    # v's head dim of its own (DeepSeek-V3's 192 / 128): Hopper kernels only.
    yield ("D=192 Dv=128 causal gqa", 192, attention(is_causal=True, enable_gqa=True,
                                                     backend="flash"),
           [(b, hq, 77, 192), (b, hkv, 130, 192), (b, hkv, 130, 128)], True)
    yield ("D=64 window alibi softcap", 64, attention(
        window_size=(20, 5), softcap=30.0, alibi_slopes=torch.rand(hq, device="cuda"),
        backend="flash"), shapes, True)
    yield ("D=128 split-KV decode", 128, attention(backend="flash"),
           [(b, hq, 1, 128), (b, hq, 3000, 128), (b, hq, 3000, 128)], False)

    # The decode kernel: pages of 16 tokens read through the block table's window (refilled
    # within a CTA: one split over 4.8k tokens) and then split with the combine, two row tiles,
    # the append; a dense cache with GQA.
    yield ("D=128 kvcache paged16 two row tiles", 128, kvcache(16),
           [(2, 2, 32, 128), (2, 4800, 2, 128), (2, 4800, 2, 128)], False)
    yield ("D=64 kvcache dense", 64, kvcache(0),
           [(3, 1, 8, 64), (3, 1000, 2, 64), (3, 1000, 2, 64)], False)
    # A window whose first key is not a multiple of 16: the keys of its first slot before it
    # read as zeros.
    yield ("D=128 kvcache paged48 window", 128, kvcache(48, window_size=(37, 0)),
           [(2, 1, 8, 128), (2, 960, 2, 128), (2, 960, 2, 128)], False)

    lengths = [0, 1, 70, 129]
    cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32,
                      device="cuda")

    def varlen(q, k, v):
        return flash_ext.attention_varlen(q, k, v, cu, cu, max(lengths), max(lengths),
                                          is_causal=True, backend="flash")

    total = sum(lengths)
    yield ("D=64 varlen causal", 64, varlen,
           [(total, hq, 64), (total, hq, 64), (total, hq, 64)], True)


def mem_eff_cases():
    """(name, fn, inputs) of the mem_eff backend: bias with gradient, bool mask, fp32, odd D."""
    b, h = 2, 3

    def run(**kwargs):
        return lambda q, k, v: flash_ext.attention(q, k, v, return_lse=True, backend="mem_eff",
                                                   **kwargs)

    for dtype, head_dim in ((torch.float32, 100), (torch.bfloat16, 64), (torch.float16, 136)):
        q, k, v = tensors((b, h, 77, head_dim), (b, h, 130, head_dim), (b, h, 130, head_dim),
                          dtype=dtype)
        bias = torch.randn(b, 1, 77, 130, device="cuda", dtype=dtype, requires_grad=True)

        def with_bias(q, k, v, bias):
            return flash_ext.attention(q, k, v, attn_mask=bias, backend="mem_eff")

        yield f"{dtype} D={head_dim} bias grad", with_bias, [q, k, v, bias]
        yield f"{dtype} D={head_dim} causal", run(is_causal=True), [q, k, v]
        mask = torch.rand(77, 130, device="cuda") > 0.3
        yield f"{dtype} D={head_dim} bool mask dropout", run(attn_mask=mask, dropout_p=0.1), [
            q, k, v]
        yield f"{dtype} D={head_dim} deterministic", run(deterministic=True), [q, k, v]
    # v's head dim of its own (DeepSeek-V3's 192 / 128): the kernels predicate v, out and dO by it.
    q, k, v = tensors((b, h, 77, 192), (b, h, 130, 192), (b, h, 130, 128), dtype=torch.bfloat16)
    yield "torch.bfloat16 D=192 Dv=128 causal", run(is_causal=True), [q, k, v]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="", help="regex: run only the matching case names")
    parser.add_argument("--planted", action="store_true",
                        help="only read device memory nothing wrote, which initcheck must report "
                        "(sanitize.sh's proof that the tools see this process's kernels)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("sanitize_cases.py: no CUDA device", file=sys.stderr)
        return 2
    if args.planted:
        # The process's first allocation: a fresh cudaMalloc'd block, never written.
        print("planted:", torch.empty(1024, device="cuda").sum().item(), flush=True)
        return 0
    selected = re.compile(args.cases)
    torch.manual_seed(0)
    ran = 0
    for dtype in (torch.float16, torch.bfloat16):
        for name, head_dim, fn, shapes, grad in flash_cases(dtype):
            for sm80 in (False, True):
                if sm80 and shapes[2][-1] != shapes[0][-1]:
                    continue  # no sm80 kernel for a v head dim of its own
                label = f"flash {FLASH_DTYPE_NAMES[dtype]} {name}{' sm80' if sm80 else ''}"
                if not selected.search(label):
                    continue
                if reasons := not_built("flash", dtype, head_dim):
                    print(f"skip {label}: {'; '.join(reasons)}", flush=True)
                    continue
                os.environ["FLASH_EXT_SM80_KERNELS"] = "1" if sm80 else "0"
                print(f"case {label}", flush=True)
                forward_backward(fn, tensors(*shapes, dtype=dtype, grad=grad), grad)
                torch.cuda.synchronize()
                ran += 1
    os.environ.pop("FLASH_EXT_SM80_KERNELS", None)
    if reasons := not_built("mem_eff", torch.float32, 64):
        print(f"skip mem_eff: {'; '.join(reasons)}", flush=True)
    else:
        for name, fn, inputs in mem_eff_cases():
            label = f"mem_eff {name}"
            if selected.search(label):
                print(f"case {label}", flush=True)
                forward_backward(fn, inputs)
                torch.cuda.synchronize()
                ran += 1
    print(f"done: {ran} cases", flush=True)
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())
