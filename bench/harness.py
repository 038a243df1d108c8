"""What every benchmark shares: timed child processes, interleaved pairs (A B A B ...), and one report format.

A shared machine makes absolute times drift by 2x within minutes. Each figure is therefore measured next to
its baseline in alternating runs, and the ratio is taken pair by pair: min/median/max of the ratios say how
far the comparison itself moved, which the spread of absolute times cannot.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
MXJOB = [sys.executable, "-m", "mxjob_gitops"]
# A child's own rusage starts from its parent's high-water mark (Linux carries it over fork and exec), so the
# peak RSS of a process started from this (large) one comes from GNU time, which forks it from a small process.
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


@dataclass(frozen=True, slots=True)
class Sample:
    seconds: float  # wall time: what the user waits for
    cpu_seconds: float  # user + system time of the process and its children: far less moved by other load
    peak_rss_mib: float


def run(
    args: Sequence[str],
    stdout: IO[Any] | int | None = subprocess.DEVNULL,
    stdin: IO[Any] | None = None,
    ok: Sequence[int] = (0,),
    env: dict[str, str] | None = None,
    cwd: Path = REPO,
) -> Sample:
    """Wall time, CPU time and peak RSS of one child process, start to exit (GNU time's %M when installed)."""
    with tempfile.NamedTemporaryFile(prefix="mxjob-bench-rss-") as rss:
        prefix = [GNU_TIME, "-f", "%M", "-o", rss.name] if GNU_TIME else []
        sample = _run([*prefix, *args], stdout, stdin, ok, env, cwd)
        text = Path(rss.name).read_text().strip().splitlines() if GNU_TIME else []
    if text and text[-1].isdigit():
        return Sample(sample.seconds, sample.cpu_seconds, int(text[-1]) / 1024)
    return sample


def _run(
    args: Sequence[str],
    stdout: IO[Any] | int | None,
    stdin: IO[Any] | None,
    ok: Sequence[int],
    env: dict[str, str] | None,
    cwd: Path,
) -> Sample:
    start = time.perf_counter()
    process = subprocess.Popen(
        list(args),
        cwd=cwd,
        stdout=stdout,
        stdin=stdin,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        error = process.stderr.read().decode(errors="replace") if process.stderr else ""
        raise SystemExit(f"{' '.join(args)} exited {code}: {error[-2000:]}")
    if process.stderr:
        process.stderr.close()
    return Sample(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def run_into(
    args: Sequence[str], target: Path, stdin: Path | None = None, ok: Sequence[int] = (0,), cwd: Path = REPO
) -> Sample:
    """A child process whose stdout is a fresh file (what CI and Argo CD write into), optionally fed a file."""
    with target.open("wb") as out, stdin.open("rb") if stdin else open(os.devnull, "rb") as feed:
        return run(args, stdout=out, stdin=feed, ok=ok, cwd=cwd)


@dataclass(slots=True)
class Series:
    name: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def seconds(self) -> list[float]:
        return [s.seconds for s in self.samples]

    @property
    def cpu_seconds(self) -> list[float]:
        return [s.cpu_seconds for s in self.samples]

    @property
    def peak_rss_mib(self) -> float:
        return max(s.peak_rss_mib for s in self.samples)


def interleave(
    pairs: int,
    measured: Callable[[], Sample],
    *baselines: Callable[[], Sample],
    prepare: Callable[[], None] | None = None,
) -> list[Series]:
    """Run measured, baseline 1, baseline 2, ... in turn, `pairs` times; `prepare` runs untimed before each."""
    series = [Series(str(i)) for i in range(1 + len(baselines))]
    for _ in range(pairs):
        for one, action in zip(series, (measured, *baselines), strict=True):
            if prepare is not None:
                prepare()
            one.samples.append(action())
    return series


def spread(values: Sequence[float], scale: float = 1.0, digits: int = 2) -> str:
    low, mid, high = min(values) * scale, statistics.median(values) * scale, max(values) * scale
    return f"{mid:.{digits}f} [{low:.{digits}f}..{high:.{digits}f}]"


def ratios(measured: Series, baseline: Series, cpu: bool = False) -> list[float]:
    pairs = (
        zip(measured.cpu_seconds, baseline.cpu_seconds, strict=True)
        if cpu
        else zip(measured.seconds, baseline.seconds, strict=True)
    )
    return [m / max(b, 1e-3) for m, b in pairs]


def print_comparison(
    title: str,
    names: Sequence[str],
    series: Sequence[Series],
    target: tuple[int, float] | None = None,
    rss: bool = True,
    pairs: Sequence[tuple[int, int]] | None = None,
) -> dict[str, float]:
    """One block: each series' median [min..max] seconds and peak RSS, then pair-wise ratios.

    `pairs` lists (measured index, baseline index); by default the first series against each of the others.
    `target` is (baseline index, highest acceptable median ratio of the first series to it). Returns the median
    ratios by "measured / baseline" name."""
    print(
        f"\n{title}  ({len(series[0].samples)} interleaved rounds; wall seconds as median [min..max], "
        "then the median CPU seconds)"
    )
    for name, one in zip(names, series, strict=True):
        memory = f"   peak RSS {one.peak_rss_mib:6.0f} MiB" if rss else ""
        cpu = statistics.median(one.cpu_seconds)
        print(f"  {name:<46} {spread(one.seconds, digits=3):>26} s   cpu {cpu:7.3f} s{memory}")
    found = {}
    for measured, baseline in pairs or [(0, index) for index in range(1, len(series))]:
        values = ratios(series[measured], series[baseline])
        label = f"{names[measured]} / {names[baseline]}"
        found[label] = statistics.median(values)
        goal = ""
        if target is not None and (measured, baseline) == (0, target[0]):
            goal = f"   target <= {target[1]:g}: {verdict(found[label], target[1])}"
        cpu = statistics.median(ratios(series[measured], series[baseline], cpu=True))
        print(f"  ratio {label}: {spread(values)}   cpu ratio {cpu:.2f}{goal}")
    return found


def verdict(value: float, limit: float) -> str:
    return "met" if value <= limit else f"MISSED by {value / limit:.2f}x"


def jobs_and_rounds(description: str) -> tuple[int, int]:
    """The command line of a 1,000-job benchmark: (1,000 jobs, 5 rounds), or with --quick (20 jobs, 2 rounds)."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 jobs, two rounds (a smoke test)")
    return (20, 2) if parser.parse_args().quick else (1_000, 5)


def machine() -> str:
    """The line that opens every benchmark's output; first, the project's bytecode is made as an install makes it."""
    bytecode_as_installed()
    load = os.getloadavg()[0]
    return f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load:.1f} at start"


def bytecode_as_installed() -> None:
    """Compile the project's modules to bytecode, as pip does when it installs the wheel. An editable install
    writes it on first import, unless PYTHONDONTWRITEBYTECODE is set (as on some CI images): then every
    measured process would compile about eighty modules from source, 0.15 s that no installed user pays."""
    import compileall

    for folder in ("compiler", "reconciler", "mxjob_gitops"):
        compileall.compile_dir(REPO / folder, quiet=1, workers=1)


def metric_lines(port: int) -> list[str]:
    """A running reconciler's /metrics (its --metrics-port), line by line."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text: str = response.read().decode()
    return text.splitlines()


def metric(port: int, name: str) -> float:
    """One sample of a running reconciler's metric `name` (the first series), 0 when it has none yet."""
    for line in metric_lines(port):
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.split()[-1])
    return 0.0


def process_mib(pid: int, field: str = "VmHWM") -> float:
    """A field of /proc/PID/status in MiB: VmHWM, the peak resident set (VmRSS: the current one)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")
