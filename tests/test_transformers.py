"""flash_ext as a Hugging Face transformers attention implementation (integrations/transformers.py)
on the CPU: tiny random-weight Llama, Mistral (sliding window), Gemma 2 (sliding and global
layers, softcap, custom scaling), Gemma 3 (sliding and global layers), Qwen 2 and gpt-oss
(sliding and full layers, learnable attention sinks) models built from configs, against the same weights with attn_implementation="eager" in float32: logits and
parameter gradients of padded batches (left and right padding) and of packed sequences
(position_ids), a chunk after a cache, greedy generate() with dynamic and static caches; the
paths taken (varlen, no 4-D mask, no repeat_kv), dropout, the mask function, what is not
supported, registration names. Continuous batching ("paged|" + name): the paged attention
function against the float64 reference on a stand-in for transformers' paged cache (padded as
for CUDA graphs, and replayed in one on the GPU), and generate_batch() with Llama, Mistral and
Qwen 2 against transformers' "paged|eager" (transformers 5.0 to 5.18 only: later versions refuse
registered implementations in continuous batching)."""

from __future__ import annotations

import copy
import inspect
import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch
from attention_check import assert_rule

transformers = pytest.importorskip("transformers")

import flash_ext
from flash_ext.integrations import transformers as flash_ext_hf
from flash_ext.reference import attention_varlen_ref

NAME = flash_ext_hf.register()
WINDOW = 5  # Mistral's and Gemma 2/3's sliding window: shorter than every sequence below
COMMON = {"num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 128,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 128,
          "initializer_range": 0.2}  # weights large enough for peaked attention
CONFIGS = {
    "llama": lambda: transformers.LlamaConfig(**COMMON),
    "mistral": lambda: transformers.MistralConfig(sliding_window=WINDOW, **COMMON),
    # layers alternate sliding and global; scaling = 1 / sqrt(query_pre_attn_scalar), not D's
    "gemma2": lambda: transformers.Gemma2Config(sliding_window=WINDOW, attn_logit_softcapping=2.0,
                                                query_pre_attn_scalar=8, **COMMON),
    "gemma3": lambda: transformers.Gemma3TextConfig(
        sliding_window=WINDOW, query_pre_attn_scalar=8,
        layer_types=["sliding_attention", "full_attention"], **COMMON),
    "qwen2": lambda: transformers.Qwen2Config(**COMMON),
    # sinks (s_aux) in every layer; a mixture of 4 experts, 2 per token
    "gpt_oss": lambda: transformers.GptOssConfig(
        sliding_window=WINDOW, layer_types=["sliding_attention", "full_attention"],
        num_local_experts=4, num_experts_per_tok=2, **COMMON),
}
# float32 on both sides: |x - eager| <= TOL * max|eager| elementwise; measured up to 1e-6 for
# logits and 3e-6 for gradients (float32 rounding, of eager's as much as flash_ext's)
TOL = 2e-5


def make_models(arch: str, **config_changes) -> tuple[torch.nn.Module, torch.nn.Module]:
    """(eager, flash_ext) models with the same random weights, in eval mode."""
    config = CONFIGS[arch]()
    for key, value in config_changes.items():
        setattr(config, key, value)
    # from_config sets the implementation on the config it is given: one copy per model
    eager = transformers.AutoModelForCausalLM.from_config(copy.deepcopy(config),
                                                          attn_implementation="eager")
    ours = transformers.AutoModelForCausalLM.from_config(copy.deepcopy(config),
                                                         attn_implementation=NAME)
    with torch.no_grad():  # attention sinks that take a sizeable share of the rows
        for name, param in eager.named_parameters():
            if name.endswith(".sinks"):
                param.normal_(1.0, 1.5)
    ours.load_state_dict(eager.state_dict())
    assert ours.config._attn_implementation == NAME
    assert eager.config._attn_implementation == "eager"
    return eager.eval(), ours.eval()


def padded_batch(lengths: list[int], side: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Random token ids (B, max(lengths)) and the padding mask, padded on `side`."""
    seqlen = max(lengths)
    ids = torch.randint(0, COMMON["vocab_size"], (len(lengths), seqlen))
    mask = torch.zeros(len(lengths), seqlen, dtype=torch.long)
    for b, n in enumerate(lengths):
        if side == "left":
            mask[b, seqlen - n:] = 1
        else:
            mask[b, :n] = 1
    return ids, mask


def assert_close(actual: torch.Tensor, expected: torch.Tensor, what: str = "") -> None:
    assert actual.shape == expected.shape, what
    scale = expected.abs().max()
    err = (actual - expected).abs().max()
    assert err <= TOL * scale, f"{what}: max |x - eager| {err:.3e} > {TOL:g} * {scale:.3e}"


def logits_and_grads(model, valid: torch.Tensor, weights: torch.Tensor, **inputs):
    """Logits at the valid positions and the gradients of a weighted sum of them."""
    model.zero_grad(set_to_none=True)
    logits = model(**inputs, use_cache=False).logits[valid]
    (logits * weights).sum().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return logits.detach(), grads


def assert_same_training_step(eager, ours, valid: torch.Tensor, **inputs) -> None:
    weights = torch.randn(int(valid.sum()), COMMON["vocab_size"])
    ref_logits, ref_grads = logits_and_grads(eager, valid, weights, **inputs)
    logits, grads = logits_and_grads(ours, valid, weights, **inputs)
    assert_close(logits, ref_logits, "logits")
    assert grads.keys() == ref_grads.keys()
    for name, grad in grads.items():
        assert_close(grad, ref_grads[name], f"gradient of {name}")
    assert any(g.abs().max() > 0 for n, g in grads.items() if "self_attn" in n)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("arch", list(CONFIGS))
def test_padded_batch_logits_and_grads(arch, side):
    eager, ours = make_models(arch)
    ids, mask = padded_batch([16, 11, 7], side)
    assert_same_training_step(eager, ours, mask.bool(), input_ids=ids, attention_mask=mask)


# gpt-oss's model builds its masks without position_ids: its eager attention runs across the
# packed sequences (flash_ext keeps them apart, as transformers' flash-attn path does).
@pytest.mark.parametrize("arch", [arch for arch in CONFIGS if arch != "gpt_oss"])
def test_packed_sequences_logits_and_grads(arch):
    """Rows holding several sequences each, delimited by position_ids restarting at 0, no mask
    (eager masks them from position_ids the same way)."""
    eager, ours = make_models(arch)
    lengths = [[7, 5, 4], [10, 6]]  # 16 tokens a row
    position_ids = torch.stack([torch.cat([torch.arange(n) for n in row]) for row in lengths])
    ids = torch.randint(0, COMMON["vocab_size"], position_ids.shape)
    valid = torch.ones_like(ids, dtype=torch.bool)
    assert_same_training_step(eager, ours, valid, input_ids=ids, position_ids=position_ids)


def test_packed_sequences_match_separate_runs():
    _, ours = make_models("mistral")
    lengths = [6, 9, 1]
    ids = torch.randint(0, COMMON["vocab_size"], (1, sum(lengths)))
    position_ids = torch.cat([torch.arange(n) for n in lengths])[None]
    with torch.no_grad():
        packed = ours(input_ids=ids, position_ids=position_ids, use_cache=False).logits
        alone = torch.cat([ours(input_ids=part, use_cache=False).logits
                           for part in ids.split(lengths, dim=1)], dim=1)
    assert_close(packed, alone, "logits")


def test_inference_mode():
    _, ours = make_models("llama")
    ids, mask = padded_batch([10, 7], "left")
    position_ids = torch.cat([torch.arange(4), torch.arange(6)])[None].expand(2, -1)
    for inputs in ({"attention_mask": mask}, {"position_ids": position_ids}):
        with torch.no_grad():
            expected = ours(input_ids=ids, use_cache=False, **inputs).logits
        with torch.inference_mode():
            actual = ours(input_ids=ids, use_cache=False, **inputs).logits
        torch.testing.assert_close(actual, expected, rtol=0, atol=0)


def test_flattened_kwargs_match_position_ids():
    """cu_seq_lens_q/k and max_length_q/k (DataCollatorWithFlattening's) give the sequences."""
    _, ours = make_models("llama")
    lengths = [5, 8, 3]
    ids = torch.randint(0, COMMON["vocab_size"], (1, sum(lengths)))
    position_ids = torch.cat([torch.arange(n) for n in lengths])[None]
    cu_seqlens = torch.tensor([0, 5, 13, 16], dtype=torch.int32)
    with torch.no_grad():
        by_positions = ours(input_ids=ids, position_ids=position_ids, use_cache=False).logits
        by_kwargs = ours(input_ids=ids, position_ids=position_ids, use_cache=False,
                         cu_seq_lens_q=cu_seqlens, cu_seq_lens_k=cu_seqlens, max_length_q=8,
                         max_length_k=8).logits
    torch.testing.assert_close(by_kwargs, by_positions, rtol=0, atol=0)


def generate(model, ids, mask, cache: str | None):
    out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=8, do_sample=False,
                         cache_implementation=cache, return_dict_in_generate=True,
                         output_logits=True, pad_token_id=0)
    return out.sequences, torch.stack(out.logits, dim=1)


@pytest.mark.parametrize("cache", ["dynamic", "static"])
@pytest.mark.parametrize("arch", list(CONFIGS))
def test_generate_greedy_matches_eager(arch, cache):
    """Prefill and 8 decode steps (past the sliding window), a left-padded batch and a batch
    without padding; the same tokens as eager and the same logits at every step."""
    eager, ours = make_models(arch)
    for lengths in ([9, 6], [9]):
        ids, mask = padded_batch(lengths, "left")
        ref_tokens, ref_logits = generate(eager, ids, mask, cache)
        tokens, logits = generate(ours, ids, mask, cache)
        assert torch.equal(tokens, ref_tokens)
        assert_close(logits, ref_logits, f"generate logits, lengths {lengths}")


@pytest.mark.parametrize(("side", "lengths"), [("left", [12, 2]), ("right", [12, 10])],
                         ids=["left", "right"])
@pytest.mark.parametrize("arch", ["llama", "gemma2"])
def test_chunk_after_cache_matches_eager(arch, side, lengths):
    """A second forward of several tokens against a DynamicCache (chunked prefill) where the
    shorter sequence's chunk holds padding (before its tokens, or after them), so the queries
    are unpadded too."""
    eager, ours = make_models(arch)
    ids, mask = padded_batch(lengths, side)
    chunk = 3
    logits = []
    for model in (eager, ours):
        cache = transformers.DynamicCache(config=model.config)
        cache_arg = "cache" if "cache" in inspect.signature(model.forward).parameters else (
            "past_key_values")  # transformers < 5.2x: past_key_values
        with torch.no_grad():
            model(input_ids=ids[:, :-chunk], attention_mask=mask[:, :-chunk], use_cache=True,
                  **{cache_arg: cache})
            out = model(input_ids=ids[:, -chunk:], attention_mask=mask, use_cache=True,
                        **{cache_arg: cache})
        logits.append(out.logits)
    valid = mask[:, -chunk:].bool()
    assert not valid.all()
    assert_close(logits[1][valid], logits[0][valid], "logits of the chunk")


class Spy:
    """Records the calls of flash_ext's entry points (the integration calls them through the
    flash_ext module)."""

    def __init__(self, monkeypatch):
        self.calls: list[tuple[str, dict]] = []
        for name in ("flash_attn_func", "flash_attn_varlen_func", "attention"):
            monkeypatch.setattr(flash_ext, name, self.wrap(name, getattr(flash_ext, name)))

    def wrap(self, name, fn):
        def spy(*args, **kwargs):
            self.calls.append((name, dict(args=args, **kwargs)))
            return fn(*args, **kwargs)

        return spy

    def names(self) -> set[str]:
        return {name for name, _ in self.calls}


def test_paths_varlen_for_padding_no_4d_mask_no_repeat_kv(monkeypatch):
    _, ours = make_models("llama")
    masks = []

    def recording(module, query, key, value, attention_mask, **kwargs):
        masks.append(None if attention_mask is None else tuple(attention_mask.shape))
        return flash_ext_hf.attention_forward(module, query, key, value, attention_mask, **kwargs)

    transformers.AttentionInterface.register(NAME, recording)
    try:
        spy = Spy(monkeypatch)
        ids, mask = padded_batch([12, 8], "left")
        with torch.no_grad():
            ours(input_ids=ids, attention_mask=mask, use_cache=False)
        assert masks == [(2, 12)] * 2  # the 2-D padding mask, as is
        assert spy.names() == {"flash_attn_varlen_func"}
        for _, call in spy.calls:
            q, k = call["args"][:2]
            assert (q.shape, k.shape) == ((20, 4, 16), (20, 2, 16))  # unpadded; Hkv = 2 heads
            assert call["causal"]
        spy.calls.clear()
        masks.clear()
        with torch.no_grad():
            ours(input_ids=ids, use_cache=False)  # no padding: no mask, dense calls
        assert masks == [None] * 2 and spy.names() == {"flash_attn_func"}
    finally:
        flash_ext_hf.register(NAME)


def test_window_softcap_scaling_reach_flash_ext(monkeypatch):
    _, ours = make_models("gemma2")
    spy = Spy(monkeypatch)
    with torch.no_grad():
        ours(input_ids=torch.randint(0, COMMON["vocab_size"], (1, 9)), use_cache=False)
    windows = [call["window_size"] for _, call in spy.calls]
    assert windows == [(WINDOW - 1, 0), (-1, -1)]  # Gemma 2: a sliding layer, then a global one
    for _, call in spy.calls:
        assert call["softcap"] == 2.0 and call["softmax_scale"] == pytest.approx(8 ** -0.5)


def test_dropout_in_training_only(monkeypatch):
    _, ours = make_models("llama", attention_dropout=0.5)
    spy = Spy(monkeypatch)
    ids = torch.randint(0, COMMON["vocab_size"], (2, 10))
    with torch.no_grad():
        evaluated = ours(input_ids=ids, use_cache=False).logits
    assert [call["dropout_p"] for _, call in spy.calls] == [0.0, 0.0]
    spy.calls.clear()
    ours.train()
    torch.manual_seed(1)
    trained = ours(input_ids=ids, use_cache=False).logits
    torch.manual_seed(1)
    again = ours(input_ids=ids, use_cache=False).logits
    assert [call["dropout_p"] for _, call in spy.calls] == [0.5] * 4
    assert not torch.allclose(trained, evaluated, atol=1e-3)
    torch.testing.assert_close(trained, again, rtol=0, atol=0)  # the generator's seed decides
    trained.sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in ours.parameters() if p.grad is not None)


@pytest.mark.parametrize("arch", ["qwen2", "gpt_oss"])
def test_custom_4d_mask_matches_eager(arch):
    """A 4-D additive mask of the caller's (here causal plus padding) is used as is."""
    eager, ours = make_models(arch)
    ids, mask = padded_batch([10, 6], "right")
    seqlen = ids.shape[1]
    visible = torch.ones(seqlen, seqlen).tril().bool()[None] & mask.bool()[:, None, :]
    additive = torch.zeros(visible.shape).masked_fill(~visible, torch.finfo(torch.float32).min)
    with torch.no_grad():
        ref = eager(input_ids=ids, attention_mask=additive[:, None], use_cache=False).logits
        out = ours(input_ids=ids, attention_mask=additive[:, None], use_cache=False).logits
    valid = mask.bool()
    assert_close(out[valid], ref[valid], "logits")


def test_padding_mask_function():
    mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]], dtype=torch.bool)
    full = torch.ones(2, 4, dtype=torch.bool)
    kw = {"batch_size": 2, "q_length": 1, "device": "cpu"}
    assert flash_ext_hf.padding_mask(kv_length=4, q_offset=3, attention_mask=full, **kw) is None
    assert flash_ext_hf.padding_mask(kv_length=4, q_offset=3, attention_mask=None, **kw) is None
    assert torch.equal(flash_ext_hf.padding_mask(kv_length=4, q_offset=3, attention_mask=mask,
                                                 **kw), mask)
    # a sliding-window layer whose cache keeps the last 3 keys
    assert torch.equal(flash_ext_hf.padding_mask(kv_length=3, q_offset=3, kv_offset=1,
                                                 attention_mask=mask, **kw), mask[:, 1:])
    # a static cache of 8 slots, 4 of them tokens, with and without a mask
    assert torch.equal(flash_ext_hf.padding_mask(kv_length=8, q_offset=3, attention_mask=mask,
                                                 **kw), mask)
    assert torch.equal(flash_ext_hf.padding_mask(kv_length=8, q_offset=torch.tensor(3),
                                                 attention_mask=None, **kw), full)
    # bidirectional masks (cross-attention to 8 encoder states): every key is a token
    assert flash_ext_hf.padding_mask(kv_length=8, attention_mask=None,
                                     allow_is_bidirectional_skip=True, **kw) is None


def test_chunked_attention_not_supported():
    config = transformers.LlamaConfig(**COMMON)
    config.attention_chunk_size = 8
    kw = {"batch_size": 1, "q_length": 8, "attention_mask": None, "config": config}
    assert flash_ext_hf.padding_mask(kv_length=8, **kw) is None  # one chunk: plain causal
    with pytest.raises(NotImplementedError, match="chunked attention"):
        flash_ext_hf.padding_mask(kv_length=9, **kw)


def test_gpt_oss_sinks_and_windows_reach_flash_ext(monkeypatch):
    _, ours = make_models("gpt_oss")
    spy = Spy(monkeypatch)
    with torch.no_grad():
        ours(input_ids=torch.randint(0, COMMON["vocab_size"], (1, 9)), use_cache=False)
    assert [call["window_size"] for _, call in spy.calls] == [(WINDOW - 1, 0), (-1, -1)]
    for (_, call), layer in zip(spy.calls, ours.model.layers):
        assert call["learnable_sink"] is layer.self_attn.sinks


@pytest.mark.parametrize("name", ["flash_ext", "flash_attention_2", "kernels-community/x",
                                  "paged|fext", "sdpa", "my_sdpa", "flex_attention", "eager",
                                  "", None])
def test_register_rejects_names_that_cannot_work(name):
    with pytest.raises(ValueError, match=f"name={name!r}".replace("|", r"\|")):
        flash_ext_hf.register(name)


def test_register_returns_usable_name():
    assert flash_ext_hf.register("fe_attention") == "fe_attention"
    model = transformers.AutoModelForCausalLM.from_config(CONFIGS["llama"](),
                                                          attn_implementation="fe_attention")
    assert model.config._attn_implementation == "fe_attention"


def test_import_flash_ext_does_not_import_transformers():
    code = ("import sys, flash_ext, flash_ext.integrations; "
            "assert 'transformers' not in sys.modules, 'transformers imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


# Continuous batching: paged_attention_forward, registered under "paged|" + name

PAGED_NAME = flash_ext_hf.PAGED_PREFIX + NAME
PAGED_WINDOW = 4  # the sliding layer's window in the paged tests


class PagedCacheStub:
    """transformers' PagedAttentionCache.update as of 5.0 to 5.18, over a cache of `slots`
    token slots per layer (the last one the trash, where padding goes): layer i belongs to
    group i, whose write_index and read_index it uses."""

    def __init__(self, layers: int, slots: int, heads_kv: int, head_dim: int, **like):
        self.keys = torch.randn(layers, slots, heads_kv, head_dim, **like)
        self.values = torch.randn(layers, slots, heads_kv, head_dim, **like)

    def update(self, key_states, value_states, layer_idx, read_index, write_index):
        keys, values = self.keys[layer_idx], self.values[layer_idx]
        keys.index_copy_(0, write_index[layer_idx], key_states[0].transpose(0, 1))
        values.index_copy_(0, write_index[layer_idx], value_states[0].transpose(0, 1))
        return keys[read_index[layer_idx]], values[read_index[layer_idx]]


def paged_step(cache: PagedCacheStub, past: list[int], new: list[int],
               padded: tuple[int, int, int, int] | None = None) -> tuple[dict, list[torch.Tensor]]:
    """transformers' keyword arguments for a step of requests with `past` cached and `new`
    tokens each, whose tokens lie in random slots of the cache: group 0 (full attention) reads
    every token, group 1 (sliding) the last PAGED_WINDOW - 1 cached ones and the new ones.
    padded = (sequences, query rows, full keys, sliding keys) pads the step to these as
    transformers does for CUDA graphs: empty sequences, rows read from and written to the
    trash, max_seqlen_q the padded rows. Returns the kwargs and each request's slots."""
    device = cache.keys.device
    trash = cache.keys.shape[1] - 1
    order = torch.randperm(trash, device=device)
    slots, writes, reads = [], [], ([], [])
    for p, n in zip(past, new):
        taken = sum(map(len, slots))
        slots.append(order[taken:taken + p + n])
        writes.append(slots[-1][p:])
        reads[0].append(slots[-1])
        reads[1].append(slots[-1][p - min(p, PAGED_WINDOW - 1):])
    lengths_q = list(new)
    lengths_k = [list(map(len, group)) for group in reads]
    writes, reads = torch.cat(writes), [torch.cat(group) for group in reads]
    max_seqlen_q = max(new)
    if padded is not None:
        sequences, rows_q, *rows_k = padded
        lengths_q += [0] * (sequences - len(new))
        lengths_k = [group + [0] * (sequences - len(new)) for group in lengths_k]
        writes = torch.cat([writes, writes.new_full((rows_q - len(writes),), trash)])
        reads = [torch.cat([r, r.new_full((rows - len(r),), trash)])
                 for r, rows in zip(reads, rows_k)]
        max_seqlen_q = rows_q

    def offsets(lengths):
        return torch.tensor([0, *lengths], device=device).cumsum(0).to(torch.int32)

    kwargs = {"cache": cache, "cu_seq_lens_q": offsets(lengths_q), "max_seqlen_q": max_seqlen_q,
              "cu_seq_lens_k": {"full_attention": offsets(lengths_k[0]),
                                "sliding_attention": offsets(lengths_k[1])},
              "max_seqlen_k": {"full_attention": max(lengths_k[0]),
                               "sliding_attention": max(lengths_k[1])},
              "read_index": reads, "write_index": [writes, writes]}
    return kwargs, slots


def paged_inputs(kwargs: dict, heads_q: int, heads_kv: int, head_dim: int, **like):
    """query (1, Hq, Tq, D), key and value (1, Hkv, Tq, D) of a step's query rows."""
    rows = len(kwargs["write_index"][0])
    return (torch.randn(1, heads_q, rows, head_dim, **like),
            *(torch.randn(1, heads_kv, rows, head_dim, **like) for _ in range(2)))


def assert_paged_step_matches_reference(out, query, cache, layer, slots, new, window, scale):
    """out (1, Tq, Hq, D): each request's queries against all its tokens in the cache (the new
    ones written by the step), causal bottom-right, within the window; padding rows finite."""
    q = query[0].transpose(0, 1)[:sum(new)]
    keys, values = (torch.cat([t[layer, s] for s in slots]) for t in (cache.keys, cache.values))
    cu_q = torch.tensor([0, *new]).cumsum(0)
    cu_k = torch.tensor([0, *map(len, slots)]).cumsum(0)
    options = {"is_causal": True, "bottom_right": True, "scale": scale,
               "window_size": (-1, -1) if window is None else (window - 1, 0)}
    ref64, _ = attention_varlen_ref(*(t.double() for t in (q, keys, values)), cu_q, cu_k,
                                    **options)
    ref_lowp, _ = attention_varlen_ref(q, keys, values, cu_q, cu_k, compute_dtype=None,
                                       **options)
    assert out.shape == (1, query.shape[2], query.shape[1], query.shape[3])
    assert_rule("out", out[0, :sum(new)], ref64, ref_lowp)
    assert torch.isfinite(out).all()  # outputs start as NaN (conftest): the padding rows too


PAGED_DEVICES = [("cpu", torch.float32), pytest.param("cuda", torch.float32, marks=pytest.mark.gpu),
                 pytest.param("cuda", torch.bfloat16, marks=pytest.mark.gpu)]


@pytest.mark.parametrize("padded", [False, True], ids=["exact", "padded"])
@pytest.mark.parametrize("layer", [0, 1], ids=["full", "sliding"])
@pytest.mark.parametrize(("device", "dtype"), PAGED_DEVICES)
def test_paged_attention_matches_reference(device, dtype, layer, padded):
    """A prefill, a decode and a chunk after a cache in one step, GQA 4/2; the full layer reads
    every token, the sliding one the last ones (its window - 1 and the new)."""
    like = {"device": device, "dtype": dtype}
    cache = PagedCacheStub(2, 64, 2, 16, **like)
    past, new = [0, 6, 13], [9, 1, 4]
    kwargs, slots = paged_step(cache, past, new, (5, 16, 40, 24) if padded else None)
    query, key, value = paged_inputs(kwargs, 4, 2, 16, **like)
    window = PAGED_WINDOW if layer == 1 else None
    out, weights = flash_ext_hf.paged_attention_forward(
        SimpleNamespace(layer_idx=layer), query, key, value, None, scaling=0.3,
        sliding_window=window, **kwargs)
    assert weights is None
    assert_paged_step_matches_reference(out, query, cache, layer, slots, new, window, 0.3)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_paged_attention_in_cuda_graph(dtype):
    """Captured once for a padded step, then replayed on the next step's indices and offsets
    (other requests, the same padded sizes), as transformers' continuous batching does: the
    offsets are extended inside the graph, per replay."""
    like = {"device": "cuda", "dtype": dtype}
    cache = PagedCacheStub(2, 64, 2, 16, **like)
    padded = (5, 16, 40, 24)
    kwargs, _ = paged_step(cache, [0, 6, 13], [9, 1, 4], padded)
    inputs = paged_inputs(kwargs, 4, 2, 16, **like)
    module = SimpleNamespace(layer_idx=0)

    def step():
        return flash_ext_hf.paged_attention_forward(module, *inputs, None, **kwargs)[0]

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()  # warm-up outside the graph, as transformers does before capturing
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = step()
    past, new = [2, 20], [1, 12]
    following, slots = paged_step(cache, past, new, padded)
    statics = [kwargs["cu_seq_lens_q"], *kwargs["cu_seq_lens_k"].values(),
               *kwargs["read_index"], *kwargs["write_index"], *inputs]
    values = [following["cu_seq_lens_q"], *following["cu_seq_lens_k"].values(),
              *following["read_index"], *following["write_index"],
              *paged_inputs(following, 4, 2, 16, **like)]
    for static, value in zip(statics, values):
        static.copy_(value)
    graph.replay()
    assert_paged_step_matches_reference(out, inputs[0], cache, 0, slots, new, None, None)


def test_paged_attention_needs_the_paged_cache():
    _, ours = make_models("llama")
    q = torch.randn(1, 4, 3, 16)
    k = v = torch.randn(1, 2, 3, 16)
    with pytest.raises(ValueError, match="paged cache"):
        flash_ext_hf.paged_attention_forward(ours.model.layers[0].self_attn, q, k, v, None)


def test_register_adds_the_paged_function():
    functions = transformers.AttentionInterface()
    assert functions[PAGED_NAME] is flash_ext_hf.paged_attention_forward
    assert functions[NAME] is flash_ext_hf.attention_forward


# transformers runs a registered "paged|" implementation in continuous batching from 5.0 to 5.18
# (checked on 5.17 and 5.18); 5.19 dropped "paged|" names but "paged|eager" and accepts only
# "paged|eager", "sdpa" and flash-attn's there. The test below sets the cache's size through
# ContinuousBatchingConfig, which 5.10 has and 5.0 does not.
TRANSFORMERS_VERSION = tuple(int(part) for part in transformers.__version__.split(".")[:2])
CB_RUNS_REGISTERED = (5, 10) <= TRANSFORMERS_VERSION < (5, 19)

CB_CONFIGS = {
    "llama": lambda: transformers.LlamaConfig(**{**COMMON, "num_key_value_heads": 4}),
    "mistral": CONFIGS["mistral"],  # GQA 4/2, every layer sliding
    # a sliding layer, then a full one: transformers passes the key offsets per layer type
    "qwen2": lambda: transformers.Qwen2Config(use_sliding_window=True, sliding_window=WINDOW,
                                              layer_types=["sliding_attention", "full_attention"],
                                              **COMMON),
}


def generate_batch(model, prompts: list[list[int]]) -> dict[str, list[int]]:
    config_fields = inspect.signature(transformers.ContinuousBatchingConfig).parameters
    page = "page_size" if "page_size" in config_fields else "block_size"  # 5.18 renamed it
    cb_config = transformers.ContinuousBatchingConfig(num_blocks=32, max_batch_tokens=64,
                                                      **{page: 16})
    generation = transformers.GenerationConfig(max_new_tokens=10, do_sample=False,
                                               eos_token_id=-1, pad_token_id=0)
    out = model.generate_batch(prompts, generation_config=generation,
                               continuous_batching_config=cb_config)
    return {request: output.generated_tokens for request, output in out.items()}


@pytest.mark.skipif(not CB_RUNS_REGISTERED, reason=(
    f"transformers {transformers.__version__}: continuous batching runs registered "
    "implementations in 5.0 to 5.18 only (later versions accept paged|eager, sdpa and "
    "flash-attn's); this test needs 5.10 to 5.18"))
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("arch", list(CB_CONFIGS))
def test_generate_batch_matches_paged_eager(arch, device, monkeypatch):
    """Four requests of 2 to 33 tokens, 10 greedy tokens each, pages of 16 tokens (sliding
    windows of 5): flash_ext ("paged|" + name; on CUDA under transformers' CUDA graphs, whose
    padding it covers) gives the tokens transformers' paged eager gives (float32 on both)."""
    if device == "cpu":  # without psutil transformers finds no free memory on the CPU
        from transformers.generation.continuous_batching import cache as paged_cache
        monkeypatch.setattr(paged_cache, "get_device_and_memory_breakdown",
                            lambda: (torch.device("cpu"), 8 << 30, 0, 0), raising=False)
    prompts = [torch.randint(1, COMMON["vocab_size"], (n,)).tolist() for n in (5, 17, 33, 2)]
    spy = Spy(monkeypatch)
    tokens = {}
    for name in ("paged|eager", PAGED_NAME):
        torch.manual_seed(0)  # the same weights
        model = transformers.AutoModelForCausalLM.from_config(CB_CONFIGS[arch](),
                                                              attn_implementation=name)
        tokens[name] = generate_batch(model.to(device).eval(), prompts)
        assert spy.names() == (set() if name == "paged|eager" else {"flash_attn_varlen_func"})
    assert all(call["causal"] for _, call in spy.calls)
    assert len(tokens[PAGED_NAME]) == len(prompts)
    assert tokens[PAGED_NAME] == tokens["paged|eager"]
