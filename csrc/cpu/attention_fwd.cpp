// CPU flash-attention forward. K and V of each (batch, kv head) are packed once per call into
// fp32 GEMM panels; then every (sequence, q head, block of kBlockM query rows) is one work item
// that walks its visible keys kBlockN at a time, one stripe of kMicroRows rows after another:
//   S = (scale Q) K^T -> score modifiers / window -> P = exp(S - running max) -> O += P V
// (online softmax), and writes O / rowsum and the log-sum-exp at the end. bfloat16 inputs on a
// CPU with AMX run both products as bf16 tile products instead (amx.h): K and V packed as bf16
// tiles, stripes of 16 rows.
#include "amx.h"
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
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace flash_ext::cpu {
namespace {

// Query rows per work item and keys per block: a block's K / V panels (256 x 128 x 8 bytes at
// D = 128) stay in L2 while the item's 32 row stripes pass over them, and every item streams
// the packed K / V of its head from L3 once. Zen3, 2 cores: 192 x 256 is within noise of the
// best of 48..192 x 128..512 on every benchmark row, and ahead on causal ones.
constexpr int64_t kBlockM = 192;
constexpr int64_t kBlockN = 256;
// Keys per packing task of the K/V pre-pass.
constexpr int64_t kPackKeys = 256;
// fp32 floats of packed K / V held at once (64 MiB); longer calls go in chunks of kv heads.
constexpr int64_t kPackedKVBudget = int64_t{16} << 20;

// fp32 GEMM panels of one (batch, kv head): K^T as [seqlen_k / 16][head_dim][16] (B of
// S = Q K^T), V as [head_dim_v / 16][round_up(seqlen_k, 16)][16] (B of O += P V).
struct PackedKV {
  float* k_t = nullptr;
  float* v = nullptr;
  int64_t v_panel_stride = 0;
};

// Floats of one (batch, kv head)'s packed K and V: fp32 panels, or (amx) bf16 tiles, two a
// float.
inline int64_t packed_kv_floats(int64_t seqlen_k, int64_t head_dim, int64_t head_dim_v,
                                bool amx) {
  if (amx) {
    return (amx::packed_k_elems(seqlen_k, head_dim) +
            amx::packed_v_elems(seqlen_k, head_dim_v) + 1) / 2;
  }
  const int64_t keys = round_up(seqlen_k, kPanelWidth);
  return keys * head_dim + keys * round_up(head_dim_v, kPanelWidth);
}

inline PackedKV packed_kv_at(float* base, int64_t seqlen_k, int64_t head_dim, bool amx) {
  if (amx) {  // k_t and v point at bf16 tiles
    return PackedKV{base, base + amx::packed_k_elems(seqlen_k, head_dim) / 2, 0};
  }
  const int64_t keys = round_up(seqlen_k, kPanelWidth);
  return PackedKV{base, base + keys * head_dim, keys * kPanelWidth};
}

// Packs keys [j0, j1) (j0 a multiple of kPanelWidth) of kv head `kv_head` into `kv`.
template <typename T>
void pack_kv_keys(const AttentionParams& p, const SeqLen& seq, int64_t kv_head, int64_t j0,
                  int64_t j1, const PackedKV& kv, bool amx) {
  const int64_t d = p.head_dim;
  if constexpr (std::is_same_v<T, c10::BFloat16>) {
    if (amx) {
      amx::pack_keys(reinterpret_cast<const uint16_t*>(static_cast<const T*>(p.k) +
                                                       seq.k_offset(p.k_strides, kv_head, 0)),
                     p.k_strides.row,
                     reinterpret_cast<const uint16_t*>(static_cast<const T*>(p.v) +
                                                       seq.k_offset(p.v_strides, kv_head, 0)),
                     p.v_strides.row, d, p.head_dim_v, j0, j1, seq.seqlen_k,
                     reinterpret_cast<uint16_t*>(kv.k_t), reinterpret_cast<uint16_t*>(kv.v));
      return;
    }
  }
  const T* k = static_cast<const T*>(p.k) + seq.k_offset(p.k_strides, kv_head, j0);
  const T* v = static_cast<const T*>(p.v) + seq.k_offset(p.v_strides, kv_head, j0);
  pack_b_panels(k, 1, p.k_strides.row, d, j1 - j0, 1.f,
                kv.k_t + (j0 / kPanelWidth) * d * kPanelWidth, d * kPanelWidth);
  pack_b_panels(v, p.v_strides.row, 1, j1 - j0, p.head_dim_v, 1.f, kv.v + j0 * kPanelWidth,
                kv.v_panel_stride);
}

// A work item's buffers. amx: q holds bf16 rows of round_up(head_dim, 32) (two a float, zero
// past the head dim), s 16 rows, and p16 the stripe's probabilities in bf16.
struct ForwardScratch {
  Scratch scratch;
  float* q;        // [kBlockM][head_dim], pre-scaled
  float* s;        // [kMicroRows][kBlockN] scores, then probabilities, of one row stripe
  float* acc;      // [kBlockM][round_up(head_dim_v, 16)] unnormalized output
  float* row_max;  // [kBlockM]
  float* row_sum;  // [kBlockM]
  uint16_t* p16;   // amx: [16][kBlockN]

  static int64_t q_floats(int64_t head_dim, bool amx) {
    return amx ? kBlockM * round_up(head_dim, amx::kDepth) / 2 : kBlockM * head_dim;
  }
  static int64_t s_rows(bool amx) { return amx ? amx::kRows : kMicroRows; }

  ForwardScratch(int64_t head_dim, int64_t head_dim_v, bool amx = false)
      : scratch(Scratch::footprint(q_floats(head_dim, amx)) +
                Scratch::footprint(s_rows(amx) * kBlockN) +
                Scratch::footprint(kBlockM * round_up(head_dim_v, kPanelWidth)) +
                2 * Scratch::footprint(kBlockM) +
                (amx ? Scratch::footprint(amx::kRows * kBlockN / 2) : 0)),
        q(scratch.take(q_floats(head_dim, amx))),
        s(scratch.take(s_rows(amx) * kBlockN)),
        acc(scratch.take(kBlockM * round_up(head_dim_v, kPanelWidth))),
        row_max(scratch.take(kBlockM)),
        row_sum(scratch.take(kBlockM)),
        p16(amx ? reinterpret_cast<uint16_t*>(scratch.take(amx::kRows * kBlockN / 2))
                : nullptr) {}
};

// Online-softmax step for `rows` rows of the score tile s (row stride kBlockN, `cols` keys):
// turns scores into exp(s - new running max), updates row_max / row_sum and rescales the
// accumulated output rows when their max grew, or zeroes them at the row's first score above
// -inf. A row whose scores are all -inf so far keeps max -inf and contributes zeros. A NaN or
// +inf score makes the row's row_sum NaN (exp(NaN - max), inf - inf) for good: the row ends
// NaN, as in SDPA, without a branch per score. `scale` > 0: the scores are s times it.
inline void online_softmax(float* s, int64_t rows, int64_t cols, float* row_max, float* row_sum,
                           float* acc, int64_t ld_acc, int64_t head_dim, float scale = 1.f) {
  for (int64_t r = 0; r < rows; ++r) {
    float* s_row = s + r * kBlockN;
    const float max_old = row_max[r];
    float max_new = max_nan(max_old, scale * max_row(s_row, cols));
    if (max_new == kNegInf) {
      if (!has_nan(s_row, cols)) {
        std::fill(s_row, s_row + cols, 0.f);
        continue;
      }
      max_new = std::numeric_limits<float>::quiet_NaN();  // NaN and -inf scores only
    }
    const float block_sum = exp_sum_row(s_row, cols, max_new, scale);
    if (max_old == kNegInf) {
      // The row's output starts here, not from what earlier tiles whose keys it does not see
      // left in acc (0 * a NaN value is NaN).
      std::fill(acc + r * ld_acc, acc + (r + 1) * ld_acc, 0.f);
    } else if (max_new != max_old) {
      const float correction = std::exp(max_old - max_new);
      row_sum[r] *= correction;
      scale_row(acc + r * ld_acc, head_dim, correction);
    }
    row_sum[r] += block_sum;
    row_max[r] = max_new;
  }
}

// Epilogue: out = acc / row_sum (times the dropout rescale), lse = max + log(row_sum); rows
// that saw no key (max still -inf) get zeros and -inf, rows with a NaN row_sum NaN. A sink s
// joins the sum first: with m' = max(max, s), sum' = sum exp(max - m') + exp(s - m'), and the
// output is scaled by exp(max - m') / sum' (a row without keys: zeros, lse = s; s = +inf:
// zeros, lse +inf).
// ws_row0: the first of the rows' entries in ws.
template <typename T>
void store_output(const AttentionParams& p, const SeqLen& seq, int64_t h, int64_t i0,
                  int64_t rows, const ForwardScratch& ws, int64_t ws_row0, float keep_scale) {
  const int64_t dv = p.head_dim_v;
  const int64_t ld_acc = round_up(dv, kPanelWidth);
  const float sink = p.sinks != nullptr ? p.sinks[h] : kNegInf;
  T* out = static_cast<T*>(p.out);
  for (int64_t r = 0; r < rows; ++r) {
    T* out_row = out + seq.q_offset(p.out_strides, h, i0 + r);
    float* lse = p.lse + seq.q_offset(p.lse_strides, h, i0 + r);
    const float max = ws.row_max[ws_row0 + r];
    float sum = ws.row_sum[ws_row0 + r];
    float factor = 1.f;
    float lse_max = max;
    if (sink != kNegInf) {
      if (sink == std::numeric_limits<float>::infinity()) {
        std::fill(out_row, out_row + dv, T(0.f));
        *lse = sink;
        continue;
      }
      lse_max = std::max(max, sink);  // a NaN sink: the sum below is NaN
      factor = max == kNegInf ? 0.f : std::exp(max - lse_max);
      sum = sum * factor + std::exp(sink - lse_max);
    }
    if (max == kNegInf) {
      std::fill(out_row, out_row + dv, T(0.f));
      *lse = sink == kNegInf ? kNegInf : lse_max + std::log(sum);
    } else {
      store_row(ws.acc + (ws_row0 + r) * ld_acc, out_row, dv, keep_scale * factor / sum);
      *lse = lse_max + std::log(sum);
    }
  }
}

// Mainloop of one work item: query rows [i0, i0 + kBlockM) of head h against the keys they see.
template <typename T>
void forward_block(const AttentionParams& p, const SeqLen& seq, int64_t b, int64_t h,
                   int64_t m_block, const PackedKV& kv, ForwardScratch& ws) {
  const int64_t d = p.head_dim;
  const int64_t dv = p.head_dim_v;
  const int64_t ld_acc = round_up(dv, kPanelWidth);
  const int64_t i0 = m_block * kBlockM;
  const int64_t rows = std::min(kBlockM, seq.seqlen_q - i0);
  const VisibleKeys visible = visible_keys(p, seq);
  const ScoreMod mod = score_mod(p, seq, b, h);
  const DropoutTile dropout = dropout_tile(p, b, h);

  std::fill(ws.row_max, ws.row_max + rows, kNegInf);
  std::fill(ws.row_sum, ws.row_sum + rows, 0.f);
  // Keys seen by any row; starts on a panel boundary so K^T panels can be addressed directly.
  const int64_t n_begin = visible.begin(i0) / kPanelWidth * kPanelWidth;
  const int64_t n_end = visible.end(i0 + rows - 1);

  if (n_begin < n_end) {
    const T* q = static_cast<const T*>(p.q);
    for (int64_t r = 0; r < rows; ++r) {
      convert_row(q + seq.q_offset(p.q_strides, h, i0 + r), ws.q + r * d, d, p.scale);
    }
  }
  for (int64_t j0 = n_begin; j0 < n_end; j0 += kBlockN) {
    const int64_t j1 = std::min(j0 + kBlockN, n_end);
    // One stripe of kMicroRows rows at a time: its scores stay in L1 from the S GEMM through
    // the softmax to the P V GEMM, and its keys are clamped to those its rows see (causal and
    // window blocks waste at most a stripe's worth of diagonal).
    for (int64_t r0 = 0; r0 < rows; r0 += kMicroRows) {
      const int64_t stripe_rows = std::min<int64_t>(kMicroRows, rows - r0);
      const int64_t row0 = i0 + r0;
      const int64_t row1 = row0 + stripe_rows;
      const int64_t k0 = std::max(j0, visible.begin(row0) / kPanelWidth * kPanelWidth);
      const int64_t k1 = std::min(j1, visible.end(row1 - 1));
      if (k0 >= k1) {
        continue;
      }
      const int64_t cols = k1 - k0;
      gemm<false>(stripe_rows, cols, d, ws.q + r0 * d, d,
                  kv.k_t + (k0 / kPanelWidth) * d * kPanelWidth, d * kPanelWidth, ws.s, kBlockN,
                  false);
      if (mod.active()) {
        mod.apply(ws.s, kBlockN, row0, stripe_rows, k0, cols, nullptr);
      }
      if (!visible.all_visible(row0, row1, k0, k1)) {
        visible.hide(ws.s, kBlockN, row0, stripe_rows, k0, cols);
      }
      online_softmax(ws.s, stripe_rows, cols, ws.row_max + r0, ws.row_sum + r0,
                     ws.acc + r0 * ld_acc, ld_acc, dv);
      if (dropout.enabled) {
        for (int64_t r = 0; r < stripe_rows; ++r) {
          dropout.drop_row(ws.s + r * kBlockN, row0 + r, k0, cols);
        }
      }
      gemm<false>(stripe_rows, dv, cols, ws.s, kBlockN, kv.v + k0 * kPanelWidth,
                  kv.v_panel_stride, ws.acc + r0 * ld_acc, ld_acc, true);
    }
  }
  store_output<T>(p, seq, h, i0, rows, ws, 0, dropout.keep_scale);
}

#ifdef FLASH_EXT_CPU_AMX
static_assert(kBlockM % amx::kRows == 0 && kBlockN % amx::kKeyAlign == 0);

// forward_block on bfloat16 with AMX (amx.h): the stripe's rows of Q as they are (the scale
// applied to the scores), kv packed by amx::pack_keys, stripes of 16 rows whose keys start on
// a multiple of 64 (keys before the first visible one are hidden like any other).
void forward_block_amx(const AttentionParams& p, const SeqLen& seq, int64_t b, int64_t h,
                       int64_t m_block, const PackedKV& kv, ForwardScratch& ws) {
  const int64_t d = p.head_dim;
  const int64_t dv = p.head_dim_v;
  const int64_t ld_acc = round_up(dv, kPanelWidth);
  const int64_t ld_q = round_up(d, amx::kDepth);
  const int64_t d_chunks = ld_q / amx::kDepth;
  const int64_t v_groups = round_up(dv, amx::kCols) / amx::kCols;
  const int64_t i0 = m_block * kBlockM;
  const int64_t rows = std::min(kBlockM, seq.seqlen_q - i0);
  const VisibleKeys visible = visible_keys(p, seq);
  const ScoreMod mod = score_mod(p, seq, b, h);
  const DropoutTile dropout = dropout_tile(p, b, h);
  const auto* k_tiles = reinterpret_cast<const uint16_t*>(kv.k_t);
  const auto* v_tiles = reinterpret_cast<const uint16_t*>(kv.v);
  auto* q16 = reinterpret_cast<uint16_t*>(ws.q);

  std::fill(ws.row_max, ws.row_max + rows, kNegInf);
  std::fill(ws.row_sum, ws.row_sum + rows, 0.f);
  const int64_t n_begin = visible.begin(i0) / amx::kKeyAlign * amx::kKeyAlign;
  const int64_t n_end = visible.end(i0 + rows - 1);
  if (n_begin >= n_end) {
    store_output<c10::BFloat16>(p, seq, h, i0, rows, ws, 0, dropout.keep_scale);
    return;
  }
  const auto* q = static_cast<const c10::BFloat16*>(p.q);
  const int64_t staged = round_up(rows, amx::kRows);
  for (int64_t r = 0; r < staged; ++r) {
    uint16_t* dst = q16 + r * ld_q;
    if (r < rows) {
      std::memcpy(dst, q + seq.q_offset(p.q_strides, h, i0 + r), d * sizeof(uint16_t));
    }
    std::fill(dst + (r < rows ? d : 0), dst + ld_q, uint16_t{0});
  }
  amx::configure();
  for (int64_t j0 = n_begin; j0 < n_end; j0 += kBlockN) {
    const int64_t j1 = std::min(j0 + kBlockN, n_end);
    for (int64_t r0 = 0; r0 < rows; r0 += amx::kRows) {
      const int64_t stripe_rows = std::min<int64_t>(amx::kRows, rows - r0);
      const int64_t row0 = i0 + r0;
      const int64_t row1 = row0 + stripe_rows;
      const int64_t k0 =
          std::max(j0, visible.begin(row0) / amx::kKeyAlign * amx::kKeyAlign);
      const int64_t k1 = std::min(j1, visible.end(row1 - 1));
      if (k0 >= k1) {
        continue;
      }
      const int64_t cols = k1 - k0;
      const int64_t groups = round_up(cols, amx::kCols) / amx::kCols;
      for (int64_t g0 = 0; g0 < groups; g0 += 4) {
        amx::with_groups(groups - g0, [&](auto n) {
          amx::scores<n()>(q16 + r0 * ld_q, ld_q,
                           k_tiles + (k0 / amx::kCols + g0) * d_chunks * amx::kTile, d_chunks,
                           ws.s + g0 * amx::kCols, kBlockN);
        });
      }
      // The scale goes into the softmax's exponent, unless a score modifier needs the scores.
      float exponent_scale = p.scale;
      if (mod.active()) {
        for (int64_t r = 0; r < stripe_rows; ++r) {
          scale_row(ws.s + r * kBlockN, cols, p.scale);
        }
        mod.apply(ws.s, kBlockN, row0, stripe_rows, k0, cols, nullptr);
        exponent_scale = 1.f;
      }
      if (!visible.all_visible(row0, row1, k0, k1)) {
        visible.hide(ws.s, kBlockN, row0, stripe_rows, k0, cols);
      }
      online_softmax(ws.s, stripe_rows, cols, ws.row_max + r0, ws.row_sum + r0,
                     ws.acc + r0 * ld_acc, ld_acc, dv, exponent_scale);
      if (dropout.enabled) {
        for (int64_t r = 0; r < stripe_rows; ++r) {
          dropout.drop_row(ws.s + r * kBlockN, row0 + r, k0, cols);
        }
      }
      amx::to_bf16(ws.s, kBlockN, stripe_rows, cols, ws.p16, kBlockN);
      const int64_t k_chunks = round_up(cols, amx::kDepth) / amx::kDepth;
      for (int64_t g0 = 0; g0 < v_groups; g0 += 4) {
        amx::with_groups(v_groups - g0, [&](auto n) {
          amx::values<n()>(ws.p16, kBlockN,
                           v_tiles + ((k0 / amx::kDepth) * v_groups + g0) * amx::kTile, v_groups,
                           k_chunks, ws.acc + r0 * ld_acc + g0 * amx::kCols, ld_acc);
        });
      }
    }
  }
  amx::release();
  store_output<c10::BFloat16>(p, seq, h, i0, rows, ws, 0, dropout.keep_scale);
}
#endif  // FLASH_EXT_CPU_AMX

// Decoding: a call whose sequences have at most kDirectRows query rows reads every key and
// value row where it lies, converted to fp32 as it is read, instead of packing K and V into GEMM
// panels first: at so few rows the pre-pass (a read and a write of every key and value, in
// fp32) costs more than the attention, and the GEMM micro tiles run one row of work.
constexpr int64_t kDirectRows = 16;

inline float sum_lanes(const Vec& x) {
  return at::vec::vec_reduce_all<float>([](const Vec& a, const Vec& b) { return a + b; }, x);
}

// Independent accumulation chains per row: an FMA waits ~4 cycles for its accumulator and two
// issue a cycle, so a stripe keeps about eight chains going (a row alone would run at an eighth
// of the FMA rate). Keys are taken kPhases at a time, each into chains of its own.
template <int kRows>
constexpr int kPhases = kRows <= 2 ? 4 : (kRows <= 4 ? 2 : 1);

// s[r * kBlockN + c + key] = q_r . k_(c + key) for the kRows rows of q (fp32, row stride d) and
// the kKeys key rows from c of k (row stride ld_k), converted to fp32 as they are read.
template <int kRows, int kKeys, typename T>
void score_keys(const float* q, int64_t d, const T* k, int64_t ld_k, int64_t c, float* s) {
  Vec acc[kRows * kKeys];
#pragma GCC unroll 8
  for (int a = 0; a < kRows * kKeys; ++a) acc[a] = Vec(0.f);
  int64_t i = 0;
  for (; i + kVecSize <= d; i += kVecSize) {
#pragma GCC unroll 4
    for (int key = 0; key < kKeys; ++key) {
      const Vec kv = load_float(k + (c + key) * ld_k + i);
#pragma GCC unroll 6
      for (int r = 0; r < kRows; ++r) {
        acc[key * kRows + r] = at::vec::fmadd(Vec::loadu(q + r * d + i), kv, acc[key * kRows + r]);
      }
    }
  }
  for (int key = 0; key < kKeys; ++key) {
    const T* k_row = k + (c + key) * ld_k;
    for (int r = 0; r < kRows; ++r) {
      float sum = sum_lanes(acc[key * kRows + r]);
      for (int64_t t = i; t < d; ++t) sum += q[r * d + t] * static_cast<float>(k_row[t]);
      s[r * kBlockN + c + key] = sum;
    }
  }
}

// The scores of the `cols` keys of k against the kRows rows of q, kPhases keys at a time.
template <int kRows, typename T>
void direct_scores(const float* q, int64_t d, const T* k, int64_t ld_k, int64_t cols, float* s) {
  static_assert(kRows >= 1 && kRows <= kMicroRows);
  constexpr int kKeys = kPhases<kRows>;
  int64_t c = 0;
  for (; c + kKeys <= cols; c += kKeys) score_keys<kRows, kKeys>(q, d, k, ld_k, c, s);
  for (; c < cols; ++c) score_keys<kRows, 1>(q, d, k, ld_k, c, s);
}

// acc_r += sum_c p[r * kBlockN + c] v_c over the `cols` value rows of v (row stride ld_v), for
// the kRows output rows of acc (row stride ld_acc), dv columns.
template <int kRows, typename T>
void direct_values(const float* p, const T* v, int64_t ld_v, int64_t cols, int64_t dv,
                   float* acc, int64_t ld_acc) {
  static_assert(kRows >= 1 && kRows <= kMicroRows);
  constexpr int kKeys = kPhases<kRows>;
  int64_t i = 0;
  for (; i + kVecSize <= dv; i += kVecSize) {
    Vec sum[kRows * kKeys];
#pragma GCC unroll 8
    for (int a = 0; a < kRows * kKeys; ++a) sum[a] = Vec(0.f);
    int64_t c = 0;
    for (; c + kKeys <= cols; c += kKeys) {
#pragma GCC unroll 4
      for (int key = 0; key < kKeys; ++key) {
        const Vec vv = load_float(v + (c + key) * ld_v + i);
#pragma GCC unroll 6
        for (int r = 0; r < kRows; ++r) {
          sum[key * kRows + r] =
              at::vec::fmadd(Vec(p[r * kBlockN + c + key]), vv, sum[key * kRows + r]);
        }
      }
    }
    for (; c < cols; ++c) {
      const Vec vv = load_float(v + c * ld_v + i);
      for (int r = 0; r < kRows; ++r) {
        sum[r] = at::vec::fmadd(Vec(p[r * kBlockN + c]), vv, sum[r]);
      }
    }
    for (int r = 0; r < kRows; ++r) {
      Vec total = Vec::loadu(acc + r * ld_acc + i);
      for (int key = 0; key < kKeys; ++key) total = total + sum[key * kRows + r];
      total.store(acc + r * ld_acc + i);
    }
  }
  for (; i < dv; ++i) {
    for (int r = 0; r < kRows; ++r) {
      float total = acc[r * ld_acc + i];
      for (int64_t c = 0; c < cols; ++c) {
        total += p[r * kBlockN + c] * static_cast<float>(v[c * ld_v + i]);
      }
      acc[r * ld_acc + i] = total;
    }
  }
}

// fn(std::integral_constant<int, rows>{}) for a stripe of 1..kMicroRows rows.
template <typename Fn>
void with_stripe_rows(int64_t rows, Fn&& fn) {
  switch (rows) {
    case 6: return fn(std::integral_constant<int, 6>{});
    case 5: return fn(std::integral_constant<int, 5>{});
    case 4: return fn(std::integral_constant<int, 4>{});
    case 3: return fn(std::integral_constant<int, 3>{});
    case 2: return fn(std::integral_constant<int, 2>{});
    default: return fn(std::integral_constant<int, 1>{});
  }
}

// forward_block for a sequence of at most kDirectRows query rows, K and V read in place, for
// `heads` query heads from `h0` that share one kv head. Their rows form one tile (head g's row
// r is tile row g * seqlen_q + r), so that at Sq = 1 a stripe holds six heads' queries and each
// key and value is converted and read once for all six.
template <typename T>
void forward_direct(const AttentionParams& p, const SeqLen& seq, int64_t b, int64_t h0,
                    int64_t heads, ForwardScratch& ws) {
  const int64_t d = p.head_dim;
  const int64_t dv = p.head_dim_v;
  const int64_t ld_acc = round_up(dv, kPanelWidth);
  const int64_t sq = seq.seqlen_q;
  const int64_t rows = heads * sq;
  const VisibleKeys visible = visible_keys(p, seq);
  const bool modded = score_mod(p, seq, b, h0).active();
  const bool dropped = dropout_tile(p, b, h0).enabled;
  const int64_t kv_head = h0 / (p.heads_q / p.heads_kv);
  const T* k = static_cast<const T*>(p.k) + seq.k_offset(p.k_strides, kv_head, 0);
  const T* v = static_cast<const T*>(p.v) + seq.k_offset(p.v_strides, kv_head, 0);

  std::fill(ws.row_max, ws.row_max + rows, kNegInf);
  std::fill(ws.row_sum, ws.row_sum + rows, 0.f);
  const int64_t n_begin = visible.begin(0);
  const int64_t n_end = visible.end(sq - 1);
  if (n_begin < n_end) {
    const T* q = static_cast<const T*>(p.q);
    for (int64_t row = 0; row < rows; ++row) {
      convert_row(q + seq.q_offset(p.q_strides, h0 + row / sq, row % sq), ws.q + row * d, d,
                  p.scale);
    }
  }
  for (int64_t j0 = n_begin; j0 < n_end; j0 += kBlockN) {
    const int64_t j1 = std::min(j0 + kBlockN, n_end);
    for (int64_t r0 = 0; r0 < rows; r0 += kMicroRows) {
      const int64_t stripe_rows = std::min<int64_t>(kMicroRows, rows - r0);
      // The stripe's query positions: consecutive, or all of them where it crosses heads.
      const bool one_head = r0 / sq == (r0 + stripe_rows - 1) / sq;
      const int64_t i_first = one_head ? r0 % sq : 0;
      const int64_t i_last = one_head ? (r0 + stripe_rows - 1) % sq : sq - 1;
      const int64_t k0 = std::max(j0, visible.begin(i_first));
      const int64_t k1 = std::min(j1, visible.end(i_last));
      if (k0 >= k1) {
        continue;
      }
      const int64_t cols = k1 - k0;
      with_stripe_rows(stripe_rows, [&](auto n) {
        direct_scores<n()>(ws.q + r0 * d, d, k + k0 * p.k_strides.row, p.k_strides.row, cols,
                           ws.s);
      });
      const bool all_visible = visible.all_visible(i_first, i_last + 1, k0, k1);
      if (modded || !all_visible) {
        for (int64_t r = 0; r < stripe_rows; ++r) {
          const int64_t h = h0 + (r0 + r) / sq, i = (r0 + r) % sq;
          if (modded) score_mod(p, seq, b, h).apply(ws.s + r * kBlockN, kBlockN, i, 1, k0, cols,
                                                    nullptr);
          if (!all_visible) visible.hide(ws.s + r * kBlockN, kBlockN, i, 1, k0, cols);
        }
      }
      online_softmax(ws.s, stripe_rows, cols, ws.row_max + r0, ws.row_sum + r0,
                     ws.acc + r0 * ld_acc, ld_acc, dv);
      if (dropped) {
        for (int64_t r = 0; r < stripe_rows; ++r) {
          const int64_t h = h0 + (r0 + r) / sq, i = (r0 + r) % sq;
          dropout_tile(p, b, h).drop_row(ws.s + r * kBlockN, i, k0, cols);
        }
      }
      with_stripe_rows(stripe_rows, [&](auto n) {
        direct_values<n()>(ws.s, v + k0 * p.v_strides.row, p.v_strides.row, cols, dv,
                           ws.acc + r0 * ld_acc, ld_acc);
      });
    }
  }
  for (int64_t g = 0; g < heads; ++g) {
    store_output<T>(p, seq, h0 + g, 0, sq, ws, g * sq, dropout_tile(p, b, h0 + g).keep_scale);
  }
}

struct WorkItem {
  int64_t batch;
  int64_t head;
  int64_t m_block;
  int64_t cost;  // visible (query, key) pairs, for costliest-first ordering
};

// A decoding item: `heads` query heads from `head` (of one kv head), all rows of batch entry b.
struct DirectItem {
  int64_t batch;
  int64_t head;
  int64_t heads;
  int64_t cost;
};

template <typename T>
void run_forward(const AttentionParams& p) {
  const int64_t d = p.head_dim;
  const int64_t dv = p.head_dim_v;
  const int64_t group = p.heads_q / p.heads_kv;
  std::vector<SeqLen> seqs(p.batch);
  for (int64_t b = 0; b < p.batch; ++b) {
    seqs[b] = seq_len(p, b);
  }

  if (p.seqlen_q <= kDirectRows) {
    // Items of up to kBlockM / seqlen_q query heads of one kv head.
    const int64_t per_item = std::max<int64_t>(1, std::min(group, kBlockM / p.seqlen_q));
    std::vector<DirectItem> items;
    for (int64_t b = 0; b < p.batch; ++b) {
      if (seqs[b].seqlen_q == 0) continue;
      const VisibleKeys visible = visible_keys(p, seqs[b]);
      const int64_t keys =
          std::max<int64_t>(visible.end(seqs[b].seqlen_q - 1) - visible.begin(0), 0);
      for (int64_t h = 0; h < p.heads_q;) {
        const int64_t heads = std::min(per_item, (h / group + 1) * group - h);
        items.push_back({b, h, heads, heads * seqs[b].seqlen_q * (keys + dv)});
        h += heads;
      }
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const DirectItem& x, const DirectItem& y) { return x.cost > y.cost; });
    for_each_item(
        static_cast<int64_t>(items.size()), [&] { return ForwardScratch(d, dv); },
        [&](ForwardScratch& ws, int64_t index) {
          const DirectItem& item = items[index];
          forward_direct<T>(p, seqs[item.batch], item.batch, item.head, item.heads, ws);
        });
    return;
  }

  // bfloat16 on a CPU with AMX: bf16 tile products (amx.h).
  const bool amx = std::is_same_v<T, c10::BFloat16> && amx::available();
  // Chunks of consecutive (batch, kv head) pairs whose packed K/V fit the budget (at least one).
  const int64_t num_pairs = p.batch * p.heads_kv;
  std::vector<int64_t> pair_offset(num_pairs + 1, 0);
  for (int64_t pair = 0; pair < num_pairs; ++pair) {
    pair_offset[pair + 1] =
        pair_offset[pair] + packed_kv_floats(seqs[pair / p.heads_kv].seqlen_k, d, dv, amx);
  }
  std::vector<int64_t> chunk_begin{0};
  for (int64_t pair = 1; pair < num_pairs; ++pair) {
    if (pair_offset[pair + 1] - pair_offset[chunk_begin.back()] > kPackedKVBudget) {
      chunk_begin.push_back(pair);
    }
  }
  chunk_begin.push_back(num_pairs);
  int64_t max_chunk_floats = 0;
  for (size_t chunk = 0; chunk + 1 < chunk_begin.size(); ++chunk) {
    max_chunk_floats = std::max(
        max_chunk_floats, pair_offset[chunk_begin[chunk + 1]] - pair_offset[chunk_begin[chunk]]);
  }
  Scratch packed(max_chunk_floats);
  float* packed_base = packed.take(max_chunk_floats);

  for (size_t chunk = 0; chunk + 1 < chunk_begin.size(); ++chunk) {
    const int64_t pair0 = chunk_begin[chunk];
    const int64_t pair1 = chunk_begin[chunk + 1];
    auto kv_of_pair = [&](int64_t pair) {
      return packed_kv_at(packed_base + pair_offset[pair] - pair_offset[pair0],
                          seqs[pair / p.heads_kv].seqlen_k, d, amx);
    };

    // Pre-pass: pack K and V of the chunk, kPackKeys keys per task.
    std::vector<std::pair<int64_t, int64_t>> pack_tasks;  // (pair, first key)
    for (int64_t pair = pair0; pair < pair1; ++pair) {
      for (int64_t j0 = 0; j0 < seqs[pair / p.heads_kv].seqlen_k; j0 += kPackKeys) {
        pack_tasks.emplace_back(pair, j0);
      }
    }
    const int64_t num_tasks = static_cast<int64_t>(pack_tasks.size());
    at::parallel_for(0, num_tasks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const auto [pair, j0] = pack_tasks[t];
        const SeqLen& seq = seqs[pair / p.heads_kv];
        pack_kv_keys<T>(p, seq, pair % p.heads_kv, j0, std::min(j0 + kPackKeys, seq.seqlen_k),
                        kv_of_pair(pair), amx);
      }
    });

    std::vector<WorkItem> items;
    for (int64_t pair = pair0; pair < pair1; ++pair) {
      const int64_t b = pair / p.heads_kv;
      const VisibleKeys visible = visible_keys(p, seqs[b]);
      for (int64_t m_block = 0; m_block * kBlockM < seqs[b].seqlen_q; ++m_block) {
        const int64_t i0 = m_block * kBlockM;
        const int64_t i1 = std::min(i0 + kBlockM, seqs[b].seqlen_q);
        const int64_t keys = std::max<int64_t>(visible.end(i1 - 1) - visible.begin(i0), 0);
        for (int64_t g = 0; g < group; ++g) {
          items.push_back({b, (pair % p.heads_kv) * group + g, m_block,
                           (i1 - i0) * (keys + dv)});
        }
      }
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const WorkItem& x, const WorkItem& y) { return x.cost > y.cost; });

    for_each_item(
        static_cast<int64_t>(items.size()), [&] { return ForwardScratch(d, dv, amx); },
        [&](ForwardScratch& ws, int64_t index) {
          const WorkItem& item = items[index];
          const PackedKV kv = kv_of_pair(item.batch * p.heads_kv + item.head / group);
#ifdef FLASH_EXT_CPU_AMX
          if (amx) {
            return forward_block_amx(p, seqs[item.batch], item.batch, item.head, item.m_block,
                                     kv, ws);
          }
#endif
          forward_block<T>(p, seqs[item.batch], item.batch, item.head, item.m_block, kv, ws);
        });
  }
}

}  // namespace

void attention_forward(const AttentionParams& params) {
  switch (params.dtype) {
    case c10::ScalarType::Float:
      return run_forward<float>(params);
    case c10::ScalarType::BFloat16:
      return run_forward<c10::BFloat16>(params);
    case c10::ScalarType::Half:
      return run_forward<c10::Half>(params);
    default:
      TORCH_CHECK(false, "flash_ext cpu attention: unsupported dtype ", params.dtype);
  }
}

}  // namespace flash_ext::cpu
