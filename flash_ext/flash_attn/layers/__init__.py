"""flash_attn.layers: rotary embeddings (rotary.py)."""
