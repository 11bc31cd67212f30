"""flash_ext inside other libraries. Each submodule imports its library only when imported
itself, so `import flash_ext` never does:

- `flash_ext.integrations.transformers`: a Hugging Face transformers attention implementation
  (`register()`, then `from_pretrained(..., attn_implementation=name)`).
"""
