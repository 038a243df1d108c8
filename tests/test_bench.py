"""The benchmarks run (in their --quick smoke-test form) and print every figure with its baseline and ratio."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

SERIES = re.compile(
    r"^  (?P<name>.+?)\s+(?P<median>\d+\.\d+) \[(?P<low>\d+\.\d+)\.\.(?P<high>\d+\.\d+)\] s"
    r"   cpu\s+(?P<cpu>\d+\.\d+) s   peak RSS\s+(?P<rss>\d+) MiB$"
)
RATIO = re.compile(
    r"^  ratio (?P<name>.+): (?P<median>\d+\.\d+) \[(?P<low>\d+\.\d+)\.\.(?P<high>\d+\.\d+)\]"
    r"   cpu ratio \d+\.\d+"
)


@pytest.mark.parametrize(
    ("script", "blocks"),
    [("render_bench.py", 4), ("validate_bench.py", 1), ("outdir_bench.py", 1), ("diff_bench.py", 1)],
)
def test_benchmark_prints_figures_baselines_and_ratios(script: str, blocks: int) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), "--quick"], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert sum("interleaved rounds" in line for line in lines) == blocks, result.stdout
    series = [m for m in map(SERIES.match, lines) if m]
    ratios = [m for m in map(RATIO.match, lines) if m]
    assert len(series) >= 3 * blocks and len(ratios) >= 2 * blocks, result.stdout
    for match in (*series, *ratios):
        assert float(match["low"]) <= float(match["median"]) <= float(match["high"]), match.group(0)
    assert all(int(m["rss"]) > 0 for m in series)
