"""scripts/profile_kernels.py on the CPU: the parse of ncu's raw CSV, the tables, the ncu
command and the row selection (the profiling itself runs on the GPU machine)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("profile_kernels",
                                              ROOT / "scripts" / "profile_kernels.py")
profile = importlib.util.module_from_spec(spec)
sys.modules["profile_kernels"] = profile  # its dataclasses look their module up there
spec.loader.exec_module(profile)

# ncu --csv --page raw: ncu's log lines, a header of metric names, a units row, a row a launch.
CSV = """==PROF== Connected to process 1
"ID","Kernel Name","gpu__time_duration.sum","launch__grid_size","dram__bytes_read.sum",\
"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",\
"smsp__average_warp_latency_issue_stalled_barrier.ratio",\
"smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio",\
"smsp__average_warp_latency_issue_stalled_wait.ratio"
"","","nsecond","","Gbyte","%","","",""
"0","void flash::bwd_main<128>(flash::BwdParams)","1,537,504","256","4.30","39.5","0.68",\
"1.47","1.09"
"1","convert_dq(int)","72,000","528","0.13","0","0.10","0.05","n/a"
==PROF== Disconnected from process 1
"""


def test_parse_and_render():
    kernels = profile.parse_ncu_csv(CSV, "flash_ext")
    assert [k.name for k in kernels] == ["void flash::bwd_main<128>(flash::BwdParams)",
                                        "convert_dq(int)"]
    main = kernels[0]
    assert main.microseconds() == pytest.approx(1537.504)
    assert main.stalls() == [("long_scoreboard", 1.47), ("wait", 1.09), ("barrier", 0.68)]
    assert kernels[1].stalls() == [("barrier", 0.10), ("long_scoreboard", 0.05)]  # n/a skipped
    table = profile.render(kernels)
    row = next(line for line in table.splitlines() if "bwd_main" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    heads = ["provider", "kernel"] + [h for h, _ in profile.COLUMNS]
    got = dict(zip(heads, cells))
    assert got["kernel"] == "void flash::bwd_main<128>"
    assert got["us"] == "1537.5" and got["grid"] == "256" and got["DRAM read"] == "4.30 Gbyte"
    assert got["tensor %"] == "39.5"  # found by pattern
    assert got["regs"] == "-"  # not in this CSV
    assert "Kernel time a call: flash_ext 1609.5 us" in table
    assert "| flash_ext | void flash::bwd_main<128> | long_scoreboard 1.47, wait 1.09, " \
           "barrier 0.68 |" in table


def test_busiest_matching_pipe_and_short_units():
    """The H100's ncu reports the tensor pipe as dmma, hmma and gmma metrics (the first sorted
    is dmma's 0 for a wgmma kernel), and may give times in "us"."""
    kernel = profile.Kernel("flash_ext", "k", {
        "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active": ("0", "%"),
        "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active": ("61.5", "%"),
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": ("n/a", "%"),
        "gpu__time_duration.sum": ("1,234.5", "us")})
    assert kernel.number(dict(profile.COLUMNS)["tensor %"]) == 61.5
    assert kernel.microseconds() == pytest.approx(1234.5)


def test_no_kernels():
    assert profile.parse_ncu_csv("==PROF== nothing profiled\n", "sdpa_cudnn") == []
    assert profile.render([]) == "no kernel was profiled\n"


def test_dry_run_and_row_selection(capsys):
    assert profile.main(["--dry-run", "--direction", "bwd", "--shapes", "^D=64 S=4096 full$",
                         "--providers", "flash_ext,sdpa_cudnn", "--ncu", "ncu"]) == 0
    commands = capsys.readouterr().out.splitlines()
    assert len(commands) == 2
    assert commands[0].startswith("ncu --profile-from-start off --clock-control none --csv")
    assert ("--child flash_ext --bench attention --direction bwd --shapes ^D=64 S=4096 full$"
            in commands[0])
    assert "--child sdpa_cudnn" in commands[1]
    with pytest.raises(SystemExit, match="must pick one bwd row of bench_attention.py; it picks"):
        profile.main(["--dry-run", "--shapes", "^D=64"])
    with pytest.raises(SystemExit, match="--providers: unknown nope; accepted: flash_ext"):
        profile.main(["--dry-run", "--shapes", "^D=64 S=4096 full$", "--providers", "nope"])


def test_decode_rows(capsys):
    assert profile.main(["--dry-run", "--bench", "decode", "--shapes",
                         "^Sq=1 B=8 S=32768 Hq=32 Hkv=32", "--providers",
                         "flash_ext,flash_ext_paged16", "--ncu", "ncu"]) == 0
    commands = capsys.readouterr().out.splitlines()
    assert "--child flash_ext_paged16 --bench decode" in commands[1]
    with pytest.raises(SystemExit, match="must pick one bench_decode.py row; it picks: Sq=1"):
        profile.main(["--dry-run", "--bench", "decode", "--shapes", "^Sq=1 B=8 S=32768"])
