"""FlexAttention in Triton: attention with a user score_mod and a block-sparse mask_mod.

`flex_attention` and `create_block_mask` have the meaning of torch.nn.attention.flex_attention's
functions of the same names. The user's Python functions are traced to aten graphs (trace.py),
turned into Triton functions (codegen.py) and spliced into the kernel template (kernels.py,
build.py), which prepare.py does per call, eagerly or once per torch.compile graph (no graph
break); ops.py holds the custom ops and autograd, block_mask.py the block-sparse structure.
On CPU tensors the same kernels run in Triton's interpreter (slow: for tests).
"""

from flash_ext.flex.attention import flex_attention
from flash_ext.flex.block_mask import BlockMask, create_block_mask
from flash_ext.flex.codegen import SUPPORTED_OPS

__all__ = ["SUPPORTED_OPS", "BlockMask", "create_block_mask", "flex_attention"]
