// Where sequence b of a dense or varlen call lives: its lengths, its first row in the packed
// tensors, and the offset that aligns its causal/window diagonal.
#pragma once

#include "params.h"

#include <cstdint>

namespace flash_ext::cpu {

struct SeqLen {
  int64_t batch = 0;        // multiplies RowStrides::batch; 0 for varlen calls
  int64_t q_row0 = 0;       // first row of the sequence (varlen: cu_seqlens_q[b]; dense: 0)
  int64_t k_row0 = 0;
  int64_t seqlen_q = 0;
  int64_t seqlen_k = 0;
  int64_t diag_offset = 0;  // bottom-right alignment: seqlen_k - seqlen_q; top-left: 0

  // Element offset of query row i of head h (q, out, grad_out, grad_q, lse).
  int64_t q_offset(const RowStrides& s, int64_t h, int64_t i) const {
    return batch * s.batch + h * s.head + (q_row0 + i) * s.row;
  }
  // Element offset of key row j of kv head h (k, v, grad_k, grad_v).
  int64_t k_offset(const RowStrides& s, int64_t h, int64_t j) const {
    return batch * s.batch + h * s.head + (k_row0 + j) * s.row;
  }
};

inline SeqLen seq_len(const AttentionParams& p, int64_t b) {
  SeqLen seq;
  if (p.cu_seqlens_q != nullptr) {
    seq.q_row0 = p.cu_seqlens_q[b];
    seq.k_row0 = p.cu_seqlens_k[b];
    seq.seqlen_q = p.cu_seqlens_q[b + 1] - seq.q_row0;
    seq.seqlen_k = p.cu_seqlens_k[b + 1] - seq.k_row0;
  } else {
    seq.batch = b;
    seq.seqlen_q = p.seqlen_q;
    seq.seqlen_k = p.seqlen_k;
  }
  seq.diag_offset = p.bottom_right ? seq.seqlen_k - seq.seqlen_q : 0;
  return seq;
}

}  // namespace flash_ext::cpu
