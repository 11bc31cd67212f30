// AMX (Advanced Matrix Extensions: Sapphire Rapids and later Xeons) for the CPU forward's two
// products on bfloat16 inputs: bf16 tiles multiplied with fp32 accumulation, where the fp32
// GEMM (gemm.h) converts every element first and runs at a quarter of the rate. K and V are
// packed once per call into the layout of the tile product's B operand (pairs of bf16 along
// the reduced dimension in one 32-bit word); a stripe of 16 query rows then takes
// S = Q K^T (A: the stripe's rows of Q, as they are) and O += P V (A: P rounded to bf16, as
// the GPU kernels do). The functions carry their own target attributes, so the build needs no
// AMX flags; available() checks the CPU and asks the kernel for the tile state once per process
// (FLASH_EXT_CPU_AMX=0 turns the path off, per call).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "gemm.h"  // round_up

#if defined(__x86_64__) && defined(__AVX512F__) && (defined(__clang__) || __GNUC__ >= 11)
#define FLASH_EXT_CPU_AMX 1
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace flash_ext::cpu::amx {

constexpr int64_t kRows = 16;       // rows of a tile: the query rows of a stripe
constexpr int64_t kDepth = 32;      // bf16 elements of an A tile row (64 bytes)
constexpr int64_t kCols = 16;       // fp32 columns of a C tile
constexpr int64_t kTile = 512;      // bf16 elements of a packed B tile (16 rows x 64 bytes)
constexpr int64_t kKeyAlign = 64;   // keys per scores pass (four C tiles)

// Whether this process runs the AMX path: the CPU has AMX-TILE, AMX-BF16 and AVX512-BF16 and
// the kernel granted the tile state; FLASH_EXT_CPU_AMX=0 says no.
inline bool available() {
#ifdef FLASH_EXT_CPU_AMX
  const char* wanted = std::getenv("FLASH_EXT_CPU_AMX");
  if (wanted != nullptr && std::strcmp(wanted, "0") == 0) return false;
  static const bool granted = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    const bool tiles = (d >> 24) & 1u, bf16 = (d >> 22) & 1u;
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d)) return false;
    const bool avx512_bf16 = (a >> 5) & 1u;
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return tiles && bf16 && avx512_bf16 &&
           syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return granted;
#else
  return false;
#endif
}

// Packed sizes in bf16 elements, for keys padded to kKeyAlign: K as [key / 16][d / 32] tiles
// (rows: pairs of head dims, columns: 16 keys), V as [key / 32][dv / 16] tiles (rows: pairs of
// keys, columns: 16 value dims); head dims padded with zeros to 32 (K) and 16 (V).
inline int64_t packed_k_elems(int64_t seqlen_k, int64_t d) {
  return round_up(seqlen_k, kKeyAlign) * round_up(d, kDepth);
}
inline int64_t packed_v_elems(int64_t seqlen_k, int64_t dv) {
  return round_up(seqlen_k, kKeyAlign) * round_up(dv, kCols);
}

// Keys [j0, j1) of one kv head (rows `row_stride` apart, bf16 bits, head dims contiguous) into
// the packed K and V; j0 is a multiple of kKeyAlign, and the task holding the last key
// (j1 == seqlen_k) zeroes the padding keys up to the next multiple of kKeyAlign.
inline void pack_keys(const uint16_t* k, int64_t k_row_stride, const uint16_t* v,
                      int64_t v_row_stride, int64_t d, int64_t dv, int64_t j0, int64_t j1,
                      int64_t seqlen_k, uint16_t* packed_k, uint16_t* packed_v) {
  const int64_t d_chunks = round_up(d, kDepth) / kDepth;
  const int64_t v_groups = round_up(dv, kCols) / kCols;
  const int64_t end = j1 == seqlen_k ? round_up(seqlen_k, kKeyAlign) : j1;
  for (int64_t n = j0; n < end; ++n) {
    const bool real = n < seqlen_k;
    const uint16_t* k_row = k + n * k_row_stride;
    // K: word w (head dims 2w, 2w + 1) of key n to tile (n / 16, w / 16), row w % 16, column
    // n % 16.
    uint16_t* k_group = packed_k + (n / kCols) * d_chunks * kTile + (n % kCols) * 2;
    for (int64_t e = 0; e < d_chunks * kDepth; e += 2) {
      uint16_t* dst = k_group + (e / kDepth) * kTile + (e % kDepth) / 2 * (2 * kCols);
      dst[0] = real && e < d ? k_row[e] : 0;
      dst[1] = real && e + 1 < d ? k_row[e + 1] : 0;
    }
    // V: value dim e of key n to tile (n / 32, e / 16), row (n % 32) / 2, column e % 16,
    // half n % 2.
    const uint16_t* v_row = v + n * v_row_stride;
    uint16_t* v_chunk = packed_v + (n / kDepth) * v_groups * kTile + (n % kDepth) / 2 * (2 * kCols) +
                        n % 2;
    for (int64_t e = 0; e < v_groups * kCols; ++e) {
      v_chunk[(e / kCols) * kTile + (e % kCols) * 2] = real && e < dv ? v_row[e] : 0;
    }
  }
}

#ifdef FLASH_EXT_CPU_AMX

// Tile registers: C 0-3 (16 x 16 fp32), A 4 (16 x 32 bf16), B 5 and 6 (packed tiles).
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {kRows, kRows, kRows, kRows, kRows, kRows, kRows};
};

// A constant in memory: GCC does not see _tile_loadconfig read the fields of a local (it kept
// the palette's store alone, and the first tile instruction faulted).
inline constexpr TileConfig kTileConfig{};

__attribute__((target("amx-tile"))) inline void configure() { _tile_loadconfig(&kTileConfig); }

__attribute__((target("amx-tile"))) inline void release() { _tile_release(); }

// C tile G += A tile 4 times the packed tile at B_PTR, loaded into B tile T (5 and 6 in turn,
// so that a load does not wait for the product before it). GCC's tile intrinsics take the tile
// numbers as literal tokens.
#define FLASH_EXT_AMX_STEP(G, T, B_PTR)  \
  do {                                   \
    if constexpr (kGroups > G) {         \
      _tile_loadd(T, (B_PTR), 64);       \
      _tile_dpbf16ps(G, 4, T);           \
    }                                    \
  } while (0)

// s[r][16 g + c] = sum over head dims of q[r] k[16 g + c] for kGroups groups of 16 keys: q 16
// rows of bf16 (ldq elements apart, d_chunks * 32 of them each, zero past the head dim),
// k_tiles the packed K from the first group's tiles on; s fp32, lds floats a row.
template <int kGroups>
__attribute__((target("amx-tile,amx-bf16"))) void scores(const uint16_t* q, int64_t ldq,
                                                          const uint16_t* k_tiles,
                                                          int64_t d_chunks, float* s,
                                                          int64_t lds) {
  static_assert(kGroups >= 1 && kGroups <= 4);
  _tile_zero(0);
  if constexpr (kGroups > 1) _tile_zero(1);
  if constexpr (kGroups > 2) _tile_zero(2);
  if constexpr (kGroups > 3) _tile_zero(3);
  for (int64_t c = 0; c < d_chunks; ++c) {
    _tile_loadd(4, q + c * kDepth, ldq * 2);
    FLASH_EXT_AMX_STEP(0, 5, k_tiles + (0 * d_chunks + c) * kTile);
    FLASH_EXT_AMX_STEP(1, 6, k_tiles + (1 * d_chunks + c) * kTile);
    FLASH_EXT_AMX_STEP(2, 5, k_tiles + (2 * d_chunks + c) * kTile);
    FLASH_EXT_AMX_STEP(3, 6, k_tiles + (3 * d_chunks + c) * kTile);
  }
  _tile_stored(0, s, lds * 4);
  if constexpr (kGroups > 1) _tile_stored(1, s + kCols, lds * 4);
  if constexpr (kGroups > 2) _tile_stored(2, s + 2 * kCols, lds * 4);
  if constexpr (kGroups > 3) _tile_stored(3, s + 3 * kCols, lds * 4);
}

// acc[r][16 g + c] += sum over keys of p[r][key] v[key][16 g + c] for kGroups groups of 16
// value dims: p 16 rows of bf16 (ldp elements apart, k_chunks * 32 keys, zero past the keys
// seen), v_tiles the packed V from the first key chunk's first group on (v_groups tiles a key
// chunk); acc fp32, ld_acc floats a row.
template <int kGroups>
__attribute__((target("amx-tile,amx-bf16"))) void values(const uint16_t* p, int64_t ldp,
                                                          const uint16_t* v_tiles,
                                                          int64_t v_groups, int64_t k_chunks,
                                                          float* acc, int64_t ld_acc) {
  static_assert(kGroups >= 1 && kGroups <= 4);
  _tile_loadd(0, acc, ld_acc * 4);
  if constexpr (kGroups > 1) _tile_loadd(1, acc + kCols, ld_acc * 4);
  if constexpr (kGroups > 2) _tile_loadd(2, acc + 2 * kCols, ld_acc * 4);
  if constexpr (kGroups > 3) _tile_loadd(3, acc + 3 * kCols, ld_acc * 4);
  for (int64_t c = 0; c < k_chunks; ++c) {
    _tile_loadd(4, p + c * kDepth, ldp * 2);
    const uint16_t* chunk = v_tiles + c * v_groups * kTile;
    FLASH_EXT_AMX_STEP(0, 5, chunk);
    FLASH_EXT_AMX_STEP(1, 6, chunk + kTile);
    FLASH_EXT_AMX_STEP(2, 5, chunk + 2 * kTile);
    FLASH_EXT_AMX_STEP(3, 6, chunk + 3 * kTile);
  }
  _tile_stored(0, acc, ld_acc * 4);
  if constexpr (kGroups > 1) _tile_stored(1, acc + kCols, ld_acc * 4);
  if constexpr (kGroups > 2) _tile_stored(2, acc + 2 * kCols, ld_acc * 4);
  if constexpr (kGroups > 3) _tile_stored(3, acc + 3 * kCols, ld_acc * 4);
}

#undef FLASH_EXT_AMX_STEP

// fn(std::integral_constant<int, n>{}) for n = min(4, groups) of 1..4.
template <typename Fn>
void with_groups(int64_t groups, Fn&& fn) {
  switch (std::min<int64_t>(groups, 4)) {
    case 4: return fn(std::integral_constant<int, 4>{});
    case 3: return fn(std::integral_constant<int, 3>{});
    case 2: return fn(std::integral_constant<int, 2>{});
    default: return fn(std::integral_constant<int, 1>{});
  }
}

// The `rows` rows of p (fp32, lds floats apart, `cols` of them) as bf16, rounded to nearest
// even, into dst (ldd elements a row), zero from cols to round_up(cols, 32) and in the rows
// from `rows` to 16.
__attribute__((target("avx512f,avx512bf16"))) inline void to_bf16(const float* p, int64_t lds,
                                                                 int64_t rows, int64_t cols,
                                                                 uint16_t* dst, int64_t ldd) {
  const int64_t padded = round_up(cols, kDepth);
  for (int64_t r = 0; r < kRows; ++r) {
    uint16_t* out = dst + r * ldd;
    if (r >= rows) {
      std::fill(out, out + padded, uint16_t{0});
      continue;
    }
    const float* in = p + r * lds;
    for (int64_t c = 0; c < padded; c += kDepth) {
      const __mmask16 lo_mask = _cvtu32_mask16(
          cols - c >= 16 ? 0xffffu : (cols > c ? (1u << (cols - c)) - 1 : 0u));
      const __mmask16 hi_mask = _cvtu32_mask16(
          cols - c >= 32 ? 0xffffu : (cols > c + 16 ? (1u << (cols - c - 16)) - 1 : 0u));
      const __m512 lo = _mm512_maskz_loadu_ps(lo_mask, in + c);
      const __m512 hi = _mm512_maskz_loadu_ps(hi_mask, in + c + 16);
      _mm512_storeu_si512(out + c, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
    }
  }
}

#endif  // FLASH_EXT_CPU_AMX

}  // namespace flash_ext::cpu::amx
