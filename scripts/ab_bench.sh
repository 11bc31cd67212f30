#!/usr/bin/env bash
# A/B timing of the working tree against an earlier commit in one GPU call: both trees built on
# the same machine, the benchmark run with each build in turn (base, new, base, new, ...), so that
# a change is measured against its baseline side by side, not against a table from another
# machine (H100s differ by several percent from one to the next, and drift within a call).
#   scripts/ab_bench.sh prepare REV
#       here: writes ab_base.tar.gz, REV's tree without third_party (git-ignored: pass it to the
#       device tool's `carry`).
#   scripts/ab_bench.sh build
#       on the GPU machine: builds REV's tree (in /tmp/ab_base) and the working tree in place,
#       side by side, with setup.py's knobs (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES,
#       FLASH_EXT_CUDA_ARCHS; MAX_JOBS each, default 8).
#   scripts/ab_bench.sh bench BENCH [ARGS...]
#       runs `python3 BENCH ARGS` with each build AB_RUNS times (default 2), alternating; an
#       argument `{out}` becomes the run's own folder, ${OUT:-gpu_out}/ab/{base,new}<i>/, where
#       its log goes too. The markdown tables of each run's output are printed as it ends. Tests
#       or other work can run on the new build between `build` and `bench`.
#   scripts/ab_bench.sh run BENCH [ARGS...]
#       build, then bench.
# Example: scripts/ab_bench.sh run benchmarks/bench_attention.py --direction fwd --shapes '^D=64' --out {out}
set -uo pipefail
cd "$(dirname "$0")/.."
archive=ab_base.tar.gz
out="${OUT:-gpu_out}/ab"
base=/tmp/ab_base

case "${1:-}" in
  prepare)
    rev="${2:?usage: scripts/ab_bench.sh prepare REV}"
    git archive --format=tar.gz -o "$archive" "$rev" -- . ':(exclude)third_party' || exit 1
    echo "ab_bench: $archive holds $(git rev-parse --short "$rev"); carry it to the GPU machine"
    ;;
  build)
    [ -f "$archive" ] || { echo "ab_bench: no $archive; run 'scripts/ab_bench.sh prepare REV' first" >&2; exit 2; }
    mkdir -p "$out"
    rm -rf "$base" && mkdir -p "$base" && tar -xzf "$archive" -C "$base" || exit 1
    ln -s "$PWD/third_party" "$base/third_party"
    export MAX_JOBS="${MAX_JOBS:-8}"
    start=$(date +%s)
    (cd "$base" && python3 setup.py build_ext --inplace >"$out/build_base.log" 2>&1) &
    base_pid=$!
    python3 setup.py build_ext --inplace >"$out/build_new.log" 2>&1
    new_rc=$?
    wait "$base_pid"
    base_rc=$?
    echo "ab_bench: builds base rc=$base_rc, new rc=$new_rc in $(( $(date +%s) - start )) s (MAX_JOBS=$MAX_JOBS each)"
    if [ $base_rc -ne 0 ] || [ $new_rc -ne 0 ]; then
      tail -n 20 "$out/build_base.log" "$out/build_new.log"
      exit 1
    fi
    ;;
  bench)
    shift
    [ $# -gt 0 ] || { echo "usage: scripts/ab_bench.sh bench BENCH [ARGS...]" >&2; exit 2; }
    [ -d "$base" ] || { echo "ab_bench: no $base; run 'scripts/ab_bench.sh build' first" >&2; exit 2; }
    export PYTHONUNBUFFERED=1
    status=0
    script_dir=$(cd "$(dirname "$1")" && pwd)
    for i in $(seq 1 "${AB_RUNS:-2}"); do
      for build in base new; do
        dir="$out/$build$i"
        root="$PWD"
        [ $build = base ] && root="$base"
        mkdir -p "$dir"
        # From / so that the current folder does not shadow PYTHONPATH (an editable install's
        # finder comes after it).
        where=$(cd / && PYTHONPATH="$root" python3 -c "import flash_ext; print(flash_ext.__file__)")
        case "$where" in
          "$root"/*) ;;
          *) echo "ab_bench: flash_ext imports from $where, not from $root" >&2; exit 1 ;;
        esac
        args=("${@//\{out\}/$dir}")
        # -P: the script's own folder goes after the build's instead of first on sys.path (a
        # script in the repo root would import the working tree's flash_ext whatever
        # PYTHONPATH says), and its sibling imports still resolve.
        PYTHONPATH="$root:$script_dir" python3 -P "${args[@]}" >"$dir/bench.log" 2>&1 || status=1
        echo "== $build, run $i (flash_ext from $where)"
        grep "^|" "$dir/bench.log"
      done
    done
    exit $status
    ;;
  run)
    shift
    bash "$0" build && bash "$0" bench "$@"
    ;;
  *)
    echo "usage: scripts/ab_bench.sh prepare REV | build | bench BENCH [ARGS...] | run BENCH [ARGS...]" >&2
    exit 2
    ;;
esac
