// CPU flash-attention backward. One work item per (sequence, kv head), computed by one thread
// in a fixed order, so dK / dV (summed over the kv head's group of q heads) and dQ need no
// atomics and are bitwise reproducible; with fewer such pairs than threads, the group of q heads
// is split and the dK / dV partials added in a fixed order. For each q head, query block i and
// key block j:
//   S = (scale Q) K^T -> modifiers / window -> P = exp(S - lse)
//   dP = dO V^T (dropout: times keep / (1 - p)),  dS = P (dP - rowsum(dO O)) (softcap: (1 - t^2))
//   dV_j += P_drop^T dO,  dK_j += dS^T (scale Q),  dQ_i += dS K  (dQ times scale at the end)
// all through the packed-panel GEMM, accumulating in fp32 workspace. K and V are packed once per
// item; keys are walked in super-blocks whose packed K / V and dK / dV stay in L2 while every
// query block (Q and dO packed once per super-block) passes over them.
#include "dropout_tile.h"
#include "gemm.h"
#include "mask.h"
#include "params.h"
#include "scratch.h"
#include "score_mod.h"
#include "seqlen.h"
#include "tile_scheduler.h"
#include "vec_utils.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace flash_ext::cpu {
namespace {

// Query rows and keys per step: multiples of the 6-row micro tile and of the 16-wide panel.
constexpr int64_t kBlockM = 72;
constexpr int64_t kBlockN = 64;
// Keys whose K / V panels and dK / dV rows (5 x 256 x 128 fp32 at D = 128) stay in the 1 MiB L2:
// 15% faster than sweeping all keys per query block at seqlen 4096, D = 128.
constexpr int64_t kKeySuperBlock = 256;

struct BackwardScratch {
  Scratch scratch;
  int64_t k_panel_stride;  // floats between the column panels of `k`
  float* k_t;          // [keys / 16][head_dim][16]: B of S = Q K^T
  float* v_t;          // [keys / 16][head_dim_v][16]: B of dP = dO V^T
  float* k;            // [head_dim / 16][keys][16]: B of dQ += dS K
  float* dk;           // [keys][ld]: fp32 accumulators of the kv head
  float* dv;           // [keys][ld_v]
  float* dq;           // [queries][ld]: fp32 accumulators of the current q head
  float* delta;        // [queries]: rowsum(dO * O)
  float* q;            // [kBlockM][head_dim]: scale * Q rows
  float* q_panels;     // [head_dim / 16][kBlockM][16]: B of dK += dS^T Q
  float* dout;         // [kBlockM][head_dim_v]
  float* dout_panels;  // [head_dim_v / 16][kBlockM][16]: B of dV += P^T dO
  float* p;            // [kBlockM][kBlockN]: probabilities
  float* ds;           // [kBlockM][kBlockN]: dP, then dS
  float* p_drop;       // [kBlockM][kBlockN]: dropped, rescaled P (dropout only)
  float* dtanh;        // [kBlockM][kBlockN]: softcap's 1 - tanh^2 (softcap only)

  BackwardScratch(int64_t queries, int64_t keys_max, int64_t head_dim, int64_t head_dim_v)
      : scratch(footprint(queries, keys_max, head_dim, head_dim_v)) {
    const int64_t keys = round_up(keys_max, kPanelWidth);
    const int64_t ld = round_up(head_dim, kPanelWidth);
    const int64_t ld_v = round_up(head_dim_v, kPanelWidth);
    k_panel_stride = keys * kPanelWidth;
    k_t = scratch.take(keys * head_dim);
    v_t = scratch.take(keys * head_dim_v);
    k = scratch.take(keys * ld);
    dk = scratch.take(keys * ld);
    dv = scratch.take(keys * ld_v);
    dq = scratch.take(queries * ld);
    delta = scratch.take(queries);
    q = scratch.take(kBlockM * head_dim);
    q_panels = scratch.take(kBlockM * ld);
    dout = scratch.take(kBlockM * head_dim_v);
    dout_panels = scratch.take(kBlockM * ld_v);
    p = scratch.take(kBlockM * kBlockN);
    ds = scratch.take(kBlockM * kBlockN);
    p_drop = scratch.take(kBlockM * kBlockN);
    dtanh = scratch.take(kBlockM * kBlockN);
  }

  static int64_t footprint(int64_t queries, int64_t keys_max, int64_t head_dim,
                           int64_t head_dim_v) {
    const int64_t keys = round_up(keys_max, kPanelWidth);
    const int64_t ld = round_up(head_dim, kPanelWidth);
    const int64_t ld_v = round_up(head_dim_v, kPanelWidth);
    return Scratch::footprint(keys * head_dim) + Scratch::footprint(keys * head_dim_v) +
           2 * Scratch::footprint(keys * ld) + Scratch::footprint(keys * ld_v) +
           Scratch::footprint(queries * ld) + Scratch::footprint(queries) +
           Scratch::footprint(kBlockM * head_dim) + Scratch::footprint(kBlockM * head_dim_v) +
           Scratch::footprint(kBlockM * ld) + Scratch::footprint(kBlockM * ld_v) +
           4 * Scratch::footprint(kBlockM * kBlockN);
  }
};

// Loads query rows [i0, i0 + rows) of head h as fp32 rows (times `scale`) and as B panels.
template <typename T>
void load_query_rows(const T* src, const RowStrides& strides, const SeqLen& seq, int64_t h,
                     int64_t i0, int64_t rows, int64_t head_dim, float scale, float* dst_rows,
                     float* dst_panels) {
  for (int64_t r = 0; r < rows; ++r) {
    convert_row(src + seq.q_offset(strides, h, i0 + r), dst_rows + r * head_dim, head_dim, scale);
  }
  pack_b_panels(dst_rows, head_dim, 1, rows, head_dim, 1.f, dst_panels, kBlockM * kPanelWidth);
}

// One (query block, key block) step of q head h: recompute P, form dS, accumulate dV, dK, dQ.
// The query block's rows and panels are already in the workspace.
void backward_step(const AttentionParams& p, const SeqLen& seq, int64_t h,
                   const VisibleKeys& visible, const ScoreMod& mod, const DropoutTile& dropout,
                   int64_t i0, int64_t rows, int64_t j0, int64_t cols, BackwardScratch& ws) {
  const int64_t d = p.head_dim;
  const int64_t dv = p.head_dim_v;
  const int64_t ld = round_up(d, kPanelWidth);
  const int64_t ld_v = round_up(dv, kPanelWidth);
  const float* k_t_block = ws.k_t + (j0 / kPanelWidth) * d * kPanelWidth;
  gemm<false>(rows, cols, d, ws.q, d, k_t_block, d * kPanelWidth, ws.p, kBlockN, false);
  const bool softcap = mod.softcap > 0.f;
  if (mod.active()) {
    mod.apply(ws.p, kBlockN, i0, rows, j0, cols, softcap ? ws.dtanh : nullptr);
  }
  if (!visible.all_visible(i0, i0 + rows, j0, j0 + cols)) {
    visible.hide(ws.p, kBlockN, i0, rows, j0, cols);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float lse = p.lse[seq.q_offset(p.lse_strides, h, i0 + r)];
    float* p_row = ws.p + r * kBlockN;
    if (lse == kNegInf) {
      std::fill(p_row, p_row + cols, 0.f);
    } else {
      exp_row(p_row, cols, lse);
    }
  }

  const float* v_t_block = ws.v_t + (j0 / kPanelWidth) * dv * kPanelWidth;
  gemm<false>(rows, cols, dv, ws.dout, dv, v_t_block, dv * kPanelWidth, ws.ds, kBlockN, false);
  const float* p_used = ws.p;
  if (dropout.enabled) {
    for (int64_t r = 0; r < rows; ++r) {
      dropout.drop_row_grad(ws.p + r * kBlockN, ws.p_drop + r * kBlockN, ws.ds + r * kBlockN,
                            i0 + r, j0, cols);
    }
    p_used = ws.p_drop;
  }
  for (int64_t r = 0; r < rows; ++r) {
    softmax_grad_row(ws.p + r * kBlockN, ws.ds + r * kBlockN, cols, ws.delta[i0 + r]);
    if (softcap) {
      mul_row(ws.ds + r * kBlockN, ws.dtanh + r * kBlockN, cols);
    }
  }

  gemm<true>(cols, dv, rows, p_used, kBlockN, ws.dout_panels, kBlockM * kPanelWidth,
             ws.dv + j0 * ld_v, ld_v, true);
  gemm<true>(cols, d, rows, ws.ds, kBlockN, ws.q_panels, kBlockM * kPanelWidth, ws.dk + j0 * ld,
             ld, true);
  gemm<false>(rows, d, cols, ws.ds, kBlockN, ws.k + j0 * kPanelWidth, ws.k_panel_stride,
              ws.dq + i0 * ld, ld, true);
}

// Work item: kv head `kv_head` of sequence b with q heads [h_begin, h_end) of its group. Writes
// their dQ, and leaves their summed dK, dV (fp32) in ws.dk, ws.dv.
template <typename T>
void backward_kv_head(const AttentionParams& p, const AttentionGradParams& g, const SeqLen& seq,
                      int64_t b, int64_t kv_head, int64_t h_begin, int64_t h_end,
                      BackwardScratch& ws) {
  const int64_t d = p.head_dim;
  const int64_t dv = p.head_dim_v;
  const int64_t ld = round_up(d, kPanelWidth);
  const int64_t sq = seq.seqlen_q;
  const int64_t sk = seq.seqlen_k;

  const T* k = static_cast<const T*>(p.k) + seq.k_offset(p.k_strides, kv_head, 0);
  const T* v = static_cast<const T*>(p.v) + seq.k_offset(p.v_strides, kv_head, 0);
  pack_b_panels(k, 1, p.k_strides.row, d, sk, 1.f, ws.k_t, d * kPanelWidth);
  pack_b_panels(v, 1, p.v_strides.row, dv, sk, 1.f, ws.v_t, dv * kPanelWidth);
  pack_b_panels(k, p.k_strides.row, 1, sk, d, 1.f, ws.k, ws.k_panel_stride);
  std::fill(ws.dk, ws.dk + sk * ld, 0.f);
  std::fill(ws.dv, ws.dv + sk * round_up(dv, kPanelWidth), 0.f);

  const VisibleKeys visible = visible_keys(p, seq);
  const T* out = static_cast<const T*>(p.out);
  const T* dout = static_cast<const T*>(g.grad_out);
  T* grad_q = static_cast<T*>(g.grad_q);
  for (int64_t h = h_begin; h < h_end; ++h) {
    const ScoreMod mod = score_mod(p, seq, b, h);
    const DropoutTile dropout = dropout_tile(p, b, h);
    for (int64_t i = 0; i < sq; ++i) {
      ws.delta[i] = dot_row(dout + seq.q_offset(g.grad_out_strides, h, i),
                            out + seq.q_offset(p.out_strides, h, i), dv);
    }
    std::fill(ws.dq, ws.dq + sq * ld, 0.f);
    for (int64_t key0 = 0; key0 < sk; key0 += kKeySuperBlock) {
      const int64_t key1 = std::min(key0 + kKeySuperBlock, sk);
      const int64_t row_end = visible.row_end(key1);
      for (int64_t i0 = visible.row_begin(key0); i0 < row_end; i0 += kBlockM) {
        const int64_t rows = std::min(kBlockM, row_end - i0);
        // Keys of the super-block seen by any row, from a panel boundary (K^T and V^T panels
        // are addressed by panel).
        const int64_t n_begin = std::max(key0, visible.begin(i0) / kPanelWidth * kPanelWidth);
        const int64_t n_end = std::min(key1, visible.end(i0 + rows - 1));
        if (n_begin >= n_end) {
          continue;
        }
        load_query_rows(static_cast<const T*>(p.q), p.q_strides, seq, h, i0, rows, d, p.scale,
                        ws.q, ws.q_panels);
        load_query_rows(dout, g.grad_out_strides, seq, h, i0, rows, dv, 1.f, ws.dout,
                        ws.dout_panels);
        for (int64_t j0 = n_begin; j0 < n_end; j0 += kBlockN) {
          backward_step(p, seq, h, visible, mod, dropout, i0, rows, j0,
                        std::min(kBlockN, n_end - j0), ws);
        }
      }
    }
    for (int64_t i = 0; i < sq; ++i) {
      T* grad_q_row = grad_q + seq.q_offset(g.grad_q_strides, h, i);
      if (p.lse[seq.q_offset(p.lse_strides, h, i)] == kNegInf) {
        // A row that sees no key has dQ = 0, even where its P = 0 met a NaN key or value.
        std::fill(grad_q_row, grad_q_row + d, T(0.f));
      } else {
        store_row(ws.dq + i * ld, grad_q_row, d, p.scale);
      }
    }
  }
}

// Writes key rows [j0, j1) of dK and dV for kv head `kv_head`: the sum, in split order, of the
// `splits` fp32 partials at dk[s * partial_stride], dv[s * partial_stride] (row strides ld,
// ld_v).
template <typename T>
void store_kv_grads(const AttentionParams& p, const AttentionGradParams& g, const SeqLen& seq,
                    int64_t kv_head, int64_t j0, int64_t j1, float* dk, float* dv,
                    int64_t splits, int64_t partial_stride) {
  const int64_t d = p.head_dim;
  const int64_t dv_dim = p.head_dim_v;
  const int64_t ld = round_up(d, kPanelWidth);
  const int64_t ld_v = round_up(dv_dim, kPanelWidth);
  T* grad_k = static_cast<T*>(g.grad_k);
  T* grad_v = static_cast<T*>(g.grad_v);
  for (int64_t j = j0; j < j1; ++j) {
    for (int64_t s = 1; s < splits; ++s) {
      add_row(dk + s * partial_stride + j * ld, dk + j * ld, d);
      add_row(dv + s * partial_stride + j * ld_v, dv + j * ld_v, dv_dim);
    }
    store_row(dk + j * ld, grad_k + seq.k_offset(g.grad_k_strides, kv_head, j), d, 1.f);
    store_row(dv + j * ld_v, grad_v + seq.k_offset(g.grad_v_strides, kv_head, j), dv_dim, 1.f);
  }
}

template <typename T>
void run_backward(const AttentionParams& p, const AttentionGradParams& g) {
  const int64_t d = p.head_dim;
  const int64_t dv = p.head_dim_v;
  const int64_t ld = round_up(d, kPanelWidth);
  const int64_t ld_v = round_up(dv, kPanelWidth);
  const int64_t group = p.heads_q / p.heads_kv;
  std::vector<SeqLen> seqs(p.batch);
  int64_t max_seqlen_q = 0;
  int64_t max_seqlen_k = 0;
  for (int64_t b = 0; b < p.batch; ++b) {
    seqs[b] = seq_len(p, b);
    max_seqlen_q = std::max(max_seqlen_q, seqs[b].seqlen_q);
    max_seqlen_k = std::max(max_seqlen_k, seqs[b].seqlen_k);
  }

  // With fewer (batch, kv head) pairs than threads (MQA / GQA at small batch), each pair's
  // group of q heads is split: every split sums its own fp32 dK / dV partial and a last pass
  // adds the partials in split order. The split count depends only on the shapes and the thread
  // count, so results stay bitwise reproducible run to run.
  const int64_t num_pairs = p.batch * p.heads_kv;
  const int64_t threads = at::get_num_threads();
  const int64_t splits =
      num_pairs >= threads ? 1 : std::min(group, (threads + num_pairs - 1) / num_pairs);
  const int64_t partial_stride = round_up(max_seqlen_k, kPanelWidth) * std::max(ld, ld_v);
  Scratch partials(splits > 1 ? 2 * num_pairs * splits * partial_stride : 0);
  float* dk_partials = partials.take(splits > 1 ? num_pairs * splits * partial_stride : 0);
  float* dv_partials = partials.take(splits > 1 ? num_pairs * splits * partial_stride : 0);

  // (pair, split) items, costliest first.
  std::vector<int64_t> items(num_pairs * splits);
  for (int64_t item = 0; item < static_cast<int64_t>(items.size()); ++item) {
    items[item] = item;
  }
  auto heads_of = [&](int64_t item, int64_t split_end) {
    return (item % splits + split_end) * group / splits;
  };
  auto cost = [&](int64_t item) {
    const SeqLen& seq = seqs[item / splits / p.heads_kv];
    return seq.seqlen_q * seq.seqlen_k * (heads_of(item, 1) - heads_of(item, 0));
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](int64_t x, int64_t y) { return cost(x) > cost(y); });

  for_each_item(
      static_cast<int64_t>(items.size()),
      [&] { return BackwardScratch(max_seqlen_q, max_seqlen_k, d, dv); },
      [&](BackwardScratch& ws, int64_t index) {
        const int64_t item = items[index];
        const int64_t pair = item / splits;
        const int64_t b = pair / p.heads_kv;
        const int64_t kv_head = pair % p.heads_kv;
        const int64_t h0 = kv_head * group;
        backward_kv_head<T>(p, g, seqs[b], b, kv_head, h0 + heads_of(item, 0),
                            h0 + heads_of(item, 1), ws);
        const int64_t sk = seqs[b].seqlen_k;
        if (splits == 1) {
          store_kv_grads<T>(p, g, seqs[b], kv_head, 0, sk, ws.dk, ws.dv, 1, 0);
        } else {
          const int64_t offset = item * partial_stride;
          std::copy(ws.dk, ws.dk + sk * ld, dk_partials + offset);
          std::copy(ws.dv, ws.dv + sk * ld_v, dv_partials + offset);
        }
      });

  if (splits > 1) {
    const int64_t chunks = (max_seqlen_k + kKeySuperBlock - 1) / kKeySuperBlock;
    at::parallel_for(0, num_pairs * chunks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        const int64_t pair = task / chunks;
        const SeqLen& seq = seqs[pair / p.heads_kv];
        const int64_t j0 = (task % chunks) * kKeySuperBlock;
        const int64_t offset = pair * splits * partial_stride;
        store_kv_grads<T>(p, g, seq, pair % p.heads_kv, std::min(j0, seq.seqlen_k),
                          std::min(j0 + kKeySuperBlock, seq.seqlen_k), dk_partials + offset,
                          dv_partials + offset, splits, partial_stride);
      }
    });
  }
}

}  // namespace

void attention_backward(const AttentionParams& params, const AttentionGradParams& grads) {
  switch (params.dtype) {
    case c10::ScalarType::Float:
      return run_backward<float>(params, grads);
    case c10::ScalarType::BFloat16:
      return run_backward<c10::BFloat16>(params, grads);
    case c10::ScalarType::Half:
      return run_backward<c10::Half>(params, grads);
    default:
      TORCH_CHECK(false, "flash_ext cpu attention: unsupported dtype ", params.dtype);
  }
}

}  // namespace flash_ext::cpu
