#!/usr/bin/env bash
# The one command for the GPU machine: build, run `python -m flash_ext` and the tests, run a
# benchmark, and leave logs under ${OUT:-gpu_out}. Build knobs are setup.py's environment.
#   GPU_CHECK_TESTS   pytest selection (default: all of tests/)
#   GPU_CHECK_BENCH   benchmark command to run last (default: none)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu_out}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MAX_JOBS="${MAX_JOBS:-16}"
python3 - <<'PY' 2>&1 | tee "$out/machine.txt"
import platform, torch
print("torch", torch.__version__, "python", platform.python_version())
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("gpu", p.name, f"sm_{p.major}{p.minor}", p.multi_processor_count, "SMs")
PY

# Built in place, not by `pip install -e .`: pip's editable build compiles in a fresh temporary
# folder each time, so a second call on a still-warm machine rebuilt everything (312 s for
# flash + mem_eff at two head dims); build_ext keeps its objects in build/ and ninja redoes
# only what changed.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
python3 setup.py build_ext --inplace >"$out/build.log" 2>&1
rc=$?
echo "build: rc=$rc in $(( $(date +%s) - start )) s with MAX_JOBS=$MAX_JOBS (log: build.log)" | tee -a "$out/machine.txt"
[ $rc -eq 0 ] || { tail -40 "$out/build.log"; exit $rc; }

python3 -m flash_ext 2>&1 | tee "$out/main.log"
python3 -m pytest -q -p no:cacheprovider ${GPU_CHECK_TESTS:-tests} 2>&1 | tee "$out/tests.log" | tail -15
tests_rc=${PIPESTATUS[0]}
if [ -n "${GPU_CHECK_BENCH:-}" ]; then
  bash -c "$GPU_CHECK_BENCH" 2>&1 | tee "$out/bench.log"
fi
exit $tests_rc
