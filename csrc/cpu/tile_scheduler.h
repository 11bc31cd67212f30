// Work distribution of the CPU kernels: at::parallel_for starts one task per thread and each
// task pulls items from a shared counter, so items listed costliest first (causal, varlen) end
// together. Each item is computed by one thread alone, so results do not depend on the schedule.
#pragma once

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

// torch's OpenMP builds inline at::parallel_for as an OpenMP region: without -fopenmp the
// kernels would silently run on one thread.
#if AT_PARALLEL_OPENMP && !defined(_OPENMP)
#error "csrc/cpu must be compiled (and linked) with -fopenmp: at::parallel_for is inline OpenMP"
#endif

namespace flash_ext::cpu {

// Calls run(state, item) for item in [0, num_items), where state = make_state() is built once
// per thread (its scratch buffers).
template <typename MakeState, typename Run>
void for_each_item(int64_t num_items, const MakeState& make_state, const Run& run) {
  if (num_items <= 0) {
    return;
  }
  std::atomic<int64_t> next{0};
  const int64_t tasks = std::min<int64_t>(at::get_num_threads(), num_items);
  at::parallel_for(0, tasks, 1, [&](int64_t, int64_t) {
    auto state = make_state();
    for (int64_t item = next.fetch_add(1); item < num_items; item = next.fetch_add(1)) {
      run(state, item);
    }
  });
}

}  // namespace flash_ext::cpu
