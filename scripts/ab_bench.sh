#!/usr/bin/env bash
# A/B timing of the working tree against an earlier commit in one GPU call: both trees built on
# the same machine, the benchmark run with each build in turn (base, new, base, new, ...), so that
# a change is measured against its baseline side by side, not against a table from another
# machine (H100s differ by several percent from one to the next, and drift within a call).
#   scripts/ab_bench.sh prepare REV
#       here: writes ab_base.tar.gz, REV's tree without third_party (git-ignored: pass it to the
#       device tool's `carry`).
#   scripts/ab_bench.sh run BENCH [ARGS...]
#       on the GPU machine: builds REV's tree (in /tmp/ab_base) and the working tree in place,
#       side by side, with setup.py's knobs (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES,
#       FLASH_EXT_CUDA_ARCHS; MAX_JOBS each, default 8), then runs `python3 BENCH ARGS` with each
#       build AB_RUNS times (default 2), alternating; an argument `{out}` becomes the run's own
#       folder, ${OUT:-gpu_out}/ab/{base,new}<i>/, where its log goes too. The markdown tables
#       of each run's output are printed as it ends.
# Example: scripts/ab_bench.sh run benchmarks/bench_attention.py --direction fwd --shapes '^D=64' --out {out}
set -uo pipefail
cd "$(dirname "$0")/.."
archive=ab_base.tar.gz

case "${1:-}" in
  prepare)
    rev="${2:?usage: scripts/ab_bench.sh prepare REV}"
    git archive --format=tar.gz -o "$archive" "$rev" -- . ':(exclude)third_party' || exit 1
    echo "ab_bench: $archive holds $(git rev-parse --short "$rev"); carry it to the GPU machine"
    ;;
  run)
    shift
    [ $# -gt 0 ] || { echo "usage: scripts/ab_bench.sh run BENCH [ARGS...]" >&2; exit 2; }
    [ -f "$archive" ] || { echo "ab_bench: no $archive; run 'scripts/ab_bench.sh prepare REV' first" >&2; exit 2; }
    out="${OUT:-gpu_out}/ab"
    base=/tmp/ab_base
    rm -rf "$base" && mkdir -p "$base" "$out" && tar -xzf "$archive" -C "$base" || exit 1
    ln -s "$PWD/third_party" "$base/third_party"
    export MAX_JOBS="${MAX_JOBS:-8}" PYTHONUNBUFFERED=1
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
  *)
    echo "usage: scripts/ab_bench.sh prepare REV | run BENCH [ARGS...]" >&2
    exit 2
    ;;
esac
