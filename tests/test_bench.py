"""The benchmarks run (in their --quick smoke-test form) and print every figure with its baseline and ratio."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.realcomp import realcomp_bin

SERIES = re.compile(
    r"^  (?P<name>.+?)\s+(?P<median>\d+\.\d+) \[(?P<low>\d+\.\d+)\.\.(?P<high>\d+\.\d+)\] s"
    r"   cpu\s+(?P<cpu>\d+\.\d+) s   peak RSS\s+(?P<rss>\d+) MiB$"
)
RATIO = re.compile(
    r"^  ratio (?P<name>.+): (?P<median>\d+\.\d+) \[(?P<low>\d+\.\d+)\.\.(?P<high>\d+\.\d+)\]"
    r"   cpu ratio \d+\.\d+"
)


def _kubeconform_built() -> bool:
    """Whether validate_bench also compares with kubeconform (the real components are built; under CI they are)."""
    try:
        realcomp_bin("kubeconform")
    except pytest.skip.Exception:
        return False
    return True


@pytest.mark.parametrize(
    ("script", "blocks"),
    [
        ("render_bench.py", 4),
        ("validate_bench.py", 2 if _kubeconform_built() else 1),
        ("outdir_bench.py", 1),
        ("shards_bench.py", 2),
        ("diff_bench.py", 1),
        ("kustomize_diff_bench.py", 1),
        ("exact_bench.py", 4),
    ],
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


def test_reconcile_benchmark_prints_its_figures_and_the_fake_api_cpu_share() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "bench" / "reconcile_bench.py"), "--jobs", "20"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for figure in (
        r"initial sync \(every job Running\)\s+\d+\.\d+ s",
        r"events consumed\s+\d+ events/s",
        r"p99\s+\d+\.\d+ ms",
        r"peak RSS\s+\d+ MiB",
        r"recreate one pod of a 10,000-worker job\s+\d+\.\d+ ms",
        r"burst of \d+ exits -> status, p50 / p99 / max\s+\d+\.\d+ / \d+\.\d+ / \d+\.\d+ s "
        r".*409s \d+, \d+\.\d requests per job",
    ):
        assert re.search(figure, out), (figure, out)
    shares = re.findall(r"cpu: reconciler (\d+\.\d+) s, fake API (\d+\.\d+) s \((\d+)% of both\)", out)
    assert len(shares) == 4, out  # sync, events, single exits, a burst of exits
    assert all(float(reconciler) > 0 and 0 <= int(share) <= 100 for reconciler, _, share in shares), out
