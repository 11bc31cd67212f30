// Counter-based dropout for the CPU kernels: element (b, h, i, j) is kept when a hash of
// (seed, its linear index) clears the threshold, so the backward (and the test-only mask op)
// regenerate the forward's mask exactly, in any order, on any thread.
#pragma once

#include <cstdint>

namespace flash_ext::cpu {

// splitmix64 finalizer: a bijective mix with full avalanche, enough for a Bernoulli draw.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Keep when the top 32 bits, as a uniform draw in [0, 2^32), are >= p * 2^32.
inline uint32_t dropout_threshold(float p) {
  double t = static_cast<double>(p) * 4294967296.0;
  return t >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<uint32_t>(t);
}

// Linear index of (b, h, i, j) in a (batch, heads_q, seqlen_q, seqlen_k) grid; varlen calls use
// the max seqlens, i and j counting from the start of each sequence.
inline bool dropout_keep(uint64_t seed, uint32_t threshold, int64_t b, int64_t h, int64_t i,
                         int64_t j, int64_t heads, int64_t seqlen_q, int64_t seqlen_k) {
  uint64_t index = ((static_cast<uint64_t>(b) * heads + h) * seqlen_q + i) * seqlen_k + j;
  return static_cast<uint32_t>(mix64(seed ^ mix64(index)) >> 32) >= threshold;
}

}  // namespace flash_ext::cpu
