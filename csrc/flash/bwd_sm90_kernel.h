// The flash backward on Hopper (sm_90a): bwd_kernel.h's algorithm (a CTA owns kBlockN keys and
// walks the query blocks of its KV head's group) with every GEMM on wgmma, whose operands come
// from shared memory by descriptor instead of ldmatrix: the mma.sync kernel is bound by issuing
// those loads and its MMAs. Two consumer warpgroups own 64 keys each and compute the
// transposed scores:
//   S^T = K Q^T, dP^T = V dO^T            (shared memory operands, issued together)
//   P^T = exp2(S^T scale - lse), dS^T = P^T * (dP^T - D)
//   dV += P^T dO, dK += dS^T Q            (P^T, dS^T from registers)
//   dQ  = dS K                            (dS through shared memory; fp32 bulk reductions)
// in an order that keeps the tensor cores fed: dV is issued as soon as P is in registers (it
// runs while dS is computed), dQ before dK (dq is staged while dK runs), and dS is
// double-buffered, so that the consumers meet once a step.
// FlashAttention-3's division of labour: a third warpgroup gives its registers to the consumers
// (setmaxnreg); its warp 0 is the producer, loading Q and dO by TMA and lse and D into two
// buffers ahead of the consumers (mbarriers: full when the bytes landed, empty once both
// consumers are done), and its warp 1 the dQ writer: the consumers stage each step's dq rows
// in shared memory and go on, and the writer sends each row to the fp32 accumulators with one
// bulk reduction (cp.reduce.async.bulk, performed by the TMA unit). Issuing those reductions
// and the loads held the consumer warps about as long as a step's GEMMs took when they did it
// themselves: a warp's wgmma batch issues only about as fast as the tensor cores take it, so
// whatever a warp issues after one starts when it is nearly done. Serves every feature but
// dropout, which stays on bwd_kernel.h; calls whose q or dout TMA cannot load (sm90_bwd_fits)
// run it too.
#pragma once

#include <cmath>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/fast_math.h>

#include "bwd_block.h"
#include "bwd_prepost.h"
#include "kernel_traits.h"
#include "mask.h"
#include "params.h"
#include "seqlen.h"
#include "sm90.h"
#include "utils.h"

namespace flash {

using namespace cute;

// kBlockM = 64 query rows per step. Head dims up to 128: kBlockN = 128 keys, 64 per warpgroup;
// dQ (64 x kHeadDim over the 128 keys) split between the warpgroups along the head dim, or at
// D = 64 a step's whole dQ computed by one warpgroup, the two taking turns (step i: warpgroup
// i % 2, as cuDNN's kernel does), so that the other goes on to its next step meanwhile, where
// both computed half: twice the wgmma instructions, at N = 32, and all of dS read by both.
// Larger head dims (kSplitD): the dK and dV accumulators of 64 keys
// fill a warpgroup's registers, so both warpgroups own the same kBlockN = 64 keys, split S^T
// and dP^T along the queries, and dK, dV and dQ along the head dim; P^T and dS^T reach the dK
// and dV products through shared memory (FlashAttention-3's layout for D = 256).
// kHeadDimV: v's, dO's and dV's head dim where it differs from q's and k's (DeepSeek's 192 /
// 128, in the kSplitD layout): Q, K, dQ and dK at kHeadDim, V, dO and dV at kHeadDimV.
template <int kHeadDim_, int kBlockM_, typename Element_, int kHeadDimV_ = kHeadDim_>
struct Sm90BwdTraits : TraitsBase<kHeadDim_, 8, Element_> {
  using Base = TraitsBase<kHeadDim_, 8, Element_>;
  using BaseV = TraitsBase<kHeadDimV_, 8, Element_>;  // V's, dO's and dV's copies
  using Element = Element_;
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kHeadDimV = kHeadDimV_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr bool kSplitD = kHeadDim > 128;
  static constexpr int kBlockN = kSplitD ? 64 : 128;
  static constexpr int kNThreads = 384;  // the producer/dQ-writer warpgroup, two consumers
  static constexpr int kNConsumers = 256;
  static_assert(kHeadDim % 64 == 0 && kHeadDimV % 64 == 0 && kBlockM == 64);
  static_assert(kHeadDimV == kHeadDim || kSplitD);

  using WarpGroupsM = Layout<Shape<_2, _1, _1>>;
  using WarpGroupsN = Layout<Shape<_1, _2, _1>>;
  using TiledMmaSdP = std::conditional_t<
      kSplitD,
      decltype(make_tiled_mma(
          GMMA::ss_op_selector<Element, Element, float,
                               Shape<_64, Int<kBlockM / 2>, Int<kHeadDim>>>(),
          WarpGroupsN{})),
      decltype(make_tiled_mma(
          GMMA::ss_op_selector<Element, Element, float, Shape<_64, Int<kBlockM>, Int<kHeadDim>>>(),
          WarpGroupsM{}))>;
  // dK (kD = kHeadDim) and dV (kD = kHeadDimV): keys x kD, from P^T / dS^T and Q / dO.
  template <int kD>
  using TiledMmaKeyGrad = std::conditional_t<
      kSplitD,
      decltype(make_tiled_mma(
          GMMA::ss_op_selector<Element, Element, float, Shape<_64, Int<kD / 2>, Int<kBlockM>>,
                               GMMA::Major::K, GMMA::Major::MN>(),
          WarpGroupsN{})),
      decltype(make_tiled_mma(
          GMMA::rs_op_selector<Element, Element, float, Shape<_64, Int<kD>, Int<kBlockM>>,
                               GMMA::Major::K, GMMA::Major::MN>(),
          WarpGroupsM{}))>;
  using TiledMmadKV = TiledMmaKeyGrad<kHeadDim>;  // dK (and dV where the head dims agree)
  using TiledMmadV = TiledMmaKeyGrad<kHeadDimV>;
  // dQ split along the head dim between the warpgroups, or at D = 64 one warpgroup's a step (at
  // D = 128 its 64 x 128 accumulators beside dK's, dV's and the rest were more registers than
  // a consumer has: ptxas serialized the wgmmas, C7511 / C7512, however the step was ordered).
  static constexpr bool kDqSplitD = kHeadDim != 64;
  // kSplitD's step runs its phases one after the other (S^T and dP^T; the exps and dS; dV, dK
  // and dQ; dq staged), so the tensor cores idle while a warpgroup stages dq. Where registers
  // allow, a step stages the step before's dq once its own S^T and dP^T are issued, which run
  // meanwhile: (192, 128), whose accumulators a thread are 160 registers; at D = 256 they are
  // 224, and the carried dq spilled (benchmarks/NOTES.md, 2026-11-28).
  static constexpr bool kSdPAhead = kSplitD && kHeadDimV != kHeadDim;
  // P^T and dS^T to shared memory by stmatrix: four 8 x 8 tiles an instruction at a 32-bit
  // shared address (the query-contiguous rows of sdSt are the accumulators' rows), where the
  // element-pair stores of SmemCopyAtomAcc were generic 64-bit-addressed stores, 16 a step
  // and thread plus their addresses' registers.
  using SmemCopyAtomdS = Copy_Atom<SM90_U32x4_STSM_N, Element>;
  using TiledMmadQ = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, float,
                           Shape<_64, Int<kDqSplitD ? kHeadDim / 2 : kHeadDim>, Int<kBlockN>>,
                           GMMA::Major::MN, GMMA::Major::MN>(),
      std::conditional_t<kDqSplitD, WarpGroupsN, Layout<Shape<_1, _1, _1>>>{}));

  // Q, dO, K, V as loaded (head dim contiguous): K-major for S^T and dP^T; their transposed
  // views are the MN-major B operands of dK, dV and dQ. dS (and P, kSplitD) is stored
  // query-contiguous: the MN-major A of dQ, and transposed the K-major A of dK (and dV).
  // 128-byte swizzle atoms (64 elements along the head dim), or 64-byte ones where a
  // warpgroup's share of the head dim in the transposed (MN-major) operands of dK, dV and dQ
  // is no multiple of 64 (192 split in two: 96).
  template <int kD>
  using SmemAtom = std::conditional_t<(kSplitD ? kD / 2 : kD) % 64 == 0,
                                      GMMA::Layout_K_SW128_Atom<Element>,
                                      GMMA::Layout_K_SW64_Atom<Element>>;
  template <int kRows, int kD = kHeadDim>
  using SmemLayoutRowsK = decltype(tile_to_shape(SmemAtom<kD>{}, Shape<Int<kRows>, Int<kD>>{}));
  // dK's staging for its global stores (store_dk_dv): TraitsBase's rows, in atoms of 32 columns
  // where a warpgroup's share of its columns is 96.
  template <int kRows>
  using SmemLayoutRows = std::conditional_t<
      (kSplitD ? kHeadDim / 2 : kHeadDim) % 64 == 0, typename Base::template SmemLayoutRows<kRows>,
      decltype(tile_to_shape(
          composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{}),
          Shape<Int<kRows>, Int<kHeadDim>>{}))>;
  template <int kRows, int kD = kHeadDim>
  using SmemLayoutRowsKt = decltype(composition(
      SmemLayoutRowsK<kRows, kD>{}, make_layout(Shape<Int<kD>, Int<kRows>>{}, GenRowMajor{})));
  using SmemLayoutQ = SmemLayoutRowsK<kBlockM>;   // (kBlockM, kHeadDim)
  using SmemLayoutQt = SmemLayoutRowsKt<kBlockM>;  // (kHeadDim, kBlockM)
  using SmemLayoutdO = SmemLayoutRowsK<kBlockM, kHeadDimV>;   // (kBlockM, kHeadDimV)
  using SmemLayoutdOt = SmemLayoutRowsKt<kBlockM, kHeadDimV>;  // (kHeadDimV, kBlockM)
  using SmemLayoutK = SmemLayoutRowsK<kBlockN>;   // (kBlockN, kHeadDim)
  using SmemLayoutKt = SmemLayoutRowsKt<kBlockN>;  // (kHeadDim, kBlockN)
  using SmemLayoutV = SmemLayoutRowsK<kBlockN, kHeadDimV>;  // (kBlockN, kHeadDimV)
  using SmemLayoutdS = decltype(tile_to_shape(GMMA::Layout_MN_SW128_Atom<Element>{},
                                              Shape<Int<kBlockM>, Int<kBlockN>>{}));
  using SmemLayoutdSt = decltype(composition(
      SmemLayoutdS{}, make_layout(Shape<Int<kBlockN>, Int<kBlockM>>{}, GenRowMajor{})));

  static constexpr int kSmemQ = kBlockM * kHeadDim;  // elements of one Q buffer
  static constexpr int kSmemdO = kBlockM * kHeadDimV;  // of one dO buffer
  static constexpr int kSmemK = kBlockN * kHeadDim;
  static constexpr int kSmemV = kBlockN * kHeadDimV;
  static constexpr int kSmemdS = kBlockM * kBlockN;
  // Element offsets: two buffers of Q, then two of dO, K, V, two of dS (kSplitD: of dS and P);
  // then two buffers of lse and of D (fp32).
  static constexpr int kOffsetdO = 2 * kSmemQ;
  static constexpr int kOffsetK = kOffsetdO + 2 * kSmemdO;
  static constexpr int kOffsetV = kOffsetK + kSmemK;
  static constexpr int kOffsetdS = kOffsetV + kSmemV;
  static constexpr int kSmemRowStats = (kOffsetdS + (kSplitD ? 4 : 2) * kSmemdS) * sizeof(Element);
  // dq staging: a warpgroup's 64 rows x kDqCols of a step's dq, as boxes of 64 rows x 32
  // columns (8 KB, 128-byte swizzle), each added to the fp32 accumulators by one TMA tensor
  // reduction. Up to D = 128 in buffers of their own (the consumers stage a step while the
  // writer sends the ones before: three at D = 64, where there is room, +1-2% over two; two at
  // 128); at D = 256 there is no room for them, and the boxes go to the step's own Q and dO
  // buffers (kDqInQ: the warpgroup's column half of each, which only its own dK and dV products
  // read: free once it has waited for them; the writer hands the buffers back to the producer
  // once its reductions have read them). (192, 128): those halves hold 20 of the 24 KB a
  // warpgroup stages, so one buffer of its own (kDqStages 1: a step's staging waits for the
  // writer to have read the one before).
  static constexpr int kDqCols = kDqSplitD ? kHeadDim / 2 : kHeadDim;
  static constexpr int kDqBoxes = kDqCols / 32;  // a warpgroup's boxes a step
  static constexpr int kDqStepBoxes = kDqSplitD ? 2 * kDqBoxes : kDqBoxes;  // a step's
  static constexpr int kDqStagers = kDqSplitD ? kNConsumers : 128;  // threads staging a step's dq
  static constexpr int kDqBoxBytes = 64 * 32 * sizeof(float);
  static constexpr bool kDqInQ = kSplitD && kHeadDimV == kHeadDim;
  // The staging buffers (!kDqInQ).
  static constexpr int kDqStages = kHeadDimV != kHeadDim ? 1 : kHeadDim == 64 ? 3 : 2;
  static_assert(!kDqInQ || kDqBoxes == 4);
  using SmemLayoutDqBox = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<float>{},
                                                 Shape<_64, _32>{}));
  static constexpr int kSmemDqStage = kSmemRowStats + 4 * kBlockM * sizeof(float);
  // Then the mbarriers: each Q/dO buffer's full and empty, each dq staging buffer's empty.
  static constexpr int kSmemBarriers =
      kSmemDqStage + (kDqInQ ? 0 : kDqStages * kDqStepBoxes * kDqBoxBytes);
  static_assert(kSmemBarriers % 8 == 0);
  static constexpr int kSmemSize = kSmemBarriers + (4 + kDqStages) * sizeof(uint64_t);
  static_assert(kSmemSize <= kSm90MaxSmem, "more than an sm90 block's shared memory");

  using TmaQ = Sm90TmaLoad<Element, SmemLayoutQ>;    // a (kBlockM, kHeadDim) tile of q
  using TmadO = Sm90TmaLoad<Element, SmemLayoutdO>;  // a (kBlockM, kHeadDimV) tile of dout
  static constexpr uint32_t kBytesQ = kSmemQ * sizeof(Element);
  static constexpr uint32_t kBytesdO = kSmemdO * sizeof(Element);
  // dq_accum as (lse rows, kHeadDim, slices x batch x heads): a box's rows past the end of a
  // sequence are clipped (varlen: they run into the next sequence, and are staged as zeros).
  using DqTensor = decltype(make_tensor(make_gmem_ptr(static_cast<float*>(nullptr)),
                                        make_shape(int32_t(0), Int<kHeadDim>{}, int32_t(0)),
                                        make_stride(Int<kHeadDim>{}, _1{}, int64_t(0))));
  using TmaDq = decltype(make_tma_copy(SM90_TMA_REDUCE_ADD{}, DqTensor{}, SmemLayoutDqBox{},
                                       Shape<_64, _32>{}, _1{}));

  // Byte offset of box `box` (columns 32 box.. of its kDqCols) of warpgroup wg's staged dq in
  // step i.
  static __device__ __forceinline__ int dq_box_offset(int wg, int box, int i) {
    if constexpr (kDqInQ) {  // boxes 0, 1 in Q's buffer, 2, 3 in dO's (of the same size)
      constexpr int kHalf = kSmemQ * sizeof(Element) / 2;
      const int q = (i % 2 + (box >= 2 ? 2 : 0)) * kSmemQ * int(sizeof(Element));
      return q + wg * kHalf + (box % 2) * kDqBoxBytes;
    }
    return kSmemDqStage +
           ((i % kDqStages) * kDqStepBoxes + (kDqSplitD ? wg * kDqBoxes : 0) + box) * kDqBoxBytes;
  }
};

// The mbarriers of Sm90BwdTraits' shared memory: buffer s of Q, dO, lse and D is full (its
// TMA bytes landed, the producer's 32 lanes stored lse and D) and empty (both consumers' dK and
// dV products have read it; kDqInQ: the consumers have staged their dq in it and the writer's
// reductions have read it),
// dq staging buffer s is empty (the writer's reductions have read it).
struct Sm90BwdBarriers {
  uint64_t* base;
  __device__ __forceinline__ uint64_t* q_full(int s) const { return base + s; }
  __device__ __forceinline__ uint64_t* q_empty(int s) const { return base + 2 + s; }
  __device__ __forceinline__ uint64_t* dq_empty(int s) const { return base + 4 + s; }
};

// Named barriers (after CUTLASS's reserved ones): the two consumer warpgroups, and dq staging
// buffer s full (the consumers arrive, the writer waits).
enum class Sm90BwdBarrier : uint32_t { kConsumers = 0, kDqFull = 1 };

// A barrier of the consumer warpgroups.
template <typename Traits>
__device__ __forceinline__ void bwd_sm90_sync_consumers() {
  cutlass::arch::NamedBarrier::sync(Traits::kNConsumers, uint32_t(Sm90BwdBarrier::kConsumers));
}

// The TMA descriptors of one call (built on the host by make_sm90_bwd_tma).
template <typename Traits>
struct Sm90BwdTma {
  typename Traits::TmaQ q;
  typename Traits::TmadO dout;
  typename Traits::TmaDq dq;
};

// The shape of Sm90BwdTraits::DqTensor for a call.
template <int kHeadDim>
__host__ __device__ inline auto sm90_dq_shape(const BwdParams& p) {
  const LseRows rows(p);
  return make_shape(int32_t(rows.rows), Int<kHeadDim>{},
                    int32_t(p.dq_splits * rows.batch * rows.heads));
}

// Calls whose q or dout TMA cannot load (sm90_tma_fits) run bwd_kernel.h.
template <typename Traits>
bool sm90_bwd_fits(const BwdParams& p) {
  using Element = typename Traits::Element;
  return sm90_tma_fits<Element>(p, p.q, p.q_row_stride, p.q_head_stride, p.q_batch_stride) &&
         sm90_tma_fits<Element>(p, p.dout, p.do_row_stride, p.do_head_stride, p.do_batch_stride);
}

template <typename Traits>
Sm90BwdTma<Traits> make_sm90_bwd_tma(const BwdParams& p) {
  using Element = typename Traits::Element;
  // q at head_dim, dout at head_dim_v (value).
  auto tma = [&](auto layout, auto dim, const void* ptr, int64_t row, int64_t head, int64_t batch,
                 bool value) {
    return make_tma_copy(SM90_TMA_LOAD{},
                         sm90_qkv_tensor<Element>(p, ptr, false, row, head, batch, value), layout,
                         Shape<Int<Traits::kBlockM>, decltype(dim)>{}, _1{});
  };
  constexpr int kHeadDim = Traits::kHeadDim;
  auto shape = sm90_dq_shape<kHeadDim>(p);
  typename Traits::DqTensor dq = make_tensor(
      make_gmem_ptr(p.dq_accum), shape,
      make_stride(Int<kHeadDim>{}, _1{}, int64_t(get<0>(shape)) * kHeadDim));
  return {tma(typename Traits::SmemLayoutQ{}, Int<Traits::kHeadDim>{}, p.q, p.q_row_stride,
              p.q_head_stride, p.q_batch_stride, false),
          tma(typename Traits::SmemLayoutdO{}, Int<Traits::kHeadDimV>{}, p.dout, p.do_row_stride,
              p.do_head_stride, p.do_batch_stride, true),
          make_tma_copy(SM90_TMA_REDUCE_ADD{}, dq, typename Traits::SmemLayoutDqBox{},
                        Shape<_64, _32>{}, _1{})};
}

template <typename Traits, bool kCausal>
using Sm90BwdSteps = KeyBlockSteps<Traits::kBlockM, Traits::kBlockN, kCausal>;

// The producer (one warp): for each step of the CTA's key blocks, in the consumers' order, Q
// and dO by TMA (lane 0) and lse (log2-scaled; +inf for a row with no visible key or past the
// sequence, so that P = dS = 0 there whatever TMA read: zeros past the tensor, a varlen call's
// next sequence) and D by the 32 lanes, into buffer g % 2 (g: steps passed) once it is empty.
template <typename Traits, bool kCausal>
__device__ __forceinline__ void bwd_sm90_producer(const BwdParams& params,
                                                  const Sm90BwdTma<Traits>& tma,
                                                  const BwdTile& tile, const SeqLen& seq,
                                                  char* smem, const Sm90BwdBarriers& bars) {
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kHeadDim = Traits::kHeadDim;
  const int lane = threadIdx.x % 32;
  Element* smem_e = reinterpret_cast<Element*>(smem);
  float* smem_lse = reinterpret_cast<float*>(smem + Traits::kSmemRowStats);  // [2][kBlockM]
  float* smem_dsum = smem_lse + 2 * kBlockM;                                  // [2][kBlockM]
  const int b = seq.varlen ? 0 : tile.bidb;
  // A (kBlockM, dim) tile of q (value false) or dout (value true: v's head dim).
  auto load_tile = [&](auto const& tma_rows, auto layout, auto dim, bool value, int h, int m,
                       Element* dst, uint64_t* full) {
    Tensor mX = tma_rows.get_tma_tensor(sm90_qkv_shape(params, false, value))(_, _, h, b);
    Tensor gX = local_tile(domain_offset(make_coord(int32_t(seq.q_row0), _0{}), mX),
                           Shape<Int<kBlockM>, decltype(dim)>{}, make_coord(m, _0{}));
    Tensor sX = make_tensor(make_smem_ptr(dst), layout);
    auto [tXgX, tXsX] = tma_partition(tma_rows, _0{}, Layout<_1>{}, group_modes<0, 2>(sX),
                                      group_modes<0, 2>(gX));
    copy(tma_rows.with(*full), tXgX, tXsX);
  };
  int g = 0;
  for (int n_block = tile.n_block; tile.has(n_block, Traits::kBlockN, seq.seqlen_k);
       n_block = tile.next(n_block, Traits::kBlockN, seq.seqlen_k)) {
    const Sm90BwdSteps<Traits, kCausal> steps(params, seq, tile.kv_head, n_block);
    steps.walk([&](int, int h, int m, int, int) {
      const int s = g % 2;
      Barrier::wait(bars.q_empty(s), ((g / 2) & 1) ^ 1);
      if (lane == 0) {
        Barrier::expect_transaction(bars.q_full(s), Traits::kBytesQ + Traits::kBytesdO);
        load_tile(tma.q, typename Traits::SmemLayoutQ{}, Int<kHeadDim>{}, false, h, m,
                  smem_e + s * Traits::kSmemQ, bars.q_full(s));
        load_tile(tma.dout, typename Traits::SmemLayoutdO{}, Int<Traits::kHeadDimV>{}, true, h, m,
                  smem_e + Traits::kOffsetdO + s * Traits::kSmemdO, bars.q_full(s));
      }
      const int64_t offset = seq.lse_offset(params, tile.bidb, h);
      CUTE_UNROLL
      for (int j = 0; j < kBlockM / 32; ++j) {
        const int r = lane + 32 * j, row = m * kBlockM + r;
        float lse = INFINITY, dsum = 0.f;
        if (row < seq.seqlen_q) {
          const float l = params.lse[offset + row];
          lse = l == -INFINITY ? INFINITY : l * float(M_LOG2E);
          dsum = params.dsum[offset + row];
        }
        smem_lse[s * kBlockM + r] = lse;
        smem_dsum[s * kBlockM + r] = dsum;
      }
      Barrier::arrive(bars.q_full(s));
      ++g;
    });
  }
}

// The dQ writer (one thread): for each step, once the consumers have staged its dq, one TMA
// tensor reduction per box into the fp32 accumulators of the CTA's dq slice, then the staging
// buffer back to the consumers (kDqInQ: Q/dO's buffer back to the producer) once the
// reductions have read it. Deterministic calls (params.dq_semaphore) add in a fixed order of
// the key blocks (KeyBlockSteps::earlier_key_blocks): the step waits until the query block's
// counter shows the additions of every block before this one, and counts its own once they
// have finished.
template <typename Traits, bool kCausal>
__device__ __forceinline__ void bwd_sm90_dq_writer(const BwdParams& params,
                                                   const Sm90BwdTma<Traits>& tma,
                                                   const BwdTile& tile, const SeqLen& seq,
                                                   char* smem, const Sm90BwdBarriers& bars) {
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  using NamedBarrier = cutlass::arch::NamedBarrier;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kHeadDim = Traits::kHeadDim;
  const LseRows rows(params);
  const int b = seq.varlen ? 0 : tile.bidb;
  Tensor mdQ = tma.dq.get_tma_tensor(sm90_dq_shape<kHeadDim>(params));
  int g = 0;
  for (int n_block = tile.n_block; tile.has(n_block, Traits::kBlockN, seq.seqlen_k);
       n_block = tile.next(n_block, Traits::kBlockN, seq.seqlen_k)) {
    const Sm90BwdSteps<Traits, kCausal> steps(params, seq, tile.kv_head, n_block);
    steps.walk([&](int, int h, int m, int, int) {
      const int stage = g % Traits::kDqStages;
      NamedBarrier::sync(Traits::kDqStagers + 32, uint32_t(Sm90BwdBarrier::kDqFull) + stage);
      if (cute::elect_one_sync()) {
        int* counter = nullptr;
        if (params.dq_semaphore != nullptr) {
          const int m_blocks = (params.seqlen_q + kBlockM - 1) / kBlockM;
          counter = params.dq_semaphore + (int64_t(tile.bidb) * params.heads_q + h) * m_blocks + m;
          const int turn = steps.earlier_key_blocks(m);
          while (load_acquire_gpu(counter) != turn) {
          }
          fence_async_proxy_global();  // the reductions below come after the ones counted
        }
        const int z = (tile.dq_slice * rows.batch + b) * rows.heads + h;
        const int row0 = seq.q_row0 + m * kBlockM;
        CUTE_UNROLL
        for (int wg = 0; wg < (Traits::kDqSplitD ? 2 : 1); ++wg) {
          CUTE_UNROLL
          for (int box = 0; box < Traits::kDqBoxes; ++box) {
            const int col = wg * Traits::kDqCols + box * 32;
            Tensor gBox = local_tile(domain_offset(make_coord(row0, col), mdQ(_, _, z)),
                                     Shape<_64, _32>{}, make_coord(_0{}, _0{}));
            Tensor sBox = make_tensor(make_smem_ptr(reinterpret_cast<float*>(
                                          smem + Traits::dq_box_offset(wg, box, g))),
                                      typename Traits::SmemLayoutDqBox{});
            auto [tG, tS] = tma_partition(tma.dq, _0{}, Layout<_1>{}, group_modes<0, 2>(sBox),
                                          group_modes<0, 2>(gBox));
            copy(tma.dq, tS, tG);
          }
        }
        bulk_commit_group();
        if (counter != nullptr) {
          bulk_wait_group<0>();  // the additions are done
          fence_async_proxy_global();
          add_release_gpu(counter, 1);
        } else {
          bulk_wait_group_read<0>();
        }
        if constexpr (Traits::kDqInQ) {
          Barrier::arrive(bars.q_empty(g % 2));
        } else {
          Barrier::arrive(bars.dq_empty(stage));
        }
      }
      __syncwarp();
      ++g;
    });
  }
}

// A consumer thread's share of key block n_block's K and V rows into their buffers, by
// cp.async in one group: keys past the sequence and columns past the head dims as zeros.
template <typename Traits>
__device__ __forceinline__ void bwd_sm90_load_kv(const BwdParams& params, const SeqLen& seq,
                                                 int bidb, int kv_head, int n_block, char* smem,
                                                 int tidx) {
  using Element = typename Traits::Element;
  constexpr int kBlockN = Traits::kBlockN;
  const int n0 = n_block * kBlockN, keys = min(kBlockN, seq.seqlen_k - n0);
  Element* smem_e = reinterpret_cast<Element*>(smem);
  // K's rows (kD = kHeadDim, head_dim of them read) and V's (kHeadDimV, head_dim_v).
  auto load_rows = [&](auto base, auto dim, auto dst, const void* ptr, int64_t batch_stride,
                       int64_t head_stride, int64_t row_stride, int head_dim) {
    constexpr int kD = decltype(dim)::value;
    typename decltype(base)::GmemTiledCopyLoad gmem_copy;
    auto gmem_thr_copy = gmem_copy.get_thread_slice(tidx);
    Tensor tc = gmem_thr_copy.partition_S(make_identity_tensor(Shape<Int<kBlockN>, Int<kD>>{}));
    Tensor tp = columns_below(tc, head_dim);
    Tensor td = gmem_thr_copy.partition_D(dst);
    copy_tile<true>(gmem_copy,
                    gmem_thr_copy.partition_S(key_rows<Element, kBlockN, kD>(
                        ptr, batch_stride, head_stride, row_stride, seq, bidb, kv_head, n0)),
                    td, tc, tp, keys);
  };
  load_rows(typename Traits::Base{}, Int<Traits::kHeadDim>{},
            make_tensor(make_smem_ptr(smem_e + Traits::kOffsetK), typename Traits::SmemLayoutK{}),
            params.k, params.k_batch_stride, params.k_head_stride, params.k_row_stride,
            params.head_dim);
  load_rows(typename Traits::BaseV{}, Int<Traits::kHeadDimV>{},
            make_tensor(make_smem_ptr(smem_e + Traits::kOffsetV), typename Traits::SmemLayoutV{}),
            params.v, params.v_batch_stride, params.v_head_stride, params.v_row_stride,
            params.head_dim_v);
  cp_async_fence();
}

// A consumer thread's work on key block n_block, whose K and V have landed (tidx: its index
// among the consumers; g: the steps passed, over the CTA's key blocks).
template <typename Traits, bool kCausal>
__device__ __forceinline__ void bwd_sm90_key_block(const BwdParams& params, const SeqLen& seq,
                                                   int bidb, int kv_head, int n_block,
                                                   char* smem, const Sm90BwdBarriers& bars,
                                                   int tidx, int& g) {
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  using NamedBarrier = cutlass::arch::NamedBarrier;
  using Element = typename Traits::Element;
  constexpr int kBlockM = Traits::kBlockM;
  constexpr int kBlockN = Traits::kBlockN;
  constexpr int kHeadDim = Traits::kHeadDim;
  auto sync_consumers = [] { bwd_sm90_sync_consumers<Traits>(); };
  const Sm90BwdSteps<Traits, kCausal> steps(params, seq, kv_head, n_block);
  const int n0 = steps.n0, keys = steps.keys;

  constexpr int kHeadDimV = Traits::kHeadDimV;
  Element* smem_e = reinterpret_cast<Element*>(smem);
  Tensor sQ = make_tensor(make_smem_ptr(smem_e), typename Traits::SmemLayoutQ{});
  Tensor sQt = make_tensor(make_smem_ptr(smem_e), typename Traits::SmemLayoutQt{});
  Element* smem_do = smem_e + Traits::kOffsetdO;
  Tensor sdO = make_tensor(make_smem_ptr(smem_do), typename Traits::SmemLayoutdO{});
  Tensor sdOt = make_tensor(make_smem_ptr(smem_do), typename Traits::SmemLayoutdOt{});
  Element* smem_k = smem_e + Traits::kOffsetK;
  Element* smem_v = smem_e + Traits::kOffsetV;
  Tensor sK = make_tensor(make_smem_ptr(smem_k), typename Traits::SmemLayoutK{});
  Tensor sKt = make_tensor(make_smem_ptr(smem_k), typename Traits::SmemLayoutKt{});
  Tensor sV = make_tensor(make_smem_ptr(smem_v), typename Traits::SmemLayoutV{});
  Element* smem_ds = smem_e + Traits::kOffsetdS;
  // dS (and P, kSplitD) of step i in buffer i % 2: a warpgroup writes step i's while the other
  // may still read step i - 1's, so one consumer barrier a step suffices.
  Tensor sdS = make_tensor(make_smem_ptr(smem_ds), typename Traits::SmemLayoutdS{});
  Tensor sdSt = make_tensor(make_smem_ptr(smem_ds), typename Traits::SmemLayoutdSt{});
  Tensor sPt = make_tensor(make_smem_ptr(smem_ds + Traits::kSmemdS), typename Traits::SmemLayoutdSt{});
  auto ds_buffer = [&](int i) { return (i % 2) * (Traits::kSplitD ? 2 : 1) * Traits::kSmemdS; };
  const float* smem_lse = reinterpret_cast<const float*>(smem + Traits::kSmemRowStats);  // [2][kBlockM]
  const float* smem_dsum = smem_lse + 2 * kBlockM;                                        // [2][kBlockM]
  // Q's and dO's buffer of step g (two of each: the producer fills one while the step uses the
  // other).
  auto buffer = [&](int i) { return (i % 2) * Traits::kSmemQ; };
  auto buffer_do = [&](int i) { return (i % 2) * Traits::kSmemdO; };

  typename Traits::TiledMmaSdP mma_sdp;
  auto thr_sdp = mma_sdp.get_thread_slice(tidx);
  Tensor tSrK = thr_sdp.partition_fragment_A(sK);   // descriptors (MMA, MMA_M, MMA_K)
  Tensor tSrQ = thr_sdp.partition_fragment_B(sQ);   // (MMA, MMA_N, MMA_K)
  Tensor tdPrV = thr_sdp.partition_fragment_A(sV);
  Tensor tdPrdO = thr_sdp.partition_fragment_B(sdO);
  typename Traits::TiledMmadKV mma_dkv;
  auto thr_dkv = mma_dkv.get_thread_slice(tidx);
  typename Traits::TiledMmadV mma_dv;
  auto thr_dv = mma_dv.get_thread_slice(tidx);
  Tensor tdVrdO = thr_dv.partition_fragment_B(sdOt);  // (MMA, MMA_N, MMA_K)
  Tensor tdKrQ = thr_dkv.partition_fragment_B(sQt);
  Tensor tdVrPt = thr_dv.partition_fragment_A(sPt);  // kSplitD: descriptors (MMA, MMA_M, MMA_K)
  Tensor tdKrdSt = thr_dkv.partition_fragment_A(sdSt);
  typename Traits::TiledMmadQ mma_dq;
  auto thr_dq = mma_dq.get_thread_slice(Traits::kDqSplitD ? tidx : tidx % 128);
  Tensor tdQrdS = thr_dq.partition_fragment_A(sdS);  // (MMA, MMA_M, MMA_K)
  Tensor tdQrK = thr_dq.partition_fragment_B(sKt);   // (MMA, MMA_N, MMA_K)
  // Descriptors moved by `elems` elements (their iterator counts 16-byte units); of buffer i
  // (step i's Q and dO).
  auto at_elems = [&](auto const& desc, int elems) {
    return make_tensor(desc.data() + elems * int(sizeof(Element)) / 16, desc.layout());
  };
  auto at_buffer = [&](auto const& desc, int i) { return at_elems(desc, buffer(i)); };
  auto at_buffer_do = [&](auto const& desc, int i) { return at_elems(desc, buffer_do(i)); };

  auto copy_dS = make_tiled_copy_C(typename Traits::SmemCopyAtomdS{}, mma_sdp);
  auto thr_copy_dS = copy_dS.get_thread_slice(tidx);

  // (key, query) of each element of this thread's S^T accumulator.
  Tensor tScS = thr_sdp.partition_C(make_identity_tensor(Shape<Int<kBlockN>, Int<kBlockM>>{}));
  Tensor tScS_rc = make_tensor(tScS.data(), gmma_acc_rowcol_layout(tScS.layout()));  // (rows, cols)
  // This warp's staged dq rows: 16 from warpgroup row wg_row0.
  const int wg = tidx / 128, lane = tidx % 32;
  const int wg_row0 = tidx / 32 % 4 * 16;
  constexpr int kCols = decltype(size<1>(tScS_rc))::value;
  // Where this thread stages its dq (SmemLayoutDqBox in bytes: rows of 128, the 16-byte chunk
  // index XOR the row's 3 low bits; the boxes are 1024-byte aligned). Its accumulator holds rows
  // lane/4 and lane/4 + 8 of the warp's 16, columns 8t + 2(lane % 4) + {0, 1} of the
  // warpgroup's kDqCols: row % 8 = lane / 4 for both, so the chunk of columns 8t.. is
  // (2(t % 4) + lane % 4 / 2) ^ (lane / 4), one of four offsets within a row; the row (8 more:
  // 1024 bytes) and the box (t / 4) add constants. Four registers, where the 16 addresses
  // computed ahead were spilled and reloaded every step. A half warp (rows 0-3 or 4-7) storing
  // the same t wrote its 128 bytes to 16 banks, rows r and r ^ 1 in the same four chunks (ncu:
  // two wavefronts where one would do); so the lanes of odd rows store t ^ 2's columns in the
  // instruction that stores t's for the others: eight distinct chunks.
  const bool dq_swap = lane & 4;
  uint32_t dq_chunk_offset[4];
  CUTE_UNROLL
  for (int t = 0; t < 4; ++t) {
    const int ts = dq_swap ? t ^ 2 : t;
    dq_chunk_offset[t] = (wg_row0 + lane / 4) * 128 + lane % 2 * 8 +
                         (((2 * ts + lane % 4 / 2) ^ (lane / 4)) * 16);
  }
  const uint32_t smem_u32 = cute::cast_smem_ptr_to_uint(smem);

  Tensor acc_dk = partition_fragment_C(mma_dkv, Shape<Int<kBlockN>, Int<kHeadDim>>{});  // (MMA, MMA_M, MMA_N)
  Tensor acc_dv = partition_fragment_C(mma_dv, Shape<Int<kBlockN>, Int<kHeadDimV>>{});
  clear(acc_dk);
  clear(acc_dv);

  const bool has_softcap = params.softcap > 0.f;
  const float softmax_scale = has_softcap ? params.softcap : params.scale;
  const float softcap_prescale = has_softcap ? params.scale / params.softcap : 1.f;
  const float scale_log2 = softmax_scale * float(M_LOG2E);
  const bool all_masked = has_softcap || params.alibi_slopes != nullptr;

  Tensor acc_s = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});  // (MMA, MMA_M, MMA_N)
  Tensor acc_dp = partition_fragment_C(mma_sdp, Shape<Int<kBlockN>, Int<kBlockM>>{});

  // lse of query column c, log2-scaled (+inf: P = 0), read from shared memory once Q and dO
  // have landed, before the step's products are issued: a shared load issued behind wgmmas
  // waits in the same queue until the tensor cores have taken them (ncu at D = 128: the exps'
  // first FFMA, waiting for lse, held 10% of the kernel's stall samples), and read after the
  // wait it held up the exps. D once the exps are done, before dV's product is issued (read
  // in the dS loop, after it, the first FADD waited likewise).
  float lse_log2[kCols];
  auto read_rows = [&](float* dst, const float* src) __attribute__((always_inline)) {
    CUTE_UNROLL
    for (int c = 0; c < kCols; ++c) dst[c] = src[get<1>(tScS_rc(0, c))];
  };

  // Stages step i's dq (acc_dq, query rows m0..; dQ's products done) for the writer.
  auto stage_dq = [&](auto& acc_dq, int i, int m0) __attribute__((always_inline)) {
    gmma_done(acc_dq);
    // Accumulator rows lane/4 and lane/4 + 8 of the warp's 16 (rows past the sequence staged
    // as zeros); column 8t + 2(lane % 4) + c of the warpgroup's kDqCols.
    const int stage = i % Traits::kDqStages;
    if constexpr (!Traits::kDqInQ) {
      Barrier::wait(bars.dq_empty(stage), ((i / Traits::kDqStages) & 1) ^ 1);
    }
    Tensor dq = make_tensor(acc_dq.data(), gmma_acc_rowcol_layout(acc_dq.layout()));
    static_assert(decltype(size<1>(dq))::value == Traits::kDqCols / 4);
    // Rows past the sequence are staged as zeros (dq_chunk_offset says where the rest goes).
    CUTE_UNROLL
    for (int r = 0; r < 2; ++r) {
      const int row = wg_row0 + lane / 4 + 8 * r;
      const bool valid = m0 + row < seq.seqlen_q;
      CUTE_UNROLL
      for (int k = 0; k < size<1>(dq); k += 2) {
        const int t = k / 2;  // columns 8t.. of the warpgroup's kDqCols (8 (t ^ 2).., swapped)
        const int ks = (t ^ 2) * 2;
        const float x = dq_swap ? dq(r, ks) : dq(r, k);
        const float y = dq_swap ? dq(r, ks + 1) : dq(r, k + 1);
        const uint32_t box = smem_u32 + Traits::dq_box_offset(wg, t / 4, i);
        store_shared_f32x2(box + dq_chunk_offset[t % 4] + r * 1024, valid ? x : 0.f,
                           valid ? y : 0.f);
      }
    }
    fence_async_proxy();
    NamedBarrier::arrive(Traits::kDqStagers + 32, uint32_t(Sm90BwdBarrier::kDqFull) + stage);
  };

  // The step's products are issued and waited for within it: the next step's S^T and dP^T
  // issued ahead, at the end of a step (at D = 64 until 2026-11-28), kept the tensor cores fed
  // while both warpgroups computed dQ; with one warpgroup's dQ a step, the other's next step
  // does, and the products issued ahead were 1-4% slower (benchmarks/NOTES.md). kSdPAhead: the
  // step stages the dq of the step before (its m0: prev_m0) once its own S^T and dP^T
  // are issued, so that they run meanwhile; acc_dq is then the caller's, carried from step to
  // step (no product runs across steps: ptxas serialized every wgmma with S^T and dP^T issued
  // at the end of a step for the next).
  int prev_m0 = 0;
  auto step = [&](int i_block, int h, int m, auto is_masked, auto& acc_dq)
                  __attribute__((always_inline)) {
    const int i = g + i_block;
    const int m0 = m * kBlockM;
    const int m_end = min(m0 + kBlockM, seq.seqlen_q);
    // Whether this warpgroup computes and stages the step's dQ.
    const bool dq_here = Traits::kDqSplitD || i % 2 == wg;
    Tensor tdSsdS = thr_copy_dS.partition_D(
        make_tensor(make_smem_ptr(smem_ds + ds_buffer(i)), typename Traits::SmemLayoutdSt{}));
    Tensor s = make_tensor(acc_s.data(), gmma_acc_rowcol_layout(acc_s.layout()));  // (keys, queries)
    Tensor dp = make_tensor(acc_dp.data(), gmma_acc_rowcol_layout(acc_dp.layout()));
    const float* lse_i = smem_lse + (i % 2) * kBlockM;
    const float* dsum_i = smem_dsum + (i % 2) * kBlockM;
    float dsum[kCols];
    // Q and dO have landed: lse read, S^T and dP^T issued.
    Barrier::wait(bars.q_full(i % 2), (i / 2) & 1);
    read_rows(lse_log2, lse_i);
    gmma_issue<true>(mma_sdp, tSrK, at_buffer(tSrQ, i), acc_s);
    gmma_issue<true>(mma_sdp, tdPrV, at_buffer_do(tdPrdO, i), acc_dp);
    if constexpr (Traits::kSdPAhead) {
      if (i_block > 0) {
        warpgroup_wait<2>();  // (the step before's products; ptxas waited for all without it)
        stage_dq(acc_dq, i - 1, prev_m0);
      }
    }
    warpgroup_wait<1>();
    gmma_done(acc_s);

    const float alibi_coef = decltype(is_masked)::value && params.alibi_slopes != nullptr
        ? -params.alibi_slopes[bidb * params.alibi_batch_stride + h] / softmax_scale
        : 0.f;
    const Mask<kCausal> mask(seq.seqlen_q, seq.seqlen_k, params.bottom_right, params.window_left,
                             params.window_right, alibi_coef);
    if constexpr (decltype(is_masked)::value) {
      if (has_softcap) {
        CUTE_UNROLL
        for (int j = 0; j < size(acc_s); ++j) acc_s(j) = cutlass::fast_tanh(acc_s(j) * softcap_prescale);
      }
      mask.apply_transposed(
          s, [&](int r) { return n0 + get<0>(tScS_rc(r, 0)); }, m0 + get<1>(tScS_rc(0, 0)),
          [&](int c) { return get<1>(tScS_rc(0, c)) - get<1>(tScS_rc(0, 0)); },
          mask.template block_needs_mask<kBlockN>(n0, m0, m_end));
    }
    CUTE_UNROLL
    for (int c = 0; c < kCols; ++c) {
      const float lse = lse_log2[c];
      CUTE_UNROLL
      for (int r = 0; r < size<0>(s); ++r) s(r, c) = exp2f(s(r, c) * scale_log2 - lse);
    }
    Tensor rP = convert_type<Element>(acc_s);
    read_rows(dsum, dsum_i);
    if constexpr (Traits::kSplitD) {
      warpgroup_wait<0>();
    } else {
      // dV's product runs while dS is computed.
      Tensor tdVrP = make_tensor(rP.data(), gmma_acc_as_a_layout(rP.layout()));  // (MMA, MMA_M, MMA_K)
      gmma_issue<false>(mma_dv, tdVrP, at_buffer_do(tdVrdO, i), acc_dv);
      warpgroup_wait<1>();
    }
    gmma_done(acc_dp);
    CUTE_UNROLL
    for (int c = 0; c < kCols; ++c) {
      CUTE_UNROLL
      for (int r = 0; r < size<0>(s); ++r) {
        dp(r, c) = s(r, c) * (dp(r, c) - dsum[c]);
      }
    }
    if constexpr (decltype(is_masked)::value) {
      if (has_softcap) {
        // Softcap's 1 - tanh^2 from P, as in bwd_kernel.h, after the dS loop and with lse read
        // again: kept in registers through that loop for this, lse and D were spilled there.
        read_rows(lse_log2, lse_i);
        CUTE_UNROLL
        for (int c = 0; c < kCols; ++c) {
          CUTE_UNROLL
          for (int r = 0; r < size<0>(s); ++r) {
            const float p = s(r, c);
            if (p != 0.f) {
              const float t = (__log2f(p) + lse_log2[c]) / scale_log2 -
                              mask.alibi(m0 + get<1>(tScS_rc(r, c)), n0 + get<0>(tScS_rc(r, c)));
              dp(r, c) *= 1.f - t * t;
            }
          }
        }
      }
    }
    Tensor rdS = convert_type<Element>(acc_dp);
    if constexpr (Traits::kSplitD) {
      // Each warpgroup holds the P^T, dS^T of half the queries; dK, dV need all of them.
      Tensor tPsP = thr_copy_dS.partition_D(make_tensor(
          make_smem_ptr(smem_ds + ds_buffer(i) + Traits::kSmemdS), typename Traits::SmemLayoutdSt{}));
      copy(copy_dS, thr_copy_dS.retile_S(rP), tPsP);
      copy(copy_dS, thr_copy_dS.retile_S(rdS), tdSsdS);
      fence_async_proxy();
      sync_consumers();  // P and dS of both warpgroups are in buffer i % 2
      gmma_issue<false>(mma_dv, at_elems(tdVrPt, ds_buffer(i)), at_buffer_do(tdVrdO, i), acc_dv);
      gmma_issue<false>(mma_dkv, at_elems(tdKrdSt, ds_buffer(i)), at_buffer(tdKrQ, i), acc_dk);
      gmma_issue<true>(mma_dq, at_elems(tdQrdS, ds_buffer(i)), tdQrK, acc_dq);
      warpgroup_wait<0>();
      gmma_done(acc_dv);
      gmma_done(acc_dk);
      if constexpr (Traits::kSdPAhead) {
        gmma_done(acc_dq);
        prev_m0 = m0;
      } else {
        stage_dq(acc_dq, i, m0);
      }
    } else {
      copy(copy_dS, thr_copy_dS.retile_S(rdS), tdSsdS);
      fence_async_proxy();
      sync_consumers();  // dS of both warpgroups is in buffer i % 2
      Tensor tdKrdS = make_tensor(rdS.data(), gmma_acc_as_a_layout(rdS.layout()));
      auto issue_dk = [&]() __attribute__((always_inline)) {
        gmma_issue<false>(mma_dkv, tdKrdS, at_buffer(tdKrQ, i), acc_dk);
      };
      if (dq_here) {
        // dQ before dK, so that dq is staged while dK's product runs. dQ's products are issued
        // and waited for inside this branch (waited for after it, ptxas serialized every wgmma
        // of the kernel: C7515).
        gmma_issue<true>(mma_dq, at_elems(tdQrdS, ds_buffer(i)), tdQrK, acc_dq);
        issue_dk();
        warpgroup_wait<1>();  // dV and dQ are done
        stage_dq(acc_dq, i, m0);
      } else {
        issue_dk();
      }
      // dK and dV have read Q and dO; lse and D were read before.
      warpgroup_wait<0>();
      gmma_done(acc_dv);
      gmma_done(acc_dk);
      warpgroup_fence_operand(rP);  // dV's and dK's A operands, read from registers
      warpgroup_fence_operand(rdS);
    }
    Barrier::arrive(bars.q_empty(i % 2));
  };

  if constexpr (Traits::kSdPAhead) {
    Tensor acc_dq = partition_fragment_C(mma_dq, Shape<Int<kBlockM>, Int<kHeadDim>>{});
    steps.for_each_step(all_masked, seq.seqlen_q,
                        [&](int i_block, int h, int m, int, int, auto is_masked)
                            __attribute__((always_inline)) {
                              step(i_block, h, m, is_masked, acc_dq);
                            });
    if (steps.num_steps > 0) stage_dq(acc_dq, g + steps.num_steps - 1, prev_m0);
  } else {
    // A step's own acc_dq: declared outside the walk, its registers would stay live across
    // steps (gmma_issue's operand fences read it).
    steps.for_each_step(all_masked, seq.seqlen_q,
                        [&](int i_block, int h, int m, int, int, auto is_masked)
                            __attribute__((always_inline)) {
                              Tensor acc_dq = partition_fragment_C(
                                  mma_dq, Shape<Int<kBlockM>, Int<kHeadDim>>{});
                              step(i_block, h, m, is_masked, acc_dq);
                            });
  }
  g += steps.num_steps;

  // dK = scale * dS^T Q.
  store_dk_dv<Traits, typename Traits::BaseV>(params, seq, bidb, kv_head, n0, keys, mma_dkv,
                                              mma_dv, acc_dk, acc_dv, 1.f, smem_k, smem_v, tidx,
                                              sync_consumers);
}

// Grid: BwdTile's, as bwd_kernel.
template <typename Traits, bool kCausal>
__global__ void __launch_bounds__(Traits::kNThreads, 1)
    bwd_sm90_kernel(__grid_constant__ const BwdParams params,
                    __grid_constant__ const Sm90BwdTma<Traits> tma) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  extern __shared__ __align__(1024) char smem[];
  const BwdTile tile(params, Traits::kBlockN);
  const SeqLen seq(params, tile.bidb);
  const Sm90BwdBarriers bars{reinterpret_cast<uint64_t*>(smem + Traits::kSmemBarriers)};
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      Barrier::init(bars.q_full(s), 32);                       // the producer's lanes
      // The consumers (kDqInQ: once they have staged dq there) and, kDqInQ, the writer.
      Barrier::init(bars.q_empty(s), Traits::kNConsumers + (Traits::kDqInQ ? 1 : 0));
    }
    for (int s = 0; s < Traits::kDqStages; ++s) Barrier::init(bars.dq_empty(s), 1);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  const int warp = threadIdx.x / 32;
  if (warp < 4) {
    cutlass::arch::warpgroup_reg_dealloc<24>();
    if (warp == 0) bwd_sm90_producer<Traits, kCausal>(params, tma, tile, seq, smem, bars);
    if (warp == 1) bwd_sm90_dq_writer<Traits, kCausal>(params, tma, tile, seq, smem, bars);
    return;
  }
  cutlass::arch::warpgroup_reg_alloc<240>();
  const int tidx = threadIdx.x - 128;
  int g = 0;
  for (int n_block = tile.n_block; tile.has(n_block, Traits::kBlockN, seq.seqlen_k);
       n_block = tile.next(n_block, Traits::kBlockN, seq.seqlen_k)) {
    // Issued before the key block's step bounds and setup, which the compiler places between
    // this thread's wait and the barrier: they run while the other threads' rows land (D = 128
    // causal +1-2%, benchmarks/NOTES.md).
    bwd_sm90_load_kv<Traits>(params, seq, tile.bidb, tile.kv_head, n_block, smem, tidx);
    cp_async_wait<0>();
    fence_async_proxy();
    bwd_sm90_sync_consumers<Traits>();  // K and V have landed
    bwd_sm90_key_block<Traits, kCausal>(params, seq, tile.bidb, tile.kv_head, n_block, smem, bars,
                                        tidx, g);
    // The next key block's K and V go where this one's dK and dV were staged.
    bwd_sm90_sync_consumers<Traits>();
  }
#endif
}

}  // namespace flash
