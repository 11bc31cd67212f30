#!/usr/bin/env bash
# Compile-only check of CUDA translation units with the local nvcc and setup.py's flags, include
# dirs and macros (setup.nvcc_check_args), one TU at a time, with its compile time. Finds compile
# errors without torch, a GPU or a full build.
#   scripts/nvcc_check.sh [file.cu ...]   default: csrc/flash/instantiations/fwd_hdim64_bf16_causal.cu
# Environment: FLASH_EXT_CUDA_ARCHS (default "80;90"; 90 builds sm_90a), FLASH_EXT_HDIMS and
# FLASH_EXT_DTYPES as in setup.py; NVCC (default: nvcc on PATH, else $CUDA_HOME/bin/nvcc);
# NVCC_CHECK_VERBOSE=1 prints ptxas' registers and spills per kernel (--resource-usage).
# With cuobjdump on PATH (the GPU machine's toolkit; here the nvidia-cuda-cuobjdump wheel), each
# sm_90a kernel that resizes its warps' registers (setmaxnreg) is checked for subroutine CALLs
# (a 64-bit division, a function not inlined): under setmaxnreg they gave wrong results and
# illegal addresses (benchmarks/NOTES.md, 2026-11-28); such a kernel fails the check.
set -euo pipefail
cd "$(dirname "$0")/.."

nvcc="${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}"
[ -x "$nvcc" ] || { echo "nvcc_check: no nvcc at $nvcc; set NVCC or CUDA_HOME" >&2; exit 2; }
export FLASH_EXT_CUDA_ARCHS="${FLASH_EXT_CUDA_ARCHS:-80;90}"
mapfile -t args < <(python3 -c 'import setup; print("\n".join(setup.nvcc_check_args()))')
[ ${#args[@]} -gt 0 ] || { echo "nvcc_check: setup.nvcc_check_args() failed" >&2; exit 2; }
verbose="${NVCC_CHECK_VERBOSE:-0}"
[ "$verbose" = 1 ] && args+=(--resource-usage)
demangle() { if command -v c++filt >/dev/null; then c++filt; else cat; fi; }

files=("$@")
[ ${#files[@]} -gt 0 ] || files=(csrc/flash/instantiations/fwd_hdim64_bf16_causal.cu)
echo "nvcc_check: $("$nvcc" --version | tail -1), archs $FLASH_EXT_CUDA_ARCHS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for file in "${files[@]}"; do
  start=$EPOCHREALTIME
  if "$nvcc" "${args[@]}" -c "$file" -o "$tmp/tu.o" >"$tmp/log" 2>&1; then status=ok; else
    status=FAILED; failed=1; fi
  calls=""
  if [ "$status" = ok ] && command -v cuobjdump >/dev/null; then
    calls=$(cuobjdump -sass "$tmp/tu.o" 2>/dev/null | awk '
      /Function : / { if (name != "" && maxreg && call) print name; name = $3; maxreg = call = 0 }
      /USETMAXREG/ { maxreg = 1 }
      /[[:space:]]CALL[.[:space:]]/ { call = 1 }
      END { if (name != "" && maxreg && call) print name }' | demangle | cut -c1-200)
    [ -z "$calls" ] || { status="FAILED: subroutine CALL under setmaxnreg in"; failed=1; }
  fi
  printf '%-60s %6.1f s  %s\n' "$file" "$(awk "BEGIN { print $EPOCHREALTIME - $start }")" "$status"
  if [ -n "$calls" ]; then
    echo "$calls"
  elif [ "$status" = FAILED ]; then
    cat "$tmp/log"
  elif [ "$verbose" = 1 ]; then
    # ptxas: "Compiling entry function '<kernel>' for 'sm_XX'", then its registers and spills.
    grep -E "Compiling entry function|registers|spill" "$tmp/log" | demangle | cut -c1-300 || true
  fi
done
exit $failed
