// Hopper (sm_90a) pieces shared by the wgmma kernels: accumulator layout views, the async-proxy
// fence, issuing a warpgroup GEMM, and whether the Hopper binary is the one that runs. The
// kernels compile to an empty body for other targets; has_sm90_binary keeps them from running.
#pragma once

#include <cuda_runtime.h>

#include <cute/tensor.hpp>

#include "params.h"

namespace flash {

using namespace cute;

// The shared memory one block may take on sm_90 (the opt-in maximum), in bytes.
constexpr int kSm90MaxSmem = 227 * 1024;

// The wgmma accumulator ((2, 2, N/8), MMA_M, MMA_N) as rows x cols ((2, MMA_M), (2, N/8 * MMA_N)):
// value (c, r, t) is column 8t + 2q + c, row lane/4 + 8r of the warp's 16 (q = lane % 4).
template <typename Layout>
__forceinline__ __device__ auto gmma_acc_rowcol_layout(Layout acc) {
  static_assert(decltype(rank<0>(acc))::value == 3);
  return make_layout(make_layout(get<0, 1>(acc), get<1>(acc)),
                     make_layout(get<0, 0>(acc), make_layout(get<0, 2>(acc), get<2>(acc))));
}

// An accumulator of one MMA along N as the register A operand of a GEMM whose K is that N:
// ((2, 2, N/8), MMA_M, 1) -> ((2, 2, 2), MMA_M, N/16).
template <typename Layout>
__forceinline__ __device__ auto gmma_acc_as_a_layout(Layout acc) {
  static_assert(decltype(size<2>(acc))::value == 1);
  auto cols = logical_divide(get<0, 2>(acc), Shape<_2>{});  // ((2, N/16))
  return make_layout(make_layout(get<0, 0>(acc), get<0, 1>(acc), get<0, 0>(cols)), get<1>(acc),
                     get<0, 1>(cols));
}

// Makes this thread's shared memory writes (stores, cp.async) visible to the tensor cores, which
// read shared memory through the async proxy; before the barrier that publishes them.
__forceinline__ __device__ void fence_async_proxy() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Stores two floats at `addr`, a shared memory address (an st.shared: a generic store through a
// pointer the compiler cannot place in shared memory costs more, and fences wait longer for it).
__forceinline__ __device__ void store_shared_f32x2(uint32_t addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(a), "f"(b) : "memory");
}

// Bulk reduction of `bytes` (a multiple of 16; both addresses 16-byte aligned) of fp32 from
// shared memory into global memory, gmem[i] += smem[i], performed by the TMA unit while the
// thread goes on; commit_group closes this thread's group of them, and wait_group.read<n> waits
// until at most n of its groups still read shared memory (wait_group<n>: still run at all).
__forceinline__ __device__ void bulk_reduce_add(float* gmem, const float* smem, int bytes) {
  const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n"
               ::"l"(gmem), "r"(src), "r"(bytes) : "memory");
}

__forceinline__ __device__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

template <int kPending>
__forceinline__ __device__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}

template <int kPending>
__forceinline__ __device__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Orders this thread's global memory accesses through the async proxy (TMA) with its ordinary
// ones, both ways.
__forceinline__ __device__ void fence_async_proxy_global() {
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

// A counter in global memory shared by the CTAs of a grid: read with acquire and add with
// release semantics at GPU scope.
__forceinline__ __device__ int load_acquire_gpu(const int* counter) {
  int value;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(value) : "l"(counter) : "memory");
  return value;
}
__forceinline__ __device__ void add_release_gpu(int* counter, int value) {
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;\n" ::"l"(counter), "r"(value) : "memory");
}

// Issues acc = A B (kZero) or acc += A B over every k-block as one wgmma batch of the
// warpgroup, without waiting: warpgroup_wait<n>() then gmma_done(acc) before reading acc.
template <bool kZero, typename TiledMma, typename TA, typename TB, typename Acc>
__forceinline__ __device__ void gmma_issue(TiledMma& tiled_mma, TA const& tA, TB const& tB,
                                           Acc& acc) {
  warpgroup_fence_operand(acc);
  warpgroup_arrive();
  if constexpr (kZero) tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
  CUTE_UNROLL
  for (int k = 0; k < size<2>(tA); ++k) {
    cute::gemm(tiled_mma, tA(_, _, k), tB(_, _, k), acc);
    tiled_mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
  warpgroup_fence_operand(acc);
}

template <typename Acc>
__forceinline__ __device__ void gmma_done(Acc& acc) {
  warpgroup_fence_operand(acc);
}

// (rows, head dim, heads, batch) of q (kv = false) or k/v (and of o, do like q) as the TMA
// tensors see them: varlen calls are one batch of packed rows, sequences found by their first row.
// value: v's and o's head dim (head_dim_v), else q's and k's.
__host__ __device__ inline auto sm90_qkv_shape(const FwdParams& p, bool kv, bool value = false) {
  const bool varlen = p.cu_seqlens_q != nullptr;
  const int rows = varlen ? (kv ? p.total_k : p.total_q) : (kv ? p.seqlen_k : p.seqlen_q);
  return make_shape(int32_t(rows), int32_t(value ? p.head_dim_v : p.head_dim),
                    int32_t(kv ? p.heads_kv : p.heads_q), int32_t(varlen ? 1 : p.batch));
}

// Such a tensor at ptr with these element strides (64-bit; the head dim contiguous).
template <typename Element>
auto sm90_qkv_tensor(const FwdParams& p, const void* ptr, bool kv, int64_t row, int64_t head,
                     int64_t batch, bool value = false) {
  return make_tensor(make_gmem_ptr(static_cast<const Element*>(ptr)), sm90_qkv_shape(p, kv, value),
                     make_stride(row, _1{}, head, p.cu_seqlens_q != nullptr ? int64_t(0) : batch));
}

// The TMA load of one (rows, head dim) tile of such a tensor into SmemLayout.
template <typename Element, typename SmemLayout>
using Sm90TmaLoad = decltype(make_tma_copy(
    SM90_TMA_LOAD{}, sm90_qkv_tensor<Element>(FwdParams{}, nullptr, false, 0, 0, 0), SmemLayout{},
    product_each(shape(SmemLayout{})), _1{}));

// The TMA store of one tile from SmemLayout into such a tensor (o).
template <typename Element, typename SmemLayout>
using Sm90TmaStore = decltype(make_tma_copy(
    SM90_TMA_STORE{}, sm90_qkv_tensor<Element>(FwdParams{}, nullptr, false, 0, 0, 0),
    SmemLayout{}, product_each(shape(SmemLayout{})), _1{}));

// What TMA asks of such a tensor: a 16-byte aligned base and strides in multiples of 16 bytes
// below 2^40 bytes (the batch stride as sm90_qkv_tensor takes it: none for varlen calls).
template <typename Element>
bool sm90_tma_fits(const FwdParams& p, const void* ptr, int64_t row, int64_t head,
                   int64_t batch) {
  auto ok = [](int64_t stride) {
    const int64_t bytes = stride * int64_t(sizeof(Element));
    return bytes % 16 == 0 && bytes >= 0 && bytes < (int64_t(1) << 40);
  };
  return reinterpret_cast<uintptr_t>(ptr) % 16 == 0 && ok(row) && ok(head) &&
         (p.cu_seqlens_q != nullptr || ok(batch));
}

// Whether the binary the driver picked for this device is sm_90's: the build has sm_90a and
// the device is a Hopper part. Elsewhere a Hopper kernel's body is empty and must not run.
template <typename Kernel>
bool has_sm90_binary(Kernel kernel) {
  cudaFuncAttributes attr;
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.binaryVersion == 90;
}

}  // namespace flash
