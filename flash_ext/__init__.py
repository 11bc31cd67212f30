"""flash_ext: exact, fast, memory-efficient attention for PyTorch.

`flash_ext.attention` is a drop-in for torch.nn.functional.scaled_dot_product_attention with
extras (sliding window, ALiBi, softcap, GQA, LSE); `attention_varlen` takes packed sequences; the
flash_attn_* functions follow flash-attn 2.x; `explain` says which backend runs a call and why.
`flex_attention` and `create_block_mask` are torch's FlexAttention functions (user score_mod,
block-sparse mask_mod) on flash_ext's Triton kernels.
"""

from flash_ext.dispatch import BACKENDS, Explanation
from flash_ext.flex import BlockMask, create_block_mask, flex_attention
from flash_ext.interface import (
    attention,
    attention_varlen,
    explain,
    flash_attn_func,
    flash_attn_kvpacked_func,
    flash_attn_qkvpacked_func,
    flash_attn_varlen_func,
    flash_attn_varlen_kvpacked_func,
    flash_attn_varlen_qkvpacked_func,
)
from flash_ext.kvcache import flash_attn_with_kvcache

__version__ = "0.1.0"

__all__ = [
    "BACKENDS",
    "BlockMask",
    "Explanation",
    "attention",
    "attention_varlen",
    "create_block_mask",
    "explain",
    "flash_attn_func",
    "flash_attn_kvpacked_func",
    "flash_attn_qkvpacked_func",
    "flash_attn_varlen_func",
    "flash_attn_varlen_kvpacked_func",
    "flash_attn_varlen_qkvpacked_func",
    "flash_attn_with_kvcache",
    "flex_attention",
]
