// What the two flash backward kernels (bwd_kernel.h, bwd_sm90_kernel.h) share around their
// steps: a key block's rows in global memory, the walk over (query head, query block) steps,
// a step's dq atomics, and the dK/dV epilogue.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cute/tensor.hpp>

#include "bwd_prepost.h"
#include "mask.h"
#include "params.h"
#include "seqlen.h"
#include "utils.h"

namespace flash {

using namespace cute;

// The key blocks, batch and KV head of one backward CTA. Deterministic grid of the mma.sync
// kernel (dq slices, batch, KV heads): CTA x walks key blocks x, x + dq_splits, ... into its own
// dq slice. Otherwise (the Hopper kernel's deterministic calls too: p.dq_semaphore) one
// key block per CTA (two where paired, below), on a grid (key blocks, batch, KV heads): the
// CTAs running at once share a head or two, whose Q and dO stay in L2. key_block_major (causal
// calls of at most 4 waves): a 1-D grid with the key block slowest, so that the first key
// blocks, the longest under a causal mask (they see the most query blocks), start first across
// every head; by head, the last heads' long blocks started last and ran alone at the end (GQA
// row: 512 CTAs on 132 SMs, simulated 1.24x of the balanced time, 1.01x so; measured +20%).
// With more waves the tail is a smaller share and the L2 locality of the head order wins
// (causal 1k/4k rows 4-18% slower key block major). Rising walks (p.rising_walk) take a
// head's key blocks from the last down.
// Paired key blocks (p.paired_key_blocks: unordered causal calls on the head-major grid with at
// most 32 key blocks a head, launch_bwd_main): CTA x of a head with N key blocks runs block x,
// then block N - 1 - x (none when x passes the middle), so that every CTA walks about as many
// query blocks as one key block does without a mask, and a short key block's start and end
// cost no CTA of its own. The loops over a CTA's key blocks:
// for (n = tile.n_block; tile.has(n, ...); n = tile.next(n, ...)).
struct BwdTile {
  int n_block, n_step, bidb, kv_head, dq_slice;
  bool paired = false;

  __device__ BwdTile(const BwdParams& p, int block_n) {
    if (p.deterministic && p.dq_semaphore == nullptr) {
      n_block = blockIdx.x;
      n_step = gridDim.x;
      bidb = blockIdx.y;
      kv_head = blockIdx.z;
      dq_slice = blockIdx.x;
      return;
    }
    n_step = (p.seqlen_k + block_n - 1) / block_n;  // one key block: the longest's count
    dq_slice = 0;
    if (p.key_block_major) {
      const int heads = p.batch * p.heads_kv;
      n_block = blockIdx.x / heads;
      bidb = blockIdx.x % heads / p.heads_kv;
      kv_head = blockIdx.x % p.heads_kv;
    } else {
      // Rising walks: a head's last key block first (KeyBlockSteps: the blocks a block waits
      // for then started before it).
      n_block = p.rising_walk ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
      bidb = blockIdx.y;
      kv_head = blockIdx.z;
      paired = p.paired_key_blocks;
    }
  }

  // Whether key block n (n_block or one next() gave) is the CTA's in a sequence of seqlen_k.
  __device__ bool has(int n, int block_n, int seqlen_k) const {
    const int blocks = (seqlen_k + block_n - 1) / block_n;
    return n < blocks && (!paired || 2 * n_block < blocks);
  }

  // The CTA's key block after n (past the sequence's blocks when there is none).
  __device__ int next(int n, int block_n, int seqlen_k) const {
    if (!paired) return n + n_step;
    const int blocks = (seqlen_k + block_n - 1) / block_n;
    return n == n_block && blocks - 1 - n_block > n_block ? blocks - 1 - n_block : blocks;
  }
};

// Rows [n0, n0 + kBlockN) of (bidb, kv_head) in a tensor laid out like k.
template <typename Element, int kBlockN, int kHeadDim, typename T>
__device__ __forceinline__ auto key_rows(T* base, int64_t batch_stride, int64_t head_stride,
                                         int64_t row_stride, const SeqLen& seq, int bidb,
                                         int kv_head, int n0) {
  using E = std::conditional_t<std::is_const_v<T>, const Element, Element>;
  E* ptr = static_cast<E*>(base) + seq.k_offset(batch_stride, head_stride, row_stride, bidb, kv_head) +
           int64_t(n0) * row_stride;
  return make_tensor(make_gmem_ptr(ptr), Shape<Int<kBlockN>, Int<kHeadDim>>{},
                     make_stride(row_stride, _1{}));
}

// The steps of key block n_block of (seq, kv_head): the query heads h_first.. of the KV head's
// group, and for each the query blocks m_first..m_last whose rows see some key of the block
// (the same for every head), from m_last down when p.walk_down: under a causal mask the key
// blocks of a head then reach each query block at the same step (the last query block is the
// last of every key block), so that ordered dq additions (p.dq_semaphore) wait only for each
// other's reductions, and the CTAs running at once read the same Q and dO. Every role of a
// kernel derives the same sequence from it.
// Ordered additions where every key block sees every query block (no causal mask, no window)
// and there are no more key blocks than query blocks (`cyclic`): key block j starts its walk
// down at m_last - j and wraps around, so that the key blocks of a head add to different query
// blocks at each step instead of queueing on one (the deterministic backward ran at 0.70-0.85x
// of the default with them all on one); each query block takes the additions in the order the
// blocks reach it (earlier_key_blocks). A block may then wait for a later one of its (batch,
// KV head), which must be able to run beside it: only where a head has at most half as many
// key blocks as the device has SMs (one CTA an SM; the half leaves room for other streams'
// kernels). Otherwise a block waits only for earlier ones, which started before it.
// Ordered additions under a causal mask or a window on the head-major grid (`rising`:
// p.rising_walk): every block walks its query blocks up from its first, which comes later the
// later the block, so that a query block's blocks reach it one after the other, the last block
// first, and take their turns in that order (from the default's walk down, all reached it at
// the same step). The grid starts a head's blocks from the last (BwdTile), so that a block
// waits only for blocks that started before it, however many key blocks a head has (started
// from the first, a head's long first blocks waited for its last ones, which started only as
// other CTAs ended, and needed room to run beside them).
template <int kBlockM, int kBlockN, bool kCausal>
struct KeyBlockSteps {
  Mask<kCausal> visible;  // visibility only (no ALiBi)
  int n0, keys, m_first, m_last, h_first, num_steps, n_blocks, m_start, seqlen_q;
  bool reverse, cyclic, rising;

  __device__ __forceinline__ KeyBlockSteps(const BwdParams& p, const SeqLen& seq, int kv_head,
                                           int n_block)
      : visible(seq.seqlen_q, seq.seqlen_k, p.bottom_right, p.window_left, p.window_right, 0.f),
        n0(n_block * kBlockN),
        keys(min(kBlockN, seq.seqlen_k - n0)),
        seqlen_q(seq.seqlen_q) {
    const int row_begin = visible.row_begin(n0);
    const int row_end = visible.row_end(n0 + keys - 1, seq.seqlen_q);
    const int num_m = row_end > row_begin ? (row_end + kBlockM - 1) / kBlockM - row_begin / kBlockM : 0;
    const int group = p.heads_q / p.heads_kv;
    m_first = row_begin / kBlockM;
    m_last = m_first + num_m - 1;
    h_first = kv_head * group;
    num_steps = num_m * group;
    n_blocks = (seq.seqlen_k + kBlockN - 1) / kBlockN;
    const bool beside = p.dq_semaphore != nullptr && n_blocks <= p.num_sms / 2;
    const bool masked = kCausal || p.window_left >= 0 || p.window_right >= 0;
    cyclic = beside && !masked && n_blocks <= num_m;
    rising = p.rising_walk;
    reverse = p.walk_down && !rising;
    m_start = cyclic ? m_last - n_block : reverse ? m_last : m_first;
  }

  // fn(i, h, m, h_next, m_next) for each step i: query head h, query block m, and the next
  // step's (past the last step: a head past the group).
  template <typename Fn>
  __device__ __forceinline__ void walk(Fn&& fn) const {
    const int step = reverse ? -1 : 1;
    const int m_end = reverse ? m_first : m_last;  // where the walk wraps around
    const int m_wrap = reverse ? m_last : m_first;
    const int m_stop = m_start == m_wrap ? m_end : m_start - step;  // a head's last step
    for (int i = 0, h = h_first, m = m_start; i < num_steps; ++i) {
      const int h_next = m == m_stop ? h + 1 : h;
      const int m_next = m == m_end ? m_wrap : m + step;
      fn(i, h, m, h_next, m_next);
      h = h_next;
      m = m_next;
    }
  }

  // How many key blocks add to query block m (one of this block's steps) before this one. In
  // a plain walk they form a run ending at this block, from the block of the first key that
  // row m * kBlockM sees. Cyclic (all n_blocks blocks see m): block j reaches m at step
  // (c - j) mod num_m, c = m_last - m, all at different steps (n_blocks <= num_m); in that
  // order m takes blocks c, c - 1, ..., 0, n_blocks - 1, ..., c + 1 (c < n_blocks), or from
  // n_blocks - 1 down: j's turn is (min(c, n_blocks - 1) - j) mod n_blocks. Rising: the blocks
  // that see m form a run from n_block_begin to the last key block its last row sees, and take
  // their turns from that one down.
  __device__ __forceinline__ int earlier_key_blocks(int m) const {
    const int j = n0 / kBlockN;
    if (cyclic) {
      const int t = min(m_last - m, n_blocks - 1) - j;
      return t < 0 ? t + n_blocks : t;
    }
    if (rising) {
      return visible.template n_block_end<kBlockN>(min((m + 1) * kBlockM, seqlen_q)) - 1 - j;
    }
    return j - visible.template n_block_begin<kBlockN>(m * kBlockM);
  }

  // walk's steps as step(i, h, m, h_next, m_next, is_masked), is_masked (std::true_type or
  // std::false_type) when the block needs the softcap, ALiBi or visibility code.
  template <typename Step>
  __device__ __forceinline__ void for_each_step(bool all_masked, int seqlen_q, Step&& step) const {
    walk([&](int i, int h, int m, int h_next, int m_next) __attribute__((always_inline)) {
      const int m0 = m * kBlockM;
      if (all_masked || visible.template block_needs_mask<kBlockN>(n0, m0, min(m0 + kBlockM, seqlen_q))) {
        step(i, h, m, h_next, m_next, std::true_type{});
      } else {
        step(i, h, m, h_next, m_next, std::false_type{});
      }
    });
  }
};

// Adds a step's dq (acc_dq of thr_dq's partition of kBlockM x kHeadDim) to the fp32
// accumulators `dq_accum` (the CTA's slice), rows m0.. of the lse rows starting at row_offset.
template <int kBlockM, int kHeadDim, typename ThrMma, typename Acc, typename Coords>
__device__ __forceinline__ void add_dq(float* dq_accum, ThrMma const& thr_dq, Acc const& acc_dq,
                                       Coords const& coords, int64_t row_offset, int m0,
                                       int seqlen_q) {
  Tensor gdQaccum = make_tensor(make_gmem_ptr(dq_accum + (row_offset + m0) * kHeadDim),
                                Shape<Int<kBlockM>, Int<kHeadDim>>{}, Stride<Int<kHeadDim>, _1>{});
  Tensor tdQgdQaccum = thr_dq.partition_C(gdQaccum);  // like acc_dq
  if (m0 + kBlockM <= seqlen_q) {
    atomic_add_dq<false>(acc_dq, tdQgdQaccum, coords, seqlen_q - m0);
  } else {
    atomic_add_dq<true>(acc_dq, tdQgdQaccum, coords, seqlen_q - m0);
  }
}

// dK = scale * acc_dk and dV = dv_scale * acc_dv (mma_dk's accumulators of kBlockN x kHeadDim,
// mma_dv's of kBlockN x TraitsV::kHeadDim: v's head dim, Traits' own where they agree) through
// shared memory at smem_k and smem_v (no longer read by anyone) to 16-byte global stores of the
// block's `keys` rows, by the threads of Traits' (TraitsV's) copy layouts (tidx: this one's
// index among them; sync(): a barrier of them).
template <typename Traits, typename TraitsV = Traits, typename MmaK, typename MmaV,
          typename AccK, typename AccV, typename Sync>
__device__ __forceinline__ void store_dk_dv(const BwdParams& params, const SeqLen& seq, int bidb,
                                            int kv_head, int n0, int keys, MmaK mma_dk,
                                            MmaV mma_dv, AccK& acc_dk, AccV& acc_dv,
                                            float dv_scale, typename Traits::Element* smem_k,
                                            typename Traits::Element* smem_v, int tidx,
                                            Sync&& sync) {
  using Element = typename Traits::Element;
  constexpr int kBlockN = Traits::kBlockN;
  CUTE_UNROLL
  for (int j = 0; j < size(acc_dk); ++j) acc_dk(j) *= params.scale;
  CUTE_UNROLL
  for (int j = 0; j < size(acc_dv); ++j) acc_dv(j) *= dv_scale;
  Tensor rdK = convert_type<Element>(acc_dk);
  Tensor rdV = convert_type<Element>(acc_dv);
  cp_async_wait<0>();
  sync();  // every thread is done with K and V in shared memory
  Tensor sdK = make_tensor(make_smem_ptr(smem_k),
                           typename Traits::template SmemLayoutRows<kBlockN>{});
  Tensor sdV = make_tensor(make_smem_ptr(smem_v),
                           typename TraitsV::template SmemLayoutRows<kBlockN>{});
  auto stage = [&](auto const& mma, auto const& r, auto& dst) {
    auto copy_acc = make_tiled_copy_C(typename Traits::SmemCopyAtomAcc{}, mma);
    auto thr_copy = copy_acc.get_thread_slice(tidx);
    copy(copy_acc, thr_copy.retile_S(r), thr_copy.partition_D(dst));
  };
  stage(mma_dk, rdK, sdK);
  stage(mma_dv, rdV, sdV);
  sync();

  // A (kBlockN, base's head dim) tile from shared memory to the block's rows of `ptr`, its
  // first `head_dim` columns.
  auto store = [&](auto base, auto const& src, void* ptr, int64_t batch_stride,
                   int64_t head_stride, int64_t row_stride, int head_dim) {
    constexpr int kD = decltype(base)::kHeadDim;
    typename decltype(base)::GmemTiledCopyStore gmem_store;
    auto gmem_thr_store = gmem_store.get_thread_slice(tidx);
    Tensor tc = gmem_thr_store.partition_D(make_identity_tensor(Shape<Int<kBlockN>, Int<kD>>{}));
    Tensor tp = columns_below(tc, head_dim);
    Tensor tS = gmem_thr_store.partition_S(src);
    Tensor tR = make_fragment_like(tS);
    copy(gmem_store, tS, tR);
    Tensor tG = gmem_thr_store.partition_D(key_rows<Element, kBlockN, kD>(
        ptr, batch_stride, head_stride, row_stride, seq, bidb, kv_head, n0));
    store_tile(gmem_store, tR, tG, tc, tp, keys);
  };
  store(Traits{}, sdK, params.dk, params.dk_batch_stride, params.dk_head_stride,
        params.dk_row_stride, params.head_dim);
  store(TraitsV{}, sdV, params.dv, params.dv_batch_stride, params.dv_head_stride,
        params.dv_row_stride, params.head_dim_v);
}

}  // namespace flash
