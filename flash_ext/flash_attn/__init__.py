"""flash-attn 2.x's import paths on flash_ext: code written for flash-attn runs by changing
`flash_attn` to `flash_ext.flash_attn` in its imports (`from flash_ext.flash_attn import
flash_attn_func`, `...flash_attn.bert_padding`, `...flash_attn.layers.rotary`)."""

from flash_ext.flash_attn.flash_attn_interface import *  # noqa: F403  (the functions)
from flash_ext.flash_attn.flash_attn_interface import __all__  # noqa: F401
