"""flash_attn_with_kvcache against reference.py: dense and paged caches, appends (across pages),
rotary in both layouts, cache_leftpad, cache_batch_idx, GQA, window, softcap, ALiBi, the cache's
contents after the append, and argument errors on the CPU; on CUDA the decode kernel that reads
the cache in place (kvcache.py's route) by the float64 rule over the same features, sinks and
several row tiles and splits."""

from __future__ import annotations

import re
import subprocess
import sys
import zlib

import pytest
import torch

import flash_ext
from flash_ext import kvcache
from flash_ext.rotary import apply_rotary_emb
from flash_ext.reference import attention_ref
from attention_check import assert_rule, run_cpu_check, script_env
from flash_cases import require_kernel

HEAD_DIM = 16


def expected(q, k_cache, v_cache, k, v, lengths, leftpad, rows, cos, sin, interleaved, causal,
             window, compute_dtype=torch.float64, **options):
    """(out (B, Sq, Hq, D) float64, lse (B, Hq, Sq), the dense cache after the append): the
    cache written row by row, then attention_ref on each sequence's keys."""
    k_cache, v_cache = k_cache.clone(), v_cache.clone()
    batch, seqlen_q = q.shape[:2]
    new = 0 if k is None else k.shape[1]
    outs, lses = [], []
    for b in range(batch):
        start, end, row = int(leftpad[b]), int(lengths[b]) + new, int(rows[b])
        qb = q[b:b + 1]
        if cos is not None:
            pos = int(lengths[b]) - start
            if k is not None:
                kb = apply_rotary_emb(k[b:b + 1], cos, sin, interleaved, seqlen_offsets=pos)[0]
                k_cache[row, int(lengths[b]):end] = kb
            if causal or window != (-1, -1):
                qb = apply_rotary_emb(qb, cos, sin, interleaved, seqlen_offsets=pos)
            else:
                qb = torch.cat([apply_rotary_emb(qb[:, i:i + 1], cos, sin, interleaved,
                                                 seqlen_offsets=pos) for i in range(seqlen_q)], 1)
        elif k is not None:
            k_cache[row, int(lengths[b]):end] = k[b]
        if v is not None:
            v_cache[row, int(lengths[b]):end] = v[b]
        keys, values = k_cache[row:row + 1, start:end], v_cache[row:row + 1, start:end]
        slopes = options.get("alibi_slopes")
        opts = dict(options, alibi_slopes=None if slopes is None else slopes[b:b + 1])
        out, lse = attention_ref(qb.transpose(1, 2), keys.transpose(1, 2),
                                 values.transpose(1, 2), bottom_right=True,
                                 window_size=(window[0], 0 if causal else window[1]),
                                 compute_dtype=compute_dtype, **opts)
        outs.append(out.transpose(1, 2))
        lses.append(lse)
    return torch.cat(outs), torch.cat(lses), k_cache, v_cache


def paged(cache: torch.Tensor, page: int, generator: torch.Generator):
    """A dense (B, S, H, D) cache as shuffled pages of `page` tokens and its block_table."""
    batch, seqlen = cache.shape[:2]
    per_seq = seqlen // page
    order = torch.randperm(batch * per_seq, generator=generator)
    pages = torch.empty(batch * per_seq, page, *cache.shape[2:], dtype=cache.dtype)
    pages[order] = cache.reshape(batch * per_seq, page, *cache.shape[2:])
    return pages, order.view(batch, per_seq).to(torch.int32)


def check_paged_append(q, k, v, k_cache, v_cache, lengths, page, device):
    """flash_attn_with_kvcache of q (causal) with the new k, v appended at `lengths`, on `device`,
    against k_cache / v_cache as shuffled pages of `page` tokens: out by the float64 rule, the
    keys in the pages afterwards exactly. Returns the pages and the block table."""
    batch = q.shape[0]
    args = (q, k_cache, v_cache, k, v, lengths, torch.zeros(batch), torch.arange(batch), None,
            None, False, True, (-1, -1))
    ref64, _, k_after, _ = expected(*args)
    ref_lowp, *_ = expected(*args, compute_dtype=None)
    pages_k, table = paged(k_cache, page, torch.Generator().manual_seed(3))
    pages_v, _ = paged(v_cache, page, torch.Generator().manual_seed(3))
    pages_k, pages_v, table = pages_k.to(device), pages_v.to(device), table.to(device)
    out = flash_ext.flash_attn_with_kvcache(q.to(device), pages_k, pages_v, k.to(device),
                                            v.to(device), cache_seqlens=lengths.to(device),
                                            block_table=table, causal=True)
    assert out.dtype == q.dtype
    assert_rule("out", out.cpu(), ref64, ref_lowp)
    assert torch.equal(pages_k[table.long()].reshape(k_cache.shape).cpu(), k_after)
    return pages_k, pages_v, table


@pytest.mark.parametrize("layout", ["dense", "paged16", "paged32"])
@pytest.mark.parametrize("rotary", [None, "interleaved", "halves"])
@pytest.mark.parametrize("causal", [False, True])
def test_append_and_attend(layout, rotary, causal):
    g = torch.Generator().manual_seed(zlib.crc32(f"{layout}{rotary}{causal}".encode()))
    batch, seqlen_q, new, heads_q, heads_kv, capacity = 3, 3, 3, 4, 2, 64
    q = torch.randn(batch, seqlen_q, heads_q, HEAD_DIM, generator=g)
    k, v = (torch.randn(batch, new, heads_kv, HEAD_DIM, generator=g) for _ in range(2))
    k_cache, v_cache = (torch.randn(batch, capacity, heads_kv, HEAD_DIM, generator=g)
                        for _ in range(2))
    lengths = torch.tensor([0, 14, 61], dtype=torch.int32)  # empty, mid-page, full after append
    leftpad = torch.tensor([0, 5, 0], dtype=torch.int32)
    cos = sin = None
    if rotary:
        theta = torch.rand(capacity, 6, generator=g) * 6.28  # rotary_dim 12 < head_dim
        cos, sin = theta.cos(), theta.sin()
    rows = torch.arange(batch)
    out_ref, lse_ref, k_after, v_after = expected(
        q, k_cache, v_cache, k, v, lengths, leftpad, rows, cos, sin, rotary == "interleaved",
        causal, (-1, -1))
    kwargs = dict(rotary_cos=cos, rotary_sin=sin, cache_seqlens=lengths, cache_leftpad=leftpad,
                  causal=causal, rotary_interleaved=rotary == "interleaved",
                  return_softmax_lse=True)
    if layout == "dense":
        out, lse = flash_ext.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, **kwargs)
        got_k, got_v = k_cache, v_cache
    else:
        page = int(layout.removeprefix("paged"))
        # The same page order for both: one block_table.
        kp, table = paged(k_cache, page, torch.Generator().manual_seed(1))
        vp, _ = paged(v_cache, page, torch.Generator().manual_seed(1))
        out, lse = flash_ext.flash_attn_with_kvcache(q, kp, vp, k, v, block_table=table, **kwargs)
        got_k = kp[table.long()].reshape(k_cache.shape)
        got_v = vp[table.long()].reshape(v_cache.shape)
    torch.testing.assert_close(out.double(), out_ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(lse.double(), lse_ref.double(), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got_k, k_after, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(got_v, v_after, atol=0, rtol=0)


@pytest.mark.parametrize("features", ["window_softcap", "alibi", "batch_idx_no_append"])
def test_features(features):
    g = torch.Generator().manual_seed(7)
    batch, heads = 2, 4
    q = torch.randn(batch, 2, heads, HEAD_DIM, generator=g)
    k_cache, v_cache = (torch.randn(5, 40, 1, HEAD_DIM, generator=g) for _ in range(2))  # MQA
    k, v = (torch.randn(batch, 2, 1, HEAD_DIM, generator=g) for _ in range(2))
    lengths = torch.tensor([9, 30], dtype=torch.int32)
    rows = torch.tensor([4, 1])
    options, window, kwargs = {}, (-1, -1), {"cache_batch_idx": rows.to(torch.int32)}
    if features == "window_softcap":
        window, options = (6, 0), {"softcap": 2.0}
        kwargs.update(window_size=window, softcap=2.0)
    elif features == "alibi":
        slopes = torch.rand(batch, heads, generator=g)
        options = {"alibi_slopes": slopes}
        kwargs.update(alibi_slopes=slopes, causal=True)
    else:
        k = v = None
    out_ref, _, k_after, _ = expected(q, k_cache, v_cache, k, v, lengths, torch.zeros(batch),
                                      rows, None, None, False, features == "alibi", window,
                                      **options)
    out = flash_ext.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=lengths,
                                            **kwargs)
    torch.testing.assert_close(out.double(), out_ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(k_cache, k_after, atol=0, rtol=0)


def test_int_cache_seqlens_and_decode_loop():
    """Token by token decoding against one attention over the whole sequence."""
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(1, 6, 2, HEAD_DIM, generator=g) for _ in range(3))
    k_cache, v_cache = torch.zeros(1, 8, 2, HEAD_DIM), torch.zeros(1, 8, 2, HEAD_DIM)
    outs = [flash_ext.flash_attn_with_kvcache(q[:, i:i + 1], k_cache, v_cache, k[:, i:i + 1],
                                              v[:, i:i + 1], cache_seqlens=i, causal=True)
            for i in range(6)]
    full = flash_ext.flash_attn_func(q, k, v, causal=True)
    torch.testing.assert_close(torch.cat(outs, 1), full)


def test_errors():
    q, cache = torch.randn(2, 1, 2, HEAD_DIM), torch.randn(2, 8, 2, HEAD_DIM)
    with pytest.raises(ValueError, match=r"cache_seqlens \+ seqlen_new <= the cache's 8 tokens"):
        flash_ext.flash_attn_with_kvcache(q, cache, cache.clone(), q, q, cache_seqlens=8)
    with pytest.raises(ValueError, match="k and v go together"):
        flash_ext.flash_attn_with_kvcache(q, cache, cache.clone(), k=q)
    with pytest.raises(ValueError, match=r"block_table must be \(2, max_blocks_per_seq\) int32"):
        flash_ext.flash_attn_with_kvcache(q, cache, cache.clone(),
                                          block_table=torch.zeros(2, 1, dtype=torch.int64))
    # A page or cache row outside the cache, among those in use: named, not an IndexError.
    pages = torch.randn(4, 4, 2, HEAD_DIM)
    table = torch.tensor([[0, 1], [2, 9]], dtype=torch.int32)
    with pytest.raises(ValueError, match=r"block_table holds 9, outside the cache's 4 pages"):
        flash_ext.flash_attn_with_kvcache(q, pages, pages.clone(), cache_seqlens=6,
                                          block_table=table)
    flash_ext.flash_attn_with_kvcache(q, pages, pages.clone(), cache_seqlens=4,
                                      block_table=table)  # page 9 not in use
    with pytest.raises(ValueError, match=r"cache_batch_idx holds -1, outside the cache's 2 rows"):
        flash_ext.flash_attn_with_kvcache(q, cache, cache.clone(), cache_seqlens=3,
                                          cache_batch_idx=torch.tensor([0, -1]))
    for bad in (-1, 2.0, True):
        with pytest.raises(ValueError, match=r"num_splits must be an int >= 0 \(0: the kernel "
                                             r"chooses\), got " + re.escape(repr(bad))):
            flash_ext.flash_attn_with_kvcache(q, cache, cache.clone(), num_splits=bad)


@pytest.mark.parametrize("page", [16, 64])
def test_varlen_block_table(page):
    """flash_attn_varlen_func with block_table (prefill, and chunked prefill: fewer queries than
    keys) equals the call on the same keys packed densely."""
    g = torch.Generator().manual_seed(page)
    lengths_k, lengths_q = [70, 0, 33], [70, 0, 5]
    capacity = 128
    dense_k, dense_v = (torch.randn(3, capacity, 2, HEAD_DIM, generator=g) for _ in range(2))
    pages_k, table = paged(dense_k, page, torch.Generator().manual_seed(2))
    pages_v, _ = paged(dense_v, page, torch.Generator().manual_seed(2))
    q = torch.randn(sum(lengths_q), 4, HEAD_DIM, generator=g)
    cu_q = torch.tensor([0, 70, 70, 75], dtype=torch.int32)
    cu_k = torch.tensor([0, 70, 70, 103], dtype=torch.int32)
    k = torch.cat([dense_k[b, :n] for b, n in enumerate(lengths_k)])
    v = torch.cat([dense_v[b, :n] for b, n in enumerate(lengths_k)])
    out = flash_ext.flash_attn_varlen_func(q, pages_k, pages_v, cu_q, cu_k, 70, 70, causal=True,
                                           block_table=table)
    want = flash_ext.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 70, 70, causal=True)
    torch.testing.assert_close(out, want, atol=0, rtol=0)
    with pytest.raises(ValueError, match=f"70 tokens, more than the {page} that block_table's"):
        flash_ext.flash_attn_varlen_func(q, pages_k, pages_v, cu_q, cu_k, 70, 70,
                                         block_table=table[:, :1].contiguous())


def test_attention_varlen_block_table():
    g = torch.Generator().manual_seed(5)
    dense_k, dense_v = (torch.randn(2, 32, 2, HEAD_DIM, generator=g) for _ in range(2))
    pages_k, table = paged(dense_k, 16, torch.Generator().manual_seed(4))
    pages_v, _ = paged(dense_v, 16, torch.Generator().manual_seed(4))
    q = torch.randn(40, 2, HEAD_DIM, generator=g)
    cu = torch.tensor([0, 17, 40], dtype=torch.int32)
    k, v = (torch.cat([t[0, :17], t[1, :23]]) for t in (dense_k, dense_v))
    out = flash_ext.attention_varlen(q, pages_k, pages_v, cu, cu, 23, 23, is_causal=True,
                                     block_table=table)
    torch.testing.assert_close(out, flash_ext.attention_varlen(q, k, v, cu, cu, 23, 23,
                                                               is_causal=True), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("head_dim", [64, 80])
def test_half_dtypes_page_256(dtype, head_dim):
    """A paged cache of 256-token pages in bf16/fp16 (head dim 80: no flash kernel of its own),
    by the float64 rule: |out - ref64| <= 2 |ref_lowp - ref64| + eps."""
    g = torch.Generator().manual_seed(head_dim)
    batch, capacity = 2, 512
    q = torch.randn(batch, 4, 8, head_dim, generator=g).to(dtype)
    k, v = (torch.randn(batch, 4, 2, head_dim, generator=g).to(dtype) for _ in range(2))
    k_cache, v_cache = (torch.randn(batch, capacity, 2, head_dim, generator=g).to(dtype)
                        for _ in range(2))
    lengths = torch.tensor([254, 300], dtype=torch.int32)  # the first append crosses a page
    check_paged_append(q, k, v, k_cache, v_cache, lengths, 256, "cpu")


def test_bench_decode_runs(tmp_path):
    """benchmarks/bench_decode.py end to end on the CPU (tiny shapes): dense and paged flash_ext
    and SDPA agree (exit status 0), and the table comes out."""
    run_cpu_check("bench_decode.py", tmp_path)
    table = next(tmp_path.glob("decode_*.md")).read_text()
    assert "| Sq=4 B=3 S=80 Hq=4 Hkv=2 D=16 |" in table
    assert "flash_ext_paged16" in table and "%) (!)" not in table


# (name, heads_q, heads_kv, seqlen_q, head_dim, options): the decode kernel's cases on CUDA.
KERNEL_CASES = [
    ("dense_gqa", 8, 2, 1, 128, {}),
    ("paged16_mqa_causal", 16, 1, 4, 64, {"causal": True}),
    ("paged48_window", 8, 8, 2, 128, {"causal": True, "window_size": (40, 0)}),
    # 3 tokens x 8 heads a kv head: one CTA of two row tiles, the second partial.
    ("paged16_two_row_tiles", 16, 2, 3, 128, {"causal": True}),
    # 5 tokens x 8 heads a kv head: two CTAs of two row tiles; leftpad and cache rows.
    ("batch_idx_leftpad_tiles", 32, 4, 5, 128, {"causal": True, "leftpad": True}),
    ("paged256_softcap_sinks", 8, 2, 1, 256, {"softcap": 30.0, "sinks": True}),
    # Leftpad mid-page with pages of 16; the entries past each sequence's last page hold pages
    # outside the cache (unused: never checked or followed).
    ("paged16_leftpad_unused_entries", 8, 2, 1, 128, {"leftpad": True, "unused_entries": True}),
    # Unused entries without leftpad (the first split's window starts at entry 0), and the table
    # a column slice of a wider one: its rows further apart than their entries, garbage between.
    ("paged16_unused_entries_sliced_table", 8, 2, 1, 128, {"causal": True,
                                                           "unused_entries": True,
                                                           "sliced_table": True}),
    ("dense_d80_no_append", 4, 2, 3, 80, {"causal": True, "no_append": True}),
    # Longer than the kernel's window of 256 block-table entries (4096 tokens at page 16): the
    # window refilled within a CTA, with one split and with three whose bounds fall mid-window.
    ("paged16_long_one_split", 16, 2, 3, 128, {"causal": True, "capacity": 12000,
                                                "num_splits": 1}),
    # Page 48 (not a power of two) and a window starting mid-page, three splits.
    ("paged48_long_window", 4, 4, 1, 64, {"window_size": (9000, 0), "capacity": 20016,
                                          "num_splits": 3}),
    # More splits asked for than the 12 tiles of 64 keys: capped at 12; sinks joined in the
    # combine.
    ("paged32_splits_capped", 8, 2, 2, 128, {"causal": True, "sinks": True, "capacity": 768,
                                             "num_splits": 1000}),
    # Grids of several waves (40 sequences of random lengths, 0, 1 and full among them), some
    # CTAs' keys fewer than their ring of stages: two row tiles, dense and paged with leftpad
    # and sinks; one row tile with three splits under a window.
    ("dense_waves_two_row_tiles", 64, 8, 4, 128, {"causal": True, "batch": 40,
                                                   "capacity": 1024}),
    ("paged16_waves_leftpad_sinks", 64, 8, 4, 128, {"causal": True, "batch": 40,
                                                     "capacity": 1024, "leftpad": True,
                                                     "sinks": True}),
    ("paged48_waves_splits_window", 32, 8, 1, 128, {"window_size": (100, 0), "batch": 40,
                                                     "capacity": 1008, "num_splits": 3}),
    # Keys growing along the cache (x0.25 to x6): a row's softmax base moves many times after
    # its first keys (by more than the kernel's slack of 8 in log2 units), O rescaled then.
    ("paged16_growing_scores", 8, 2, 2, 128, {"causal": True, "growing": True}),
    ("dense_growing_scores_splits", 16, 2, 1, 64, {"growing": True, "num_splits": 2}),
]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("case", KERNEL_CASES, ids=[c[0] for c in KERNEL_CASES])
def test_cuda_decode_kernel(case, dtype):
    """The decode kernel's out, lse and the appended cache against the float64 reference, with
    lengths from empty to full and a capacity of several splits."""
    name, heads_q, heads_kv, seqlen_q, head_dim, options = case
    require_kernel(head_dim, dtype)
    options = dict(options)
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    batch, new = options.pop("batch", 3), 0 if options.pop("no_append", False) else seqlen_q
    capacity = options.pop("capacity", 1536)
    q = torch.randn(batch, seqlen_q, heads_q, head_dim, generator=g).to(dtype)
    k, v = (torch.randn(batch, new, heads_kv, head_dim, generator=g).to(dtype) for _ in range(2))
    rows = torch.tensor([4, 0, 2]) if name.startswith("batch_idx") else torch.arange(batch)
    k_cache, v_cache = (torch.randn(int(rows.max()) + 1, capacity, heads_kv, head_dim,
                                    generator=g).to(dtype) for _ in range(2))
    if options.pop("growing", False):
        k_cache = (k_cache * torch.linspace(0.25, 6.0, capacity)[None, :, None, None]).to(dtype)
    if batch == 3:
        lengths = torch.tensor([0, 700, capacity - new], dtype=torch.int32)
        starts = torch.tensor([0, 33, 500])
    else:
        lengths = torch.randint(0, capacity - new + 1, (batch,), generator=g, dtype=torch.int32)
        lengths[:4] = torch.tensor([0, capacity - new, 1, 70])
        starts = (torch.rand(batch, generator=g) * (lengths + new)).long()
    leftpad = starts if options.pop("leftpad", False) else torch.zeros(batch)
    sinks = torch.randn(heads_q, generator=g) if options.pop("sinks", False) else None
    causal, window = options.pop("causal", False), options.pop("window_size", (-1, -1))
    num_splits = options.pop("num_splits", 0)
    unused_entries = options.pop("unused_entries", False)
    sliced_table = options.pop("sliced_table", False)
    ref_options = dict(options, sinks=sinks)
    args = (q, k_cache, v_cache, k if new else None, v if new else None, lengths, leftpad, rows,
            None, None, False, causal, window)
    ref64, lse64, k_after, v_after = expected(*args, **ref_options)
    ref_lowp, lse_lowp, *_ = expected(*args, compute_dtype=None, **ref_options)

    cuda = {"q": q.cuda(), "k_cache": k_cache.cuda(), "v_cache": v_cache.cuda()}
    kwargs = dict(cache_seqlens=lengths.cuda(), causal=causal, window_size=window,
                  return_softmax_lse=True, learnable_sink=None if sinks is None else sinks.cuda(),
                  num_splits=num_splits, **options)
    if new:
        kwargs.update(k=k.cuda(), v=v.cuda())
    if leftpad.any():
        kwargs["cache_leftpad"] = leftpad.to(torch.int32).cuda()
    if name.startswith("batch_idx"):
        kwargs["cache_batch_idx"] = rows.to(torch.int32).cuda()
    if name.startswith("paged"):
        page = int(name.removeprefix("paged").split("_")[0])
        pages_k, table = paged(k_cache, page, torch.Generator().manual_seed(0))
        pages_v, _ = paged(v_cache, page, torch.Generator().manual_seed(0))
        cuda.update(k_cache=pages_k.cuda(), v_cache=pages_v.cuda())
        table = table.cuda()
        kwargs["block_table"] = table
        if unused_entries:
            in_use = (lengths.cuda() + new + page - 1) // page
            past = torch.arange(table.shape[1], device="cuda")[None, :] >= in_use[:, None]
            kwargs["block_table"] = table.masked_fill(past, 1 << 30)
        if sliced_table:
            wider = torch.full((batch, table.shape[1] + 40), -7, dtype=torch.int32, device="cuda")
            wider[:, :table.shape[1]] = kwargs["block_table"]
            kwargs["block_table"] = wider[:, :table.shape[1]]
    assert kvcache._kernel_runs(cuda["q"], cuda["k_cache"], cuda["v_cache"], None,
                                kwargs.get("block_table"))
    if batch > 3:  # more CTAs than fit at once
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        assert batch * heads_kv * max(num_splits, 1) > 2 * sms
    out, lse = flash_ext.flash_attn_with_kvcache(**cuda, **kwargs)
    assert out.dtype == dtype and out.shape == q.shape
    assert_rule("out", out.cpu(), ref64, ref_lowp)
    assert_rule("lse", lse.cpu(), lse64, lse_lowp.float(), eps=1e-3)
    if name.startswith("paged"):
        got_k = cuda["k_cache"][table.long()].reshape(batch, -1, heads_kv, head_dim).cpu()
        assert torch.equal(got_k, k_after[:, :got_k.shape[1]])
    else:
        assert torch.equal(cuda["k_cache"].cpu(), k_after)
        assert torch.equal(cuda["v_cache"].cpu(), v_after)


@pytest.mark.gpu
def test_cuda_pages_of_24_tokens():
    """Pages that are not a multiple of 16 tokens (a key slot of the decode kernel would span
    two): the call gathers the keys instead (right answer, appends across pages), and the op
    itself refuses them by name."""
    require_kernel(128, torch.bfloat16)
    g = torch.Generator().manual_seed(24)
    batch, heads_q, heads_kv, capacity = 2, 8, 2, 96
    q = torch.randn(batch, 1, heads_q, 128, generator=g).bfloat16()
    k, v = (torch.randn(batch, 1, heads_kv, 128, generator=g).bfloat16() for _ in range(2))
    k_cache, v_cache = (torch.randn(batch, capacity, heads_kv, 128, generator=g).bfloat16()
                        for _ in range(2))
    lengths = torch.tensor([23, 70], dtype=torch.int32)  # the first append opens a page
    pages_k, pages_v, table = check_paged_append(q, k, v, k_cache, v_cache, lengths, 24, "cuda")
    assert not kvcache._kernel_runs(q.cuda(), pages_k, pages_v, None, table)
    with pytest.raises(RuntimeError, match="page_size must be a multiple of 16 tokens"):
        torch.ops.flash_ext.kvcache_fwd(q.cuda(), pages_k, pages_v, None, None, lengths.cuda(),
                                        0, None, None, table, 0.1, -1, 0, 0.0, None)


@pytest.mark.gpu
def test_cuda_decode_kernel_one_split():
    """Enough (sequence, kv head) pairs to fill the GPU without splitting the keys: the kernel
    writes out and lse itself (sinks joined there), no combine pass."""
    require_kernel(128, torch.bfloat16)
    g = torch.Generator().manual_seed(11)
    batch, heads_q, heads_kv, seqlen_q, capacity = 48, 16, 8, 2, 256
    assert batch * heads_kv >= 2 * torch.cuda.get_device_properties(0).multi_processor_count
    q = torch.randn(batch, seqlen_q, heads_q, 128, generator=g).bfloat16()
    k, v = (torch.randn(batch, seqlen_q, heads_kv, 128, generator=g).bfloat16() for _ in range(2))
    k_cache, v_cache = (torch.randn(batch, capacity, heads_kv, 128, generator=g).bfloat16()
                        for _ in range(2))
    lengths = torch.randint(0, capacity - seqlen_q + 1, (batch,), generator=g, dtype=torch.int32)
    sinks = torch.randn(heads_q, generator=g)
    args = (q, k_cache, v_cache, k, v, lengths, torch.zeros(batch), torch.arange(batch), None,
            None, False, True, (-1, -1))
    ref64, lse64, k_after, _ = expected(*args, sinks=sinks)
    ref_lowp, lse_lowp, *_ = expected(*args, compute_dtype=None, sinks=sinks)
    k_cuda, v_cuda = k_cache.cuda(), v_cache.cuda()
    out, lse = flash_ext.flash_attn_with_kvcache(
        q.cuda(), k_cuda, v_cuda, k.cuda(), v.cuda(), cache_seqlens=lengths.cuda(), causal=True,
        learnable_sink=sinks.cuda(), return_softmax_lse=True)
    assert_rule("out", out.cpu(), ref64, ref_lowp)
    assert_rule("lse", lse.cpu(), lse64, lse_lowp.float(), eps=1e-3)
    assert torch.equal(k_cuda.cpu(), k_after)


@pytest.mark.gpu
def test_cuda_decode_kernel_no_host_sync_and_opcheck():
    """A decoding step with cache_seqlens on the device runs without waiting for the GPU (the
    append and the checks of the indices too), so that a loop of them queues ahead; the op
    passes torch.library.opcheck (its mutations declared, its fake implementation)."""
    require_kernel(128, torch.bfloat16)
    q = torch.randn(2, 1, 8, 128, device="cuda", dtype=torch.bfloat16)
    k_cache, v_cache = (torch.randn(2, 256, 2, 128, device="cuda", dtype=torch.bfloat16)
                        for _ in range(2))
    new = q[:, :, :2]
    lengths = torch.tensor([10, 200], dtype=torch.int32, device="cuda")
    flash_ext.flash_attn_with_kvcache(q, k_cache, v_cache, new, new, cache_seqlens=lengths,
                                      causal=True)  # warm-up
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        flash_ext.flash_attn_with_kvcache(q, k_cache, v_cache, new, new, cache_seqlens=lengths,
                                          causal=True)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    torch.library.opcheck(torch.ops.flash_ext.kvcache_fwd,
                          (q, k_cache, v_cache, new, new, lengths, 0, None, None, None, 0.1, -1, 0,
                           0.0, None))


BAD_INDEX_SCRIPT = """
import sys, torch, flash_ext
q = torch.randn(2, 1, 4, 128, device="cuda", dtype=torch.bfloat16)
pages = torch.randn(8, 16, 2, 128, device="cuda", dtype=torch.bfloat16)
table = torch.tensor([[0, 1], [2, int(sys.argv[1])]], dtype=torch.int32, device="cuda")
lengths = torch.tensor([20, int(sys.argv[2])], dtype=torch.int32, device="cuda")
flash_ext.flash_attn_with_kvcache(q, pages, pages.clone(), cache_seqlens=lengths,
                                  block_table=table)
torch.cuda.synchronize()
"""


@pytest.mark.gpu
@pytest.mark.parametrize("page, length, message", [
    (99, 20, "a block_table entry in use lies outside"),
    (3, 33, "cache_seqlens must be >= 0 with cache_seqlens + seqlen_new"),
])
def test_cuda_decode_kernel_bad_indices(page, length, message):
    """A page outside the cache, or a sequence longer than its pages, stops the kernel with a
    device-side assertion that names it, never an illegal memory access (in a child process:
    the CUDA context does not survive it)."""
    require_kernel(128, torch.bfloat16)
    run = subprocess.run([sys.executable, "-c", BAD_INDEX_SCRIPT, str(page), str(length)],
                         capture_output=True, text=True, timeout=300, env=script_env())
    output = run.stdout + run.stderr
    assert run.returncode != 0, output
    assert message in output and "illegal memory access" not in output, output[-3000:]
