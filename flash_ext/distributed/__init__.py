"""Context parallelism: attention over a sequence sharded across a torch.distributed group.

    out = flash_ext.distributed.ring_attention(q, k, v, is_causal=True, layout="zigzag")

ring_attention_varlen takes packed documents that may span shards; shard() and unshard() move a
full sequence to and from the layouts' shards.
"""

from flash_ext.distributed.layout import LAYOUTS, shard, unshard
from flash_ext.distributed.ring import ring_attention, ring_attention_varlen

__all__ = ["LAYOUTS", "ring_attention", "ring_attention_varlen", "shard", "unshard"]
