"""flash_attn.layers.rotary: rotary position embeddings (flash_ext/rotary.py)."""

from flash_ext.rotary import apply_rotary_emb  # noqa: F401  (re-exported)
