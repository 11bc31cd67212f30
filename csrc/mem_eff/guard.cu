// guard.h's scan: a warp a row of q, k, v (and dO), each lane 16 bytes at a time, summing the
// squares of what it reads; a sum at or over 2^80 (or NaN) sets the flag. Rows start 16-byte
// aligned and hold whole 16-byte pieces (mem_eff.h's row_alignment).
#include <cstdint>

#include "guard.h"

namespace mem_eff {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

// (batch, heads, rows) rows of `cols` contiguous floats at the given element strides.
struct RowsView {
  const float* ptr = nullptr;
  int batch = 0, heads = 0, rows = 0, cols = 0;
  int64_t batch_stride = 0, head_stride = 0, row_stride = 0;

  __host__ __device__ int64_t count() const { return int64_t(batch) * heads * rows; }
};

struct Scan {
  RowsView views[4];
  int count = 0;
  int* flag = nullptr;
};

__global__ void __launch_bounds__(kThreads) scan_kernel(const __grid_constant__ Scan scan) {
  const int lane = threadIdx.x % 32;
  const int64_t warp = (int64_t(blockIdx.x) * kThreads + threadIdx.x) / 32;
  const int64_t warps = int64_t(gridDim.x) * kThreads / 32;
  float sum = 0.f;
  for (int t = 0; t < scan.count; ++t) {
    const RowsView& v = scan.views[t];
    for (int64_t r = warp; r < v.count(); r += warps) {
      const int64_t bh = r / v.rows;
      const float* row = v.ptr + (bh / v.heads) * v.batch_stride + (bh % v.heads) * v.head_stride +
                         (r % v.rows) * v.row_stride;
      for (int c = 4 * lane; c < v.cols; c += 128) {
        const float4 x = *reinterpret_cast<const float4*>(row + c);
        sum = fmaf(x.x, x.x, fmaf(x.y, x.y, fmaf(x.z, x.z, fmaf(x.w, x.w, sum))));
      }
    }
  }
  if (!(sum < 0x1p80f)) *scan.flag = 1;
}

// A q-like (rows: seqlen_q or total_q, q's heads) or k-like tensor of the call.
RowsView rows_view(const flash::FwdParams& p, const void* ptr, bool q_like, int cols,
                   int64_t batch_stride, int64_t head_stride, int64_t row_stride) {
  const bool varlen = p.cu_seqlens_q != nullptr;
  RowsView v;
  v.ptr = static_cast<const float*>(ptr);
  v.batch = varlen ? 1 : p.batch;
  v.heads = q_like ? p.heads_q : p.heads_kv;
  v.rows = varlen ? (q_like ? p.total_q : p.total_k) : (q_like ? p.seqlen_q : p.seqlen_k);
  v.cols = cols;
  v.batch_stride = varlen ? 0 : batch_stride;
  v.head_stride = head_stride;
  v.row_stride = row_stride;
  return v;
}

Scan qkv_scan(const flash::FwdParams& p, int* flag) {
  Scan scan;
  scan.views[0] = rows_view(p, p.q, true, p.head_dim, p.q_batch_stride, p.q_head_stride,
                            p.q_row_stride);
  scan.views[1] = rows_view(p, p.k, false, p.head_dim, p.k_batch_stride, p.k_head_stride,
                            p.k_row_stride);
  scan.views[2] = rows_view(p, p.v, false, p.head_dim_v, p.v_batch_stride, p.v_head_stride,
                            p.v_row_stride);
  scan.count = 3;
  scan.flag = flag;
  return scan;
}

cudaError_t launch_scan(const Scan& scan, cudaStream_t stream) {
  if (scan.flag == nullptr) return cudaSuccess;
  cudaError_t err = cudaMemsetAsync(scan.flag, 0, sizeof(int), stream);
  if (err != cudaSuccess) return err;
  int64_t rows = 0;
  for (int t = 0; t < scan.count; ++t) rows += scan.views[t].count();
  if (rows == 0) return cudaSuccess;
  const int64_t blocks = (rows + kThreads / 32 - 1) / (kThreads / 32);
  scan_kernel<<<static_cast<int>(blocks < kMaxBlocks ? blocks : kMaxBlocks), kThreads, 0, stream>>>(
      scan);
  return cudaGetLastError();
}

}  // namespace

cudaError_t scan_for_guard(const FwdParams& params, cudaStream_t stream) {
  return launch_scan(qkv_scan(params, params.guard_flag), stream);
}

cudaError_t scan_for_guard(const BwdParams& params, cudaStream_t stream) {
  Scan scan = qkv_scan(params, params.guard_flag);
  scan.views[scan.count++] = rows_view(params, params.dout, true, params.head_dim_v,
                                       params.do_batch_stride, params.do_head_stride,
                                       params.do_row_stride);
  return launch_scan(scan, stream);
}

}  // namespace mem_eff
