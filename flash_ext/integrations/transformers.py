"""flash_ext as a Hugging Face transformers attention implementation.

    from flash_ext.integrations import transformers as flash_ext_hf

    name = flash_ext_hf.register()   # "fext"
    model = AutoModelForCausalLM.from_pretrained(path, attn_implementation=name)

register() puts two functions in transformers' registries under one name:
`attention_forward` in AttentionInterface (what every attention layer calls) and `padding_mask`
in AttentionMaskInterface (what the model calls once per forward, instead of building a 4-D
mask). The name cannot contain "flash": transformers reads such a name as a FlashAttention
request and loads flash-attn, or a kernel of that name from the Hub, instead of the registered
function; register() says so for every name that cannot work.

The mask function hands each layer the keys' 2-D padding mask (batch, keys), or None when every
key is a token. The attention function then runs one of flash_ext's flash-attn entry points on
(B, S, H, D) views of the layer's (B, H, S, D) tensors, causal aligned bottom-right (the queries
are the last tokens of the keys, as with any cache), GQA native (no repeat_kv):
- no mask: `flash_attn_func`; when position_ids restart inside a row (packed sequences, no
  mask), or a flattening data collator passes cu_seq_lens_q/k, `flash_attn_varlen_func` over
  the sequences they delimit.
- a 2-D mask: the tokens it keeps, unpadded, through `flash_attn_varlen_func`, the output padded
  back with zeros. A mask narrower than the keys marks a static cache: the slots past it hold no
  token yet and are left out.
- a 4-D mask the caller built itself: `flash_ext.attention` with it as attn_mask.
What the padding mask or the position_ids imply (kept tokens, cu_seqlens, longest sequence) is
computed by the first layer and kept on that tensor for the others: one host sync per forward,
not one per layer.

The layer's `sliding_window` (Mistral, Gemma 2/3 local layers, gpt-oss's sliding layers: a
causal query sees itself and the sliding_window - 1 keys before it), `softcap` (Gemma 2),
`scaling`, `dropout` (training) and `s_aux` (gpt-oss's learnable attention sinks, one logit per
query head, with their gradient) are passed on. Not supported yet: chunked attention (Llama 4's
local layers, past one chunk) raises NotImplementedError; the attention weights are not returned
(None, as by transformers' own sdpa and flash-attn implementations).

Continuous batching (`generate_batch`, ContinuousBatchingManager): register() also puts
`paged_attention_forward` in AttentionInterface under "paged|" + name. transformers 5.0 to 5.18
run a model loaded with attn_implementation=name (or "paged|" + name) through it: they switch
the model to "paged|" + name for the batch, unless flash-attn is installed, in which case they
switch to it instead (load the model with "paged|" + name to keep flash_ext). That function gets
each step's new tokens packed in one row and transformers' PagedAttentionCache with the step's
write and read indices: cache.update writes the new keys and values into their pages and gathers
each request's cached and new keys back, and flash_attn_varlen_func attends over the requests.
transformers 5.19 and later no longer route "paged|" names to registered functions: their
continuous batching refuses any implementation but "paged|eager", "sdpa" and flash-attn's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

import flash_ext
from flash_ext.flash_attn.bert_padding import pad_input

#: The name register() uses unless given another.
DEFAULT_NAME = "fext"
#: What transformers' continuous batching puts before an implementation's name (5.0 to 5.18).
PAGED_PREFIX = "paged|"
# Names transformers implements itself, and substrings it reads as a request for one of them.
_BUILTIN_NAMES = ("eager", "sdpa", "flex_attention")


def register(name: str = DEFAULT_NAME) -> str:
    """Registers flash_ext with transformers under `name` and returns the name, for
    `from_pretrained(..., attn_implementation=name)` or `from_config(config,
    attn_implementation=name)`, and its continuous-batching function under "paged|" + name.
    Registering again replaces the previous registration."""
    problem = _name_problem(name)
    if problem is not None:
        raise ValueError(f"flash_ext cannot be registered with transformers under name={name!r}: "
                         f"{problem}. Use the default {DEFAULT_NAME!r} or another name.")
    from transformers.masking_utils import AttentionMaskInterface
    from transformers.modeling_utils import AttentionInterface

    AttentionInterface.register(name, attention_forward)
    AttentionInterface.register(PAGED_PREFIX + name, paged_attention_forward)
    AttentionMaskInterface.register(name, padding_mask)
    return name


def _name_problem(name: object) -> str | None:
    """Why transformers would not run the registered functions under `name`, or None."""
    if not isinstance(name, str) or not name:
        return "it must be a non-empty string"
    if "flash" in name:
        return ('transformers reads a name containing "flash" as a FlashAttention request and '
                "loads flash-attn or a Hub kernel of that name instead of the registered function")
    if "/" in name or ":" in name:
        return "transformers reads a name with '/' or ':' as a Hub kernel ('org/repo@rev:func')"
    if name.startswith(PAGED_PREFIX):
        return (f"the {PAGED_PREFIX!r} prefix selects transformers' paged attention (continuous "
                "batching), which register() adds itself")
    if any(builtin in name for builtin in _BUILTIN_NAMES):
        return (f"a name containing {', '.join(map(repr, _BUILTIN_NAMES))} replaces or is checked "
                "as transformers' own implementation of that name")
    return None


# The mask function (AttentionMaskInterface)


def padding_mask(batch_size: int, q_length: int, kv_length: int, q_offset: int | Tensor = 0,
                 kv_offset: int = 0, mask_function: Callable | None = None,
                 attention_mask: Tensor | None = None, device: torch.device | str | None = None,
                 **kwargs) -> Tensor | None:
    """The keys' padding mask (batch, keys) bool, True = a token, or None when every one of the
    kv_length keys is one. Called by transformers' create_*_mask once per forward and mask kind,
    with the user's 2-D mask over every position seen so far (attention_mask) and the layer's
    key window (kv_offset, kv_length); mask_function (the causal or sliding pattern) is left to
    attention_forward, which gets the layer's is_causal and sliding_window."""
    chunk = getattr(kwargs.get("config"), "attention_chunk_size", None)
    if chunk is not None and kv_offset + kv_length > chunk:
        raise NotImplementedError(
            f"flash_ext does not support chunked attention (attention_chunk_size={chunk}, as in "
            f"Llama 4) over more than one chunk ({kv_offset + kv_length} positions here); use "
            'attn_implementation="sdpa" or "flex_attention" for this model')
    if attention_mask is not None:
        mask = attention_mask[:, -kv_length:]  # sliding-window caches keep the last keys only
        if mask.shape[1] == kv_length and bool(mask.all()):
            return None
        return mask
    # Without a mask a static cache still holds kv_length slots, of which only those up to the
    # last query hold tokens: a mask as wide as those says so. Bidirectional masks (encoders,
    # cross-attention; the only callers that pass allow_is_bidirectional_skip) have real keys
    # past the queries.
    if "allow_is_bidirectional_skip" in kwargs:
        return None
    tokens = int(q_offset) + q_length - kv_offset
    if tokens >= kv_length:
        return None
    return torch.ones(batch_size, tokens, dtype=torch.bool, device=device)


# The attention function (AttentionInterface)


def attention_forward(module: torch.nn.Module, query: Tensor, key: Tensor, value: Tensor,
                      attention_mask: Tensor | None, dropout: float = 0.0,
                      scaling: float | None = None, sliding_window: int | None = None,
                      softcap: float | None = None, is_causal: bool | None = None,
                      s_aux: Tensor | None = None, position_ids: Tensor | None = None,
                      cu_seq_lens_q: Tensor | None = None, cu_seq_lens_k: Tensor | None = None,
                      max_length_q: int | None = None, max_length_k: int | None = None,
                      **kwargs) -> tuple[Tensor, None]:
    """One attention layer: query (B, Hq, Sq, D), key and value (B, Hkv, Sk, D) with Hkv
    dividing Hq, attention_mask from padding_mask (or a 4-D mask of the caller's). Returns
    (out (B, Sq, Hq, D), None)."""
    causal = getattr(module, "is_causal", True) if is_causal is None else is_causal
    options = {"dropout_p": dropout, "softmax_scale": scaling, "causal": causal,
               "window_size": _window(sliding_window, causal), "softcap": softcap or 0.0,
               "deterministic": torch.are_deterministic_algorithms_enabled(),
               "learnable_sink": s_aux}
    if attention_mask is not None and attention_mask.dim() == 4:
        # The caller's own mask holds the causal and window pattern, as eager and sdpa read it.
        out = flash_ext.attention(query, key, value, attn_mask=attention_mask, dropout_p=dropout,
                                  scale=scaling, enable_gqa=True, sinks=s_aux,
                                  softcap=options["softcap"],
                                  deterministic=options["deterministic"])
        return out.transpose(1, 2), None
    q, k, v = (t.transpose(1, 2) for t in (query, key, value))  # (B, S, H, D) views
    if attention_mask is not None:
        return _padded(q, k, v, attention_mask, options), None
    if cu_seq_lens_q is not None and cu_seq_lens_k is not None:  # a flattening data collator's
        return _flattened(q, k, v, cu_seq_lens_q, cu_seq_lens_k, max_length_q, max_length_k,
                          options), None
    if position_ids is not None and q.shape[1] == k.shape[1] > 1:
        sequences = _packed_sequences(position_ids, *q.shape[:2])
        if sequences is not None:
            return _flattened(q, k, v, sequences.cu_seqlens, sequences.cu_seqlens,
                              sequences.max_seqlen, sequences.max_seqlen, options), None
    return flash_ext.flash_attn_func(q, k, v, **options), None


def _window(sliding_window: int | None, causal: bool) -> tuple[int, int]:
    """transformers' sliding windows as flash_ext's (left, right): causal, a query sees itself
    and the sliding_window - 1 keys before it; bidirectional, keys at most sliding_window away."""
    if sliding_window is None:
        return (-1, -1)
    return (sliding_window - 1, 0) if causal else (sliding_window, sliding_window)


@dataclass(frozen=True)
class _Tokens:
    """Tokens as the varlen entry points take them: those a 2-D padding mask keeps, or the
    sequences packed rows hold."""

    indices: Tensor | None  # kept tokens in the flattened (B * S) order; None: all are kept
    rows: tuple[Tensor, Tensor] | None  # the same as (batch index, position) pairs
    cu_seqlens: Tensor  # (B + 1,) int32
    max_seqlen: int


def _memo(owner: Tensor, key: tuple, compute: Callable[[], object]) -> object:
    """compute(), kept on `owner`, the mask or position_ids tensor that every layer of one
    forward gets, so that the layers after the first reuse it instead of syncing again. The
    tensor's version is part of the key: an in-place change recomputes."""
    if torch.compiler.is_compiling():
        return compute()
    memo = owner.__dict__.setdefault("_flash_ext_memo", {})
    key = (*key, None if owner.is_inference() else owner._version)  # inference: no versions
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _kept_tokens(mask: Tensor) -> _Tokens:
    seqlens = mask.sum(dim=-1, dtype=torch.int32)
    fewest, most = torch.stack(torch.aminmax(seqlens)).tolist()  # one sync for both
    cu_seqlens = F.pad(torch.cumsum(seqlens, dim=0, dtype=torch.int32), (1, 0))
    if fewest == mask.shape[1]:
        return _Tokens(None, None, cu_seqlens, most)
    indices = torch.nonzero(mask.flatten()).flatten()
    return _Tokens(indices, (indices // mask.shape[1], indices % mask.shape[1]), cu_seqlens, most)


def _padded(q: Tensor, k: Tensor, v: Tensor, mask: Tensor, options: dict) -> Tensor:
    """Attention over the tokens of a (B, W) padding mask, W <= Sk: the last W keys' mask,
    where W < Sk only for a static cache, whose slots past W hold no token yet."""
    batch, seqlen_q, heads, head_dim = q.shape
    width = mask.shape[1]
    if mask.dim() != 2 or mask.shape[0] != batch or width > k.shape[1]:
        raise ValueError(f"attention_mask must be (batch, keys) = ({batch}, <= {k.shape[1]}) "
                         f"or 4-D, got shape {tuple(mask.shape)}")
    mask = mask if mask.dtype == torch.bool else mask.bool()
    k, v = k[:, :width], v[:, :width]
    keys = _memo(mask, ("keys",), lambda: _kept_tokens(mask))
    if keys.indices is None:  # every slot a token (a static cache's first W): one dense call
        return flash_ext.flash_attn_func(q, k, v, **options)
    k, v = k[keys.rows], v[keys.rows]  # (total, Hkv, D), gathered from the views
    if seqlen_q == width:  # no cache: queries and keys are the same tokens
        queries = keys
    elif seqlen_q > 1 and options["causal"]:  # a causal chunk after a cache: its own tokens
        queries = _memo(mask, ("queries", seqlen_q), lambda: _kept_tokens(mask[:, -seqlen_q:]))
    else:  # decoding, or cross-attention: every query row
        cu_seqlens_q = torch.arange(0, (batch + 1) * seqlen_q, seqlen_q, dtype=torch.int32,
                                    device=q.device)
        out = flash_ext.flash_attn_varlen_func(
            q.reshape(batch * seqlen_q, heads, head_dim), k, v, cu_seqlens_q, keys.cu_seqlens,
            seqlen_q, keys.max_seqlen, **options)
        return out.view(batch, seqlen_q, heads, -1)
    q = q.reshape(batch * seqlen_q, heads, head_dim) if queries.rows is None else q[queries.rows]
    out = flash_ext.flash_attn_varlen_func(q, k, v, queries.cu_seqlens, keys.cu_seqlens,
                                           queries.max_seqlen, keys.max_seqlen, **options)
    if queries.indices is None:
        return out.view(batch, seqlen_q, heads, -1)
    return pad_input(out, queries.indices, batch, seqlen_q)


def _sequences_of(position_ids: Tensor) -> _Tokens | None:
    """The sequences position_ids (B, S) delimit, a new one wherever a position does not follow
    the one before (as transformers' masks find them), or None when each row is one."""
    batch, seqlen = position_ids.shape
    starts = torch.ones_like(position_ids, dtype=torch.bool)
    starts[:, 1:] = position_ids[:, 1:] != position_ids[:, :-1] + 1
    begins = torch.nonzero(starts.flatten()).flatten()
    if begins.numel() == batch:
        return None
    cu_seqlens = torch.cat([begins, begins.new_tensor([batch * seqlen])]).to(torch.int32)
    return _Tokens(None, None, cu_seqlens, int(torch.diff(cu_seqlens).max()))


def _packed_sequences(position_ids: Tensor, batch: int, seqlen: int) -> _Tokens | None:
    if position_ids.dim() != 2 or position_ids.shape[-1] != seqlen:
        return None  # e.g. multimodal rotary positions (3, B, S): not packing
    return _memo(position_ids, ("sequences", batch),
                 lambda: _sequences_of(position_ids.expand(batch, seqlen)))


def _flattened(q: Tensor, k: Tensor, v: Tensor, cu_seqlens_q: Tensor, cu_seqlens_k: Tensor,
               max_seqlen_q: int | Tensor | None, max_seqlen_k: int | Tensor | None,
               options: dict) -> Tensor:
    """Sequences packed along the rows: the (B * S) tokens split at cu_seqlens."""
    batch, seqlen_q, heads, _ = q.shape
    if max_seqlen_q is None:
        max_seqlen_q = torch.diff(cu_seqlens_q).max()
    if max_seqlen_k is None:
        max_seqlen_k = torch.diff(cu_seqlens_k).max()
    q, k, v = (t.reshape(-1, *t.shape[2:]) for t in (q, k, v))
    out = flash_ext.flash_attn_varlen_func(q, k, v, cu_seqlens_q.to(torch.int32),
                                           cu_seqlens_k.to(torch.int32), int(max_seqlen_q),
                                           int(max_seqlen_k), **options)
    return out.view(batch, seqlen_q, heads, -1)


# The paged attention function (continuous batching, AttentionInterface under "paged|" + name)


# Not compiled, as transformers' own paged functions: cache.update writes views of the cache
# tensor in place, which compile's functionalization turns into a copy of the whole cache.
@torch.compiler.disable
def paged_attention_forward(module: torch.nn.Module, query: Tensor, key: Tensor, value: Tensor,
                            attention_mask: Tensor | None, dropout: float = 0.0,
                            scaling: float | None = None, sliding_window: int | None = None,
                            softcap: float | None = None, s_aux: Tensor | None = None,
                            cache=None, cu_seq_lens_q: Tensor | None = None,
                            cu_seq_lens_k: Tensor | dict[str, Tensor] | None = None,
                            max_seqlen_q: int | None = None,
                            max_seqlen_k: int | dict[str, int] | None = None,
                            read_index: list[Tensor] | None = None,
                            write_index: list[Tensor] | None = None,
                            block_table: Tensor | None = None, **kwargs) -> tuple[Tensor, None]:
    """One attention layer of a continuous-batching step (transformers 5.0 to 5.18): the new
    tokens of every request in the batch packed in one row, query (1, Hq, Tq, D), key and value
    (1, Hkv, Tq, D). cache.update (transformers' PagedAttentionCache) writes key and value into
    the cache at write_index and returns the keys and values at read_index: each request's
    cached tokens and then its new ones, packed (Tk, Hkv, D) in the order of cu_seq_lens_k.
    flash_attn_varlen_func then attends over the requests (cu_seq_lens_q/k, max_seqlen_q/k; per
    layer type for models with sliding and full layers), causal aligned bottom-right, GQA
    native, gpt-oss's sinks (s_aux). attention_mask is None: continuous batching builds masks
    only for transformers' own paged eager and sdpa. Returns (out (1, Tq, Hq, D), None)."""
    if cache is None or read_index is None or write_index is None:
        raise ValueError(
            f"{PAGED_PREFIX}<name> is flash_ext's attention for transformers' continuous batching "
            "and needs its paged cache (cache, read_index, write_index), got none: load the "
            "model with the name register() returned for a forward or generate() outside "
            "continuous batching")
    if block_table is not None:
        raise NotImplementedError(
            "flash_ext's paged attention reads transformers' paged cache through read_index; "
            "the block_table decode path (which transformers enables for flash-attn only) is "
            "not supported")
    key, value = cache.update(key_states=key, value_states=value, layer_idx=module.layer_idx,
                              read_index=read_index, write_index=write_index)
    if isinstance(cu_seq_lens_k, dict):  # the key lengths of this layer's type of cache
        layer_type = "full_attention" if sliding_window is None else "sliding_attention"
        cu_seq_lens_k, max_seqlen_k = cu_seq_lens_k[layer_type], max_seqlen_k[layer_type]
    q = query.transpose(1, 2).squeeze(0)  # (Tq, Hq, D) view
    total_q, total_k = q.shape[0], key.shape[0]
    out = flash_ext.flash_attn_varlen_func(
        q, key, value, _covering(cu_seq_lens_q, total_q), _covering(cu_seq_lens_k, total_k),
        max_seqlen_q, max(max_seqlen_k, total_k), dropout_p=dropout, softmax_scale=scaling,
        causal=True, window_size=_window(sliding_window, True), softcap=softcap or 0.0,
        learnable_sink=s_aux)
    return out.unsqueeze(0), None


def _covering(cu_seqlens: Tensor, total: int) -> Tensor:
    """int32 cu_seqlens with one more sequence: the rows from its last offset up to `total`.
    With CUDA graphs transformers pads a step's tokens (and the keys read) to a static count
    past the requests' (setting max_seqlen_q to cover them); the varlen entry points need every
    row in a sequence, and this one keeps the padding rows apart (empty without padding). Its
    keys, past cu_seqlens_k's, may be more than max_seqlen_k: the caller bounds that by total_k,
    which the kernels do not size anything by."""
    def covered() -> Tensor:
        return F.pad(cu_seqlens.to(torch.int32), (0, 1), value=total)

    if cu_seqlens.is_cuda and torch.cuda.is_current_stream_capturing():
        return covered()  # recorded in the graph: each replay extends the offsets it is given
    # every layer of a step gets the same offsets: one tensor, checked by the first layer only
    return _memo(cu_seqlens, ("covering", total), covered)
