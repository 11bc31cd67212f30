"""flash_attn.flash_attn_interface: the flash-attn 2.x functions (flash_ext/interface.py)."""

from flash_ext.interface import (  # noqa: F401  (re-exported)
    flash_attn_func,
    flash_attn_kvpacked_func,
    flash_attn_qkvpacked_func,
    flash_attn_varlen_func,
    flash_attn_varlen_kvpacked_func,
    flash_attn_varlen_qkvpacked_func,
)
from flash_ext.kvcache import flash_attn_with_kvcache  # noqa: F401  (re-exported)
