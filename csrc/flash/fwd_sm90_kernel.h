// The flash forward on Hopper (sm_90a), FlashAttention-3's structure: a persistent CTA of three
// warpgroups per SM takes tiles of 128 query rows one after the other (Sm90FwdTiles). Warpgroup 0
// is the producer: one thread issues TMA loads of Q (into two buffers where shared memory
// allows, the next tile's while this one runs) and of the K and V blocks into a ring of kStages
// buffers, handed over by mbarriers (full: the bytes landed; empty: the consumers are done with
// the buffer), running ahead into the next tile while the consumers finish this one.
// The consumer warpgroups (two, or three at head dim 64) own 64 rows of a tile each and compute
// with wgmma from shared memory:
//   S_i = Q K_i^T            issued before the softmax of S_{i-1} is done with...
//   O  += P_{i-1} V_{i-1}    ...so that block i's scores are computed while the softmax runs,
// and the consumers take turns issuing their GEMMs (named barriers passed round, carried across
// tiles), so that one warpgroup's softmax and tile epilogue overlap the others' tensor-core
// work (at head dim 64 a block's GEMMs are short against its softmax: a third consumer keeps
// the tensor cores busy while two run their exps, FlashAttention-3's 192-row tiles); O leaves
// through shared memory by a TMA store that runs while the consumer starts its next tile
// (dense calls). The producer gives its registers to the consumers
// (setmaxnreg). Serves every forward feature but dropout and split-KV
// (fwd_kernel.h keeps those): mask, softcap, ALiBi, GQA, varlen, LSE.
#pragma once

#include <cmath>
#include <cstdint>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/fast_math.h>

#include "fwd_sm90_tiles.h"
#include "kernel_traits.h"
#include "mask.h"
#include "params.h"
#include "seqlen.h"
#include "sm90.h"
#include "softmax.h"
#include "utils.h"

namespace flash {

using namespace cute;

// kHeadDim: q's and k's head dim; kHeadDimV: v's and out's (DeepSeek's 192 / 128); kConsumers:
// the consumer warpgroups, 64 rows of a tile each.
template <int kHeadDim_, int kBlockN_, int kStages_, typename Element_, int kHeadDimV_ = kHeadDim_,
          int kConsumers_ = 2, bool kPInSmem_ = false>
struct Sm90FwdTraits {
  using Element = Element_;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kHeadDimV = kHeadDimV_;
  static constexpr int kConsumers = kConsumers_;
  static constexpr int kBlockM = 64 * kConsumers;  // query rows a tile
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kStages = kStages_;
  // P for P V from shared memory (each consumer's own buffer) instead of registers: frees the
  // 32 registers a thread that P of 128 keys takes beside S while the previous block's P V
  // runs, so that 128-key blocks fit three consumers' 160 registers at head dim 64.
  static constexpr bool kPInSmem = kPInSmem_;
  static constexpr int kNThreads = 128 * (1 + kConsumers);  // the producer's warpgroup first
  // Registers a thread after setmaxnreg: the producer's 24 and the consumers' share of the rest
  // (a multiple of 8), within the 65536 of the SM: 128 x 24 + 256 x 240 = 64512, 128 x 24 +
  // 384 x 160 = 64512.
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = kConsumers == 2 ? 240 : 160;
  static_assert(128 * kProducerRegs + 128 * kConsumers * kConsumerRegs <= 65536);
  static_assert(kConsumers == 2 || kConsumers == 3);
  static constexpr int kSoftmaxChains = kHeadDim == 128 ? 4 : 1;  // softmax.h
  // O rescaled lazily (OnlineSoftmax's kLazy) where it is 64 or more columns a thread: H100
  // A/B, +1.5-3% at D = 128; at D = 64 (32 a thread) 0 to -6% (causal), so not there.
  static constexpr bool kLazyRescale = kHeadDimV >= 128;
  static_assert(kHeadDim % 64 == 0 && kHeadDimV % 64 == 0 && kBlockN % 16 == 0);
  static_assert(kBlockM >= kSm90FwdBlockM);  // fwd_wants_tile_counter counts 128-row tiles

  using TiledMmaS = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, float, Shape<_64, Int<kBlockN>, Int<kHeadDim>>>()));
  using ShapeO = Shape<_64, Int<kHeadDimV>, Int<kBlockN>>;
  using TiledMmaO = decltype(make_tiled_mma(std::conditional_t<
      kPInSmem,
      decltype(GMMA::ss_op_selector<Element, Element, float, ShapeO, GMMA::Major::K,
                                    GMMA::Major::MN>()),
      decltype(GMMA::rs_op_selector<Element, Element, float, ShapeO, GMMA::Major::K,
                                    GMMA::Major::MN>())>{}));

  // Q, K, V as TMA writes them (head dim contiguous, 128-byte swizzle): K-major operands of S;
  // V^T is the MN-major B of P V. O is staged for its global stores in a buffer of its own
  // where shared memory allows (head dim <= 128), one (64, kHeadDim) tile per consumer, which
  // a TMA store writes out while the consumer goes on to its next tile (dense calls), so that
  // the next tile's Q can land while this tile's last P V product and O stores run; otherwise
  // in Q's buffer (each warpgroup in its own rows), and the next Q waits for the stores.
  using SmemLayoutQTile = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                                 Shape<Int<kBlockM>, Int<kHeadDim>>{}));
  using SmemLayoutK = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                             Shape<Int<kBlockN>, Int<kHeadDim>, Int<kStages>>{}));
  using SmemLayoutV = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                             Shape<Int<kBlockN>, Int<kHeadDimV>, Int<kStages>>{}));
  using SmemLayoutVt = decltype(composition(
      SmemLayoutV{}, make_ordered_layout(Shape<Int<kHeadDimV>, Int<kBlockN>, Int<kStages>>{},
                                         Step<_2, _1, _3>{})));

  using SmemLayoutO = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                             Shape<_64, Int<kHeadDimV>, Int<kConsumers>>{}));
  // (kPInSmem only: a stand-in of 64 keys otherwise, which 96-key blocks would not tile)
  using SmemLayoutP =
      decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                             Shape<_64, Int<kPInSmem ? kBlockN : 64>, Int<kConsumers>>{}));

  // O staged in Q's buffer needs O's tile to be Q's.
  static constexpr bool kSeparateO = kHeadDimV <= 128;
  static_assert(kSeparateO || kHeadDimV == kHeadDim);
  // Shared memory with kQBuffers buffers of Q.
  template <int kQBuffers>
  struct Storage {
    alignas(1024) Element q[kQBuffers * cosize_v<SmemLayoutQTile>];
    alignas(1024) Element k[cosize_v<SmemLayoutK>];
    alignas(1024) Element v[cosize_v<SmemLayoutV>];
    alignas(1024) Element o[kSeparateO ? cosize_v<SmemLayoutO> : 1];
    alignas(1024) Element p[kPInSmem ? cosize_v<SmemLayoutP> : 1];
    uint64_t q_full[kQBuffers], q_empty[kQBuffers];
    uint64_t k_full[kStages], k_empty[kStages];
    uint64_t v_full[kStages], v_empty[kStages];
    // Dynamic tiles: the units the producer took, in a ring of two, for the consumers.
    int unit[2];
    uint64_t unit_full[2], unit_empty[2];
  };
  // Q's buffers: two where O has its own and shared memory allows (head dims 64 and 128), so
  // that the producer loads the next tile's Q while this tile runs; with one, the next Q's load
  // began only once this tile's last S product was done, and the consumers that had finished
  // their epilogue waited for it at every tile (the most at short sequences).
  static constexpr int kQStages = kSeparateO && sizeof(Storage<2>) <= kSm90MaxSmem ? 2 : 1;
  using SmemLayoutQ = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                             Shape<Int<kBlockM>, Int<kHeadDim>, Int<kQStages>>{}));
  using SharedStorage = Storage<kQStages>;
  static_assert(cosize_v<SmemLayoutQ> == kQStages * cosize_v<SmemLayoutQTile>);

  using TmaQ = Sm90TmaLoad<Element, SmemLayoutQTile>;
  using TmaK = Sm90TmaLoad<Element, decltype(take<0, 2>(SmemLayoutK{}))>;
  using TmaV = Sm90TmaLoad<Element, decltype(take<0, 2>(SmemLayoutV{}))>;
  using TmaO = Sm90TmaStore<Element, decltype(take<0, 2>(SmemLayoutO{}))>;

  // O from one consumer warpgroup's registers to global memory, 16-byte stores; staged in
  // shared memory by stmatrix (SmemCopyAtomAcc's element-pair stores compile to generic
  // 64-bit-addressed ones here).
  using Base = TraitsBase<kHeadDimV, 4, Element>;
  using GmemTiledCopyO = typename Base::GmemTiledCopyStore;
  using SmemCopyAtomO = Copy_Atom<SM90_U32x4_STSM_N, Element>;

  static constexpr int kSmemSize = sizeof(SharedStorage);
  static_assert(kSmemSize <= kSm90MaxSmem, "more shared memory than an H100 block may take");
  static constexpr uint32_t kBytesQ = kBlockM * kHeadDim * sizeof(Element);
  static constexpr uint32_t kBytesK = kBlockN * kHeadDim * sizeof(Element);
  static constexpr uint32_t kBytesV = kBlockN * kHeadDimV * sizeof(Element);
};

// The TMA descriptors of one call (built on the host by make_sm90_fwd_tma). O has one where the
// kernel stores it by TMA (store_o): dense calls with an O buffer of its own and an O that TMA
// can write; varlen tiles must not write past their sequence, which a TMA box would.
template <typename Traits>
struct Sm90FwdTma {
  typename Traits::TmaQ q;
  typename Traits::TmaK k;
  typename Traits::TmaV v;
  typename Traits::TmaO o;
  bool store_o;
};

// Calls whose q, k or v TMA cannot load (sm90_tma_fits) run fwd_kernel.h.
template <typename Traits>
bool sm90_fwd_fits(const FwdParams& p) {
  using Element = typename Traits::Element;
  return sm90_tma_fits<Element>(p, p.q, p.q_row_stride, p.q_head_stride, p.q_batch_stride) &&
         sm90_tma_fits<Element>(p, p.k, p.k_row_stride, p.k_head_stride, p.k_batch_stride) &&
         sm90_tma_fits<Element>(p, p.v, p.v_row_stride, p.v_head_stride, p.v_batch_stride);
}

template <typename Traits>
Sm90FwdTma<Traits> make_sm90_fwd_tma(const FwdParams& p) {
  using Element = typename Traits::Element;
  auto tensor = [&](const void* ptr, bool kv, int64_t row, int64_t head, int64_t batch,
                    bool value = false) {
    return sm90_qkv_tensor<Element>(p, ptr, kv, row, head, batch, value);
  };
  const bool store_o = Traits::kSeparateO && p.cu_seqlens_q == nullptr &&
                       sm90_tma_fits<Element>(p, p.out, p.o_row_stride, p.o_head_stride,
                                              p.o_batch_stride);
  // Without the TMA store, O's descriptor is made over q (which TMA fits), and never used.
  auto o = store_o ? tensor(p.out, false, p.o_row_stride, p.o_head_stride, p.o_batch_stride, true)
                   : tensor(p.q, false, p.q_row_stride, p.q_head_stride, p.q_batch_stride, true);
  return {make_tma_copy(SM90_TMA_LOAD{},
                        tensor(p.q, false, p.q_row_stride, p.q_head_stride, p.q_batch_stride),
                        typename Traits::SmemLayoutQTile{},
                        Shape<Int<Traits::kBlockM>, Int<Traits::kHeadDim>>{}, _1{}),
          make_tma_copy(SM90_TMA_LOAD{},
                        tensor(p.k, true, p.k_row_stride, p.k_head_stride, p.k_batch_stride),
                        take<0, 2>(typename Traits::SmemLayoutK{}),
                        Shape<Int<Traits::kBlockN>, Int<Traits::kHeadDim>>{}, _1{}),
          make_tma_copy(SM90_TMA_LOAD{},
                        tensor(p.v, true, p.v_row_stride, p.v_head_stride, p.v_batch_stride,
                               true),
                        take<0, 2>(typename Traits::SmemLayoutV{}),
                        Shape<Int<Traits::kBlockN>, Int<Traits::kHeadDimV>>{}, _1{}),
          make_tma_copy(SM90_TMA_STORE{}, o, take<0, 2>(typename Traits::SmemLayoutO{}),
                        Shape<_64, Int<Traits::kHeadDimV>>{}, _1{}),
          store_o};
}

// Named barriers (after CUTLASS's reserved ones): consumer wg's turn to issue its GEMMs, and its
// epilogue.
__device__ __forceinline__ uint32_t sm90_fwd_turn(int wg) { return uint32_t(wg); }
__device__ __forceinline__ uint32_t sm90_fwd_epilogue(int wg) { return uint32_t(3 + wg); }

// What the producer and the consumers both derive for a tile: the sequence, the mask and the
// order of its key blocks (empty when no key is visible from it).
template <typename Traits, bool kCausal>
struct Sm90FwdTile {
  static constexpr int kBlockM = Traits::kBlockM, kBlockN = Traits::kBlockN;
  SeqLen seq;
  // The tile's rows [m0, m0 + kBlockM): those of [m_first, m_end) are in the sequence.
  int m0, m_first, m_end;
  float softmax_scale;
  Mask<kCausal> mask;
  KeyBlockOrder<kBlockN> order;

  __device__ __forceinline__ Sm90FwdTile(const FwdParams& p, int m_block, int h, int b)
      : seq(p, b),
        m0(m_block * kBlockM - lead_rows(seq.seqlen_q)),
        m_first(max(m0, 0)),
        m_end(min(m0 + kBlockM, seq.seqlen_q)),
        softmax_scale(p.softcap > 0.f ? p.softcap : p.scale),
        mask(fwd_mask<kCausal>(p, seq, b, h, softmax_scale)),
        order(mask, m_first, m_end, mask.template n_block_begin<kBlockN>(m_first),
              mask.template n_block_end<kBlockN>(m_end), p.softcap > 0.f || mask.alibi_coef != 0.f) {}

  // Where a sequence is not a multiple of the three-consumer kernel's 192 rows, its tiles start
  // the whole 64-row blocks of the remainder before it, so that the consumers with no row in
  // the sequence share the tile with the fewest keys under a causal mask (its first), not the
  // one with the most (its last, where one consumer then ran a whole row of keys alone).
  static __device__ __forceinline__ int lead_rows(int seqlen_q) {
    if constexpr (Traits::kConsumers > 2) {
      return (kBlockM - 1 - (seqlen_q + kBlockM - 1) % kBlockM) / 64 * 64;
    } else {
      return 0;
    }
  }

  __device__ __forceinline__ bool empty_rows() const { return m0 >= seq.seqlen_q; }  // varlen
};

template <typename Traits, bool kCausal>
__global__ void __launch_bounds__(Traits::kNThreads, 1)
    fwd_sm90_kernel(__grid_constant__ const FwdParams params,
                    __grid_constant__ const Sm90FwdTma<Traits> tma) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Element = typename Traits::Element;
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  using NamedBarrier = cutlass::arch::NamedBarrier;
  using Tile = Sm90FwdTile<Traits, kCausal>;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim, kHeadDimV = Traits::kHeadDimV;
  constexpr int kStages = Traits::kStages, kQStages = Traits::kQStages;

  extern __shared__ __align__(1024) char smem_raw[];
  auto& smem = *reinterpret_cast<typename Traits::SharedStorage*>(smem_raw);
  const int tidx = threadIdx.x;
  const int warp = tidx / 32;
  const Sm90FwdTiles<kBlockM, kCausal> tiles(params);

  Tensor sQ = make_tensor(make_smem_ptr(smem.q), typename Traits::SmemLayoutQ{});  // (kBlockM, kHeadDim, stage)
  Tensor sK = make_tensor(make_smem_ptr(smem.k), typename Traits::SmemLayoutK{});  // (kBlockN, kHeadDim, stage)
  Tensor sV = make_tensor(make_smem_ptr(smem.v), typename Traits::SmemLayoutV{});  // (kBlockN, kHeadDimV, stage)
  Tensor sVt = make_tensor(make_smem_ptr(smem.v), typename Traits::SmemLayoutVt{});  // (kHeadDimV, kBlockN, stage)

  if (tidx == 0) {
    constexpr int kConsumerWarps = 4 * Traits::kConsumers;
    CUTE_UNROLL
    for (int s = 0; s < kQStages; ++s) {
      Barrier::init(&smem.q_full[s], 1);
      Barrier::init(&smem.q_empty[s], kConsumerWarps);  // one arrival per consumer warp
    }
    CUTE_UNROLL
    for (int s = 0; s < kStages; ++s) {
      Barrier::init(&smem.k_full[s], 1);
      Barrier::init(&smem.v_full[s], 1);
      Barrier::init(&smem.k_empty[s], kConsumerWarps);
      Barrier::init(&smem.v_empty[s], kConsumerWarps);
    }
    CUTE_UNROLL
    for (int s = 0; s < 2; ++s) {
      Barrier::init(&smem.unit_full[s], 1);
      Barrier::init(&smem.unit_empty[s], kConsumerWarps);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  // Both roles count the tiles (Q's buffer phases) and key blocks (the ring's stages and
  // phases) they have passed, over all of this CTA's tiles. Every tile, also one without a
  // visible key, passes Q's buffer once (with no bytes then), so that its O staging in that
  // buffer (kSeparateO false) is ordered against the next tile's Q.
  if (warp < 4) {
    // Producer: per tile K_0, then Q once its buffer is free (Q first where it has two buffers:
    // the other tile's is free long before), then V_0, K_1, V_1, ... as the consumers free the
    // buffers.
    cutlass::arch::warpgroup_reg_dealloc<Traits::kProducerRegs>();
    if (warp == 0 && cute::elect_one_sync()) {
      int tile_count = 0, block_count = 0, taken = 0;
      // The CTA's next unit: taken from the counter and handed to the consumers (dynamic).
      auto next_unit = [&]() {
        if (params.tile_counter == nullptr) return int(blockIdx.x + ++taken * gridDim.x);
        const int slot = taken % 2;
        Barrier::wait(&smem.unit_empty[slot], ((taken / 2) & 1) ^ 1);
        const int u = int(gridDim.x) + atomicAdd(params.tile_counter, 1);
        smem.unit[slot] = u;
        Barrier::arrive(&smem.unit_full[slot]);
        ++taken;
        return u;
      };
      tiles.for_each(next_unit, [&](int m_block, int bidh, int bidb) __attribute__((always_inline)) {
        const Tile t(params, m_block, bidh, bidb);
        if (t.empty_rows()) return;
        const int num_blocks = t.order.num_blocks;
        const int qs = tile_count % kQStages;
        Barrier::wait(&smem.q_empty[qs], ((tile_count / kQStages) & 1) ^ 1);
        ++tile_count;
        if (num_blocks == 0) {
          Barrier::arrive(&smem.q_full[qs]);
          return;
        }
        const int kv_head = bidh / (params.heads_q / params.heads_kv);
        const int b = t.seq.varlen ? 0 : bidb;
        Tensor mQ = tma.q.get_tma_tensor(sm90_qkv_shape(params, false))(_, _, bidh, b);
        Tensor mK = tma.k.get_tma_tensor(sm90_qkv_shape(params, true))(_, _, kv_head, b);
        Tensor mV = tma.v.get_tma_tensor(sm90_qkv_shape(params, true, true))(_, _, kv_head, b);
        // Rows before the sequence (m0 < 0) are read as zeros or as the previous sequence's
        // rows (varlen), for consumers that leave them alone.
        Tensor gQ = local_tile(domain_offset(make_coord(int32_t(t.seq.q_row0 + t.m0), _0{}), mQ),
                               Shape<Int<kBlockM>, Int<kHeadDim>>{}, make_coord(_0{}, _0{}));
        Tensor gK = local_tile(domain_offset(make_coord(int32_t(t.seq.k_row0), _0{}), mK),
                               Shape<Int<kBlockN>, Int<kHeadDim>>{}, make_coord(_, _0{}));  // (kBlockN, kHeadDim, n)
        Tensor gV = local_tile(domain_offset(make_coord(int32_t(t.seq.k_row0), _0{}), mV),
                               Shape<Int<kBlockN>, Int<kHeadDimV>>{}, make_coord(_, _0{}));
        auto [tQgQ, tQsQ] = tma_partition(tma.q, _0{}, Layout<_1>{}, group_modes<0, 2>(sQ),
                                          group_modes<0, 2>(gQ));  // (TMA), (TMA, stage)
        auto [tKgK, tKsK] = tma_partition(tma.k, _0{}, Layout<_1>{}, group_modes<0, 2>(sK),
                                          group_modes<0, 2>(gK));  // (TMA, n), (TMA, stage)
        auto [tVgV, tVsV] = tma_partition(tma.v, _0{}, Layout<_1>{}, group_modes<0, 2>(sV),
                                          group_modes<0, 2>(gV));
        auto load = [&](auto& tma_kv, auto& src, auto& dst, uint64_t* full, uint64_t* empty,
                        uint32_t bytes, int i) {
          const int it = block_count + i, stage = it % kStages;
          Barrier::wait(&empty[stage], ((it / kStages) & 1) ^ 1);
          Barrier::arrive_and_expect_tx(&full[stage], bytes);
          copy(tma_kv.with(full[stage]), src(_, t.order.at(i)), dst(_, stage));
        };
        auto load_q = [&] {
          Barrier::arrive_and_expect_tx(&smem.q_full[qs], Traits::kBytesQ);
          copy(tma.q.with(smem.q_full[qs]), tQgQ, tQsQ(_, qs));
        };
        if constexpr (kQStages > 1) load_q();
        load(tma.k, tKgK, tKsK, smem.k_full, smem.k_empty, Traits::kBytesK, 0);
        if constexpr (kQStages == 1) load_q();
        load(tma.v, tVgV, tVsV, smem.v_full, smem.v_empty, Traits::kBytesV, 0);
        for (int i = 1; i < num_blocks; ++i) {
          load(tma.k, tKgK, tKsK, smem.k_full, smem.k_empty, Traits::kBytesK, i);
          load(tma.v, tVgV, tVsV, smem.v_full, smem.v_empty, Traits::kBytesV, i);
        }
        block_count += num_blocks;
      });
    }
    return;
  }

  // Consumers: warpgroup wg owns rows 64 wg .. 64 wg + 63 of each tile.
  cutlass::arch::warpgroup_reg_alloc<Traits::kConsumerRegs>();
  const int wg = warp / 4 - 1;
  const int wtidx = tidx % 128;
  const int lane = tidx % 32, quad_lane = lane % 4;
  const float softcap_prescale = params.softcap > 0.f ? params.scale / params.softcap : 1.f;

  typename Traits::TiledMmaS mma_s;
  typename Traits::TiledMmaO mma_o;
  auto thr_mma_s = mma_s.get_thread_slice(wtidx);
  auto thr_mma_o = mma_o.get_thread_slice(wtidx);
  Tensor sQw = local_tile(sQ, Shape<_64, Int<kHeadDim>, Int<kQStages>>{},
                          make_coord(wg, _0{}, _0{}));  // (64, kHeadDim, stage)
  Tensor sOw = [&] {  // (64, kHeadDimV): this warpgroup's O staging
    if constexpr (Traits::kSeparateO) {
      return make_tensor(make_smem_ptr(smem.o), typename Traits::SmemLayoutO{})(_, _, wg);
    } else {
      return sQw(_, _, 0);
    }
  }();
  Tensor tSrQ = thr_mma_s.partition_fragment_A(sQw);  // descriptors (MMA, 1, MMA_K, stage)
  Tensor tSrK = thr_mma_s.partition_fragment_B(sK);   // (MMA, 1, MMA_K, stage)
  Tensor tOrV = thr_mma_o.partition_fragment_B(sVt);  // (MMA, 1, MMA_K, stage)
  // The turn goes round: each consumer waits for its own and passes the next one's.
  const uint32_t my_turn = sm90_fwd_turn(wg);
  const uint32_t next_turn = sm90_fwd_turn((wg + 1) % Traits::kConsumers);
  const uint32_t epilogue = sm90_fwd_epilogue(wg);
  auto release = [&](uint64_t* bar) {
    __syncwarp();
    if (lane == 0) Barrier::arrive(bar);
  };

  // Turns go round across tiles: the consumer that issued last lets the next one go. The last
  // consumer lets warpgroup 0 go before the first tile, and warpgroup 0 takes the last
  // hand-over after the last, so that each consumer starts its next tile's products as soon as
  // the one before has issued its last ones of this tile (its epilogue under the others'
  // GEMMs). A turn's barrier: the 128 threads that wait and the 128 that passed it.
  if (wg == Traits::kConsumers - 1) NamedBarrier::arrive(256, next_turn);
  int tile_count = 0, block_count = 0, taken = 0;
  auto next_unit = [&]() {  // the producer's next_unit, read back
    if (params.tile_counter == nullptr) return int(blockIdx.x + ++taken * gridDim.x);
    const int slot = taken % 2;
    Barrier::wait(&smem.unit_full[slot], (taken / 2) & 1);
    // Read by the lane that frees the slot, then shared: an mbarrier arrival orders only the
    // arriving thread's own accesses before the producer's next write there (racecheck
    // reported every lane's read against that write).
    int u = lane == 0 ? smem.unit[slot] : 0;
    u = __shfl_sync(0xffffffffu, u, 0);
    release(&smem.unit_empty[slot]);
    ++taken;
    return u;
  };
  tiles.for_each(next_unit, [&](int m_block, int bidh, int bidb) __attribute__((always_inline)) {
    const Tile t(params, m_block, bidh, bidb);
    if (t.empty_rows()) return;
    const int m0 = t.m0, m_end = t.m_end;
    const int num_masked = t.order.num_masked, num_blocks = t.order.num_blocks;
    const float sink = params.sinks != nullptr ? params.sinks[bidh] : -INFINITY;
    const int warp_row0 = m0 + 64 * wg + (warp % 4) * 16 + lane / 4;
    auto row_of = [&](int r) { return warp_row0 + (r % 2) * 8; };
    // A consumer whose 64 rows all lie outside the sequence (before it in a sequence's first
    // tile, Tile::lead_rows, or past it in short varlen sequences) runs none of the tile's
    // products; it takes its turns and frees the buffers in the same order, so that the
    // others' barriers count as before. Three-consumer kernels only: in a two-consumer one the
    // branch cost 1.5-2.5% at S = 1k and 4k where no tile has such rows (the causal D = 64
    // kernel when it had two, benchmarks/NOTES.md).
    const bool idle =
        Traits::kConsumers > 2 && (m0 + 64 * wg < 0 || m0 + 64 * wg >= t.seq.seqlen_q);

    Tensor acc_o = partition_fragment_C(mma_o, Shape<_64, Int<kHeadDimV>>{});  // (MMA, 1, 1)
    Tensor acc_o_rc = make_tensor(acc_o.data(), gmma_acc_rowcol_layout(acc_o.layout()));  // (rows, cols)
    constexpr int kRows = decltype(size<0>(acc_o_rc))::value;
    float lse[kRows];
    clear(acc_o);
    const int qs = tile_count % kQStages;
    Barrier::wait(&smem.q_full[qs], (tile_count / kQStages) & 1);
    auto stage_of = [&](int i) { return (block_count + i) % kStages; };
    auto phase_of = [&](int i) { return uint32_t((block_count + i) / kStages) & 1; };

    // Block i's turn and buffers taken and handed on, with none of its products.
    auto pass_block = [&](int i) {
      Barrier::wait(&smem.k_full[stage_of(i)], phase_of(i));
      NamedBarrier::sync(256, my_turn);
      NamedBarrier::arrive(256, next_turn);
      release(&smem.k_empty[stage_of(i)]);
      Barrier::wait(&smem.v_full[stage_of(i)], phase_of(i));
      release(&smem.v_empty[stage_of(i)]);
    };
    if (idle) {
      for (int i = 0; i < num_blocks; ++i) pass_block(i);
      ++tile_count;
      block_count += num_blocks;
      release(&smem.q_empty[qs]);  // no O staged here
      return;
    }
    if (num_blocks > 0) {
      Tensor acc_s = partition_fragment_C(mma_s, Shape<_64, Int<kBlockN>>{});  // (MMA, 1, 1)
      Tensor s = make_tensor(acc_s.data(), gmma_acc_rowcol_layout(acc_s.layout()));  // (rows, cols)
      // P of the previous block, read by its P V wgmma while this block's softmax runs: in
      // registers, or (kPInSmem) in this consumer's buffer (descriptors).
      Tensor sPw = make_tensor(make_smem_ptr(smem.p), typename Traits::SmemLayoutP{})(_, _, wg);
      Tensor tOrP = [&] {  // (MMA, 1, MMA_K)
        if constexpr (Traits::kPInSmem) {
          return thr_mma_o.partition_fragment_A(sPw);
        } else {
          return make_tensor<Element>(gmma_acc_as_a_layout(acc_s.layout()));
        }
      }();

      auto pass_turn = [&] { NamedBarrier::arrive(256, next_turn); };

      OnlineSoftmax<kRows, Traits::kSoftmaxChains> softmax;
      const float scale_log2 = t.softmax_scale * float(M_LOG2E);
      float correction[kRows];

      // A masked step's block is masked for this consumer's own rows only where they need it:
      // a tile's diagonal crosses two or three key blocks where a consumer's crosses one or two
      // (key blocks narrower than the tile, or not aligned with it).
      auto scores = [&](int i, auto is_masked) __attribute__((always_inline)) {
        if constexpr (decltype(is_masked)::value) {
          if (params.softcap > 0.f) {
            CUTE_UNROLL
            for (int j = 0; j < size(acc_s); ++j) acc_s(j) = cutlass::fast_tanh(acc_s(j) * softcap_prescale);
          }
          const int n0 = t.order.at(i) * kBlockN;
          const int own = m0 + 64 * wg;  // the consumer's first row, maybe before the sequence
          t.mask.apply(s, row_of, n0, quad_lane,
                       t.mask.template block_needs_mask<kBlockN>(n0, max(own, t.m_first),
                                                                 min(own + 64, m_end)));
        }
      };
      auto to_p = [&] {
        if constexpr (Traits::kPInSmem) {
          // The buffer's last reader, the previous P V, is done. Each warp's P V reads the
          // rows its own threads wrote.
          stage_o<typename Traits::SmemCopyAtomO>(mma_s, acc_s, sPw, wtidx);
          cutlass::arch::fence_view_async_shared();
          __syncwarp();
        } else {
          Tensor rP = convert_type<Element>(acc_s);
          warpgroup_fence_operand(tOrP);
          CUTE_UNROLL
          for (int j = 0; j < size(tOrP); ++j) tOrP(j) = rP(j);
          warpgroup_fence_operand(tOrP);
        }
      };

      // The tile's first steps (its last key blocks, right of the diagonal) can lie past every
      // key this consumer's rows see (the first rows of a 192-row tile under a causal mask):
      // it passes those blocks on and starts at block i0 (never past the last block, so that
      // rows seeing no key end as they do without this).
      int i0 = 0;
      if constexpr (Traits::kConsumers > 2) {
        const int own_end = t.mask.template n_block_end<kBlockN>(min(m0 + 64 * wg + 64, m_end));
        i0 = min(min(max(0, t.order.n_end - own_end), t.order.num_right), num_blocks - 1);
        for (int i = 0; i < i0; ++i) pass_block(i);
      }

      // Block i0: S alone, then its softmax.
      Barrier::wait(&smem.k_full[stage_of(i0)], phase_of(i0));
      NamedBarrier::sync(256, my_turn);
      gmma_issue<true>(mma_s, tSrQ(_, _, _, qs), tSrK(_, _, _, stage_of(i0)), acc_s);
      pass_turn();
      warpgroup_wait<0>();
      gmma_done(acc_s);
      release(&smem.k_empty[stage_of(i0)]);
      scores(i0, std::true_type{});
      softmax.template update<true>(s, scale_log2, [](int, float) {});
      to_p();

      // Block i: S_i = Q K_i^T and O += P_{i-1} V_{i-1} in flight together; the softmax of S_i
      // runs while the P V product finishes, and O is rescaled once it has.
      auto step = [&](int i, auto is_masked) __attribute__((always_inline)) {
        const int stage = stage_of(i), prev = stage_of(i - 1);
        Barrier::wait(&smem.k_full[stage], phase_of(i));
        NamedBarrier::sync(256, my_turn);
        gmma_issue<true>(mma_s, tSrQ(_, _, _, qs), tSrK(_, _, _, stage), acc_s);
        Barrier::wait(&smem.v_full[prev], phase_of(i - 1));
        gmma_issue<false>(mma_o, tOrP, tOrV(_, _, _, prev), acc_o);
        pass_turn();
        warpgroup_wait<1>();
        gmma_done(acc_s);
        release(&smem.k_empty[stage]);
        scores(i, is_masked);
        const bool moved = softmax.template update<false, Traits::kLazyRescale>(
            s, scale_log2, [&](int r, float c) { correction[r] = c; });
        warpgroup_wait<0>();
        gmma_done(acc_o);
        release(&smem.v_empty[prev]);
        // Lazily, O is rescaled only where a row of the warp took a new max (most blocks of a
        // long row take none): a branch of the warp around 64 or more multiplies a thread.
        if (!Traits::kLazyRescale || __any_sync(0xffffffffu, moved)) {
          CUTE_UNROLL
          for (int r = 0; r < kRows; ++r) {
            CUTE_UNROLL
            for (int c = 0; c < size<1>(acc_o_rc); ++c) acc_o_rc(r, c) *= correction[r];
          }
        }
        to_p();
      };
      int i = i0 + 1;
      for (; i < num_masked; ++i) step(i, std::true_type{});
      for (; i < num_blocks; ++i) step(i, std::false_type{});
      if constexpr (Traits::kSeparateO) release(&smem.q_empty[qs]);  // every S product is done

      const int last = stage_of(num_blocks - 1);
      Barrier::wait(&smem.v_full[last], phase_of(num_blocks - 1));
      gmma_issue<false>(mma_o, tOrP, tOrV(_, _, _, last), acc_o);
      warpgroup_wait<0>();
      gmma_done(acc_o);
      release(&smem.v_empty[last]);

      softmax.finalize(acc_o_rc, 1.f, lse, sink);
    } else {
      if constexpr (Traits::kSeparateO) release(&smem.q_empty[qs]);
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) lse[r] = sink;  // no visible key: out 0, lse the sink's
    }
    ++tile_count;
    block_count += num_blocks;

    t.seq.store_lse(params, bidb, bidh, lse, row_of, quad_lane);

    const int row0 = m0 + 64 * wg;
    if (Traits::kSeparateO && tma.store_o) {
      // O by a TMA store from this warpgroup's staging buffer, once the store of its previous
      // tile has read the buffer (the issuing thread waits for it); the consumer goes on.
      if (wtidx == 0) tma_store_wait<0>();
      NamedBarrier::sync(128, epilogue);
      stage_o<typename Traits::SmemCopyAtomO>(mma_o, acc_o, sOw, wtidx);
      cutlass::arch::fence_view_async_shared();
      NamedBarrier::sync(128, epilogue);
      if (wtidx == 0) {
        Tensor mO = tma.o.get_tma_tensor(sm90_qkv_shape(params, false, true))(_, _, bidh, bidb);
        Tensor gO = local_tile(mO, Shape<_64, Int<kHeadDimV>>{}, make_coord(row0 / 64, _0{}));
        auto [tOgO, tOsO] = tma_partition(tma.o, _0{}, Layout<_1>{}, group_modes<0, 2>(sOw),
                                          group_modes<0, 2>(gO));
        copy(tma.o, tOsO, tOgO);
        tma_store_arrive();
      }
      return;
    }
    // Otherwise through the same buffer for 16-byte global stores (rows past the sequence
    // left out), once the warpgroup's stores of the previous tile have read it.
    Element* o_ptr = static_cast<Element*>(params.out) +
        t.seq.q_offset(params.o_batch_stride, params.o_head_stride, params.o_row_stride, bidb, bidh);
    Tensor mO = make_tensor(make_gmem_ptr(o_ptr), make_shape(t.seq.seqlen_q, Int<kHeadDimV>{}),
                            make_stride(params.o_row_stride, _1{}));
    Tensor gO = local_tile(mO, Shape<_64, Int<kHeadDimV>>{}, make_coord(row0 / 64, 0));  // (64, kHeadDimV)
    NamedBarrier::sync(128, epilogue);
    store_o<typename Traits::GmemTiledCopyO, typename Traits::SmemCopyAtomO>(
        mma_o, acc_o, sOw, gO, wtidx, t.seq.seqlen_q - row0, params.head_dim_v,
        [&] { NamedBarrier::sync(128, epilogue); });
    if constexpr (!Traits::kSeparateO) {
      // The next Q lands by TMA (the async proxy) where this tile's O was staged.
      cutlass::arch::fence_view_async_shared();
      release(&smem.q_empty[qs]);
    }
  });
  if (wg == 0) NamedBarrier::sync(256, my_turn);  // the last consumer's last hand-over
  if (wtidx == 0) bulk_wait_group<0>();  // the last O stores (TMA) have completed
#endif
}

}  // namespace flash
