#!/usr/bin/env bash
# A/B timing of the working tree against earlier commits in one GPU call: every tree built on
# the same machine, the benchmark run with each build in turn (REV1, REV2, ..., new, REV1, ...),
# so that a change is measured against its baseline side by side, not against a table from
# another machine (H100s differ by several percent from one to the next, and drift within a
# call).
#   scripts/ab_bench.sh prepare REV [REV ...]
#       here: writes ab_trees.tar.gz, each REV's tree without third_party in a folder named after
#       the REV (git-ignored: pass it to the device tool's `carry`). The first REV is the
#       baseline; more REVs are variants measured in the same runs (one experiment each, where
#       the working tree holds them together).
#   scripts/ab_bench.sh build
#       on the GPU machine: builds each REV's tree (in /tmp/ab/<name>) and the working tree in
#       place, side by side, with setup.py's knobs (FLASH_EXT_HDIMS, FLASH_EXT_DTYPES,
#       FLASH_EXT_CUDA_BACKENDS, FLASH_EXT_CUDA_ARCHS; MAX_JOBS each, default 16 over the
#       number of trees).
#   scripts/ab_bench.sh bench BENCH [ARGS...]
#       runs `python3 BENCH ARGS` with each build AB_RUNS times (default 2), alternating; an
#       argument `{out}` becomes the run's own folder, ${OUT:-gpu_out}/ab/<name><i>/ (the
#       working tree's name is "new"), where its log goes too. The markdown tables of each run's
#       output are printed as it ends and appended to ${OUT:-gpu_out}/ab/summary.md (one file
#       for all runs: the device tool brings back few files). Tests or other work can run on
#       the builds between `build` and `bench`.
#   scripts/ab_bench.sh run BENCH [ARGS...]
#       build, then bench.
# Example: scripts/ab_bench.sh run benchmarks/bench_attention.py --direction fwd --shapes '^D=64' --out {out}
set -uo pipefail
cd "$(dirname "$0")/.."
archive=ab_trees.tar.gz
out="$(realpath -m "${OUT:-gpu_out}")/ab"  # absolute: the builds run in their own folders
trees=/tmp/ab

# The prepared trees' names, in the order given to prepare.
names() { cat "$trees/ORDER"; }

case "${1:-}" in
  prepare)
    shift
    [ $# -gt 0 ] || { echo "usage: scripts/ab_bench.sh prepare REV [REV ...]" >&2; exit 2; }
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    for rev in "$@"; do
      name=$(echo "$rev" | tr -c 'A-Za-z0-9._\n-' '-')
      [ "$name" != new ] || { echo "ab_bench: 'new' names the working tree" >&2; exit 2; }
      [ ! -e "$stage/$name" ] || { echo "ab_bench: $rev given twice" >&2; exit 2; }
      mkdir "$stage/$name"
      git archive --format=tar "$rev" -- . ':(exclude)third_party' | tar -x -C "$stage/$name" ||
        exit 1
      echo "$name" >>"$stage/ORDER"
      echo "ab_bench: $name = $(git rev-parse --short "$rev")"
    done
    tar -czf "$archive" -C "$stage" . || exit 1
    echo "ab_bench: $archive holds $# trees; carry it to the GPU machine"
    ;;
  build)
    [ -f "$archive" ] || { echo "ab_bench: no $archive; run 'scripts/ab_bench.sh prepare REV' first" >&2; exit 2; }
    mkdir -p "$out"
    rm -rf "$trees" && mkdir -p "$trees" && tar -xzf "$archive" -C "$trees" || exit 1
    count=$(( $(names | wc -l) + 1 ))
    export MAX_JOBS="${MAX_JOBS:-$(( 16 / count > 2 ? 16 / count : 2 ))}"
    start=$(date +%s)
    pids=()
    for name in $(names); do
      ln -s "$PWD/third_party" "$trees/$name/third_party"
      (cd "$trees/$name" && python3 setup.py build_ext --inplace >"$out/build_$name.log" 2>&1) &
      pids+=($!)
    done
    python3 setup.py build_ext --inplace >"$out/build_new.log" 2>&1
    status=$?
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    echo "ab_bench: $count builds rc=$status in $(( $(date +%s) - start )) s (MAX_JOBS=$MAX_JOBS each)"
    if [ $status -ne 0 ]; then
      for name in $(names) new; do tail -n 20 "$out/build_$name.log"; done
      exit 1
    fi
    ;;
  bench)
    shift
    [ $# -gt 0 ] || { echo "usage: scripts/ab_bench.sh bench BENCH [ARGS...]" >&2; exit 2; }
    [ -f "$trees/ORDER" ] || { echo "ab_bench: no trees in $trees; run 'scripts/ab_bench.sh build' first" >&2; exit 2; }
    export PYTHONUNBUFFERED=1
    status=0
    script_dir=$(cd "$(dirname "$1")" && pwd)
    for i in $(seq 1 "${AB_RUNS:-2}"); do
      for name in $(names) new; do
        dir="$out/$name$i"
        root="$PWD"
        [ $name = new ] || root="$trees/$name"
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
        { echo "== $name, run $i (flash_ext from $where): $*"; grep "^|" "$dir/bench.log"; } |
          tee -a "$out/summary.md"
      done
    done
    exit $status
    ;;
  run)
    shift
    bash "$0" build && bash "$0" bench "$@"
    ;;
  *)
    echo "usage: scripts/ab_bench.sh prepare REV [REV ...] | build | bench BENCH [ARGS...] | run BENCH [ARGS...]" >&2
    exit 2
    ;;
esac
