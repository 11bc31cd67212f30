"""flash_attn.flash_attn_interface: the flash-attn 2.x functions (flash_ext/interface.py,
flash_ext/kvcache.py)."""

from flash_ext import attn_probs, interface
from flash_ext.kvcache import flash_attn_with_kvcache

flash_attn_func = interface.flash_attn_func
flash_attn_kvpacked_func = interface.flash_attn_kvpacked_func
flash_attn_qkvpacked_func = interface.flash_attn_qkvpacked_func
flash_attn_varlen_func = interface.flash_attn_varlen_func
flash_attn_varlen_kvpacked_func = interface.flash_attn_varlen_kvpacked_func
flash_attn_varlen_qkvpacked_func = interface.flash_attn_varlen_qkvpacked_func

# flash-attn's tests decode S_dmask (return_attn_probs with dropout) per key block of this size.
_get_block_size_n = attn_probs.block_size_n

__all__ = [name for name in globals() if name.startswith("flash_attn_")]
