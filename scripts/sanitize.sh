#!/usr/bin/env bash
# compute-sanitizer over scripts/sanitize_cases.py, on the GPU machine after a build (for
# example as gpu_check.sh's GPU_CHECK_BENCH): memcheck (out-of-bounds and misaligned accesses),
# racecheck (shared-memory hazards), synccheck (barriers and warp syncs), initcheck (reads of
# device memory nothing wrote). Logs: ${OUT:-gpu_out}/sanitize_<tool>.log; one summary line per
# tool. Exit status: 0 when every tool ran and reported no error.
#   SANITIZE_TOOLS   the tools to run (default: memcheck racecheck synccheck initcheck)
#   SANITIZE_CASES   regex of case names (sanitize_cases.py --cases; default: all)
#   SANITIZE_TIMEOUT seconds per tool (default 300)
# initcheck reports reads of the Hopper forward's out (stored by TMA in dense calls at head
# dims <= 128) on scattered rows, though a run with FLASH_EXT_POISON_OUTPUTS=1 finds every byte
# written: it seems not to see all of a TMA store's writes (benchmarks/NOTES.md, 27th session).
# Read its reports on the flash forward cases by which kernel read which tensor.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu_out}"
mkdir -p "$out"
sanitizer="$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")"
[ -x "$sanitizer" ] || { echo "sanitize.sh: compute-sanitizer not found"; exit 2; }
# First a planted error: a read of device memory nothing wrote, which initcheck must report, or
# the tools are not seeing this process's kernels and their silence below would mean nothing.
timeout 120 "$sanitizer" --tool initcheck --error-exitcode 99 --print-limit 1 --show-backtrace no \
  python3 scripts/sanitize_cases.py --planted >"$out/sanitize_planted.log" 2>&1
if [ $? -ne 99 ]; then
  echo "sanitize.sh: initcheck did not report the planted uninitialized read (log: sanitize_planted.log)"
  exit 1
fi
echo "sanitize planted: initcheck reported the planted uninitialized read, as it should"
status=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  log="$out/sanitize_$tool.log"
  start=$(date +%s)
  timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" --error-exitcode 99 \
    --print-limit 50 python3 scripts/sanitize_cases.py --cases "${SANITIZE_CASES:-}" >"$log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
  echo "sanitize $tool: rc=$rc in $(( $(date +%s) - start )) s; $(grep -c '^case ' "$log") cases; ${summary:-no summary} (log: sanitize_$tool.log)"
  [ $rc -eq 0 ] || status=1
done
exit $status
