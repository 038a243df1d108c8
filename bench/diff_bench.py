"""Diff benchmark: the whole `mxjob diff` command next to `git diff --no-index` and `diff -u` of the rendered streams.

Usage: python bench/diff_bench.py [--quick] [--percent 1|10|50 ...]   (or `make bench`: all three)

Input: 1,000 jobs x 10 replicas, one spec file per job, with 1%, 10% and 50% of the jobs changed (a new worker
image: the MXJob and its 6 worker pods differ). Measured in turn, each a whole process, per case: `mxjob diff`
of the two spec trees, `mxjob diff --base REF --head REF` of the same trees committed in a Git repository,
`mxjob diff` of the two rendered streams, and the baselines `git diff --no-index` and GNU `diff -u` of the
rendered streams (what a pull-request bot without mxjob would run), and `mxjob validate` of the new side's specs
and of its rendered stream (the floors: a diff checks every job or object of the two sides at least once).
Targets at 1%: the spec-tree diff <= 3x `git diff --no-index`, the diff of the rendered streams <= 5x.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MXJOB, Sample, interleave, machine, print_comparison, run, run_into, verdict
from render_bench import make_job, write_input

DIFFERENT = (0, 1)  # every command here exits 1 when the sides differ
TARGET = 3.0
TARGET_RENDERED = 5.0


def write_tree(folder: Path, jobs: int, changed: int) -> None:
    """One file per job; the first `changed` of every `jobs // changed` jobs get a new worker image."""
    folder.mkdir(parents=True, exist_ok=True)
    step = jobs // changed if changed else jobs + 1
    for i in range(jobs):
        job = make_job(f"job-{i:04d}", servers=3, workers=6)
        if changed and i % step == 0 and i // step < changed:
            job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["image"] = "mxnet:1.9.1-gpu"
        write_input(folder / f"job-{i:04d}.yaml", [job])


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def bench_case(tmp: Path, jobs: int, percent: int, pairs: int) -> None:
    repo = tmp / f"repo-{percent}"
    old, new = tmp / f"old-{percent}", tmp / f"new-{percent}"
    write_tree(old, jobs, 0)
    write_tree(new, jobs, max(1, jobs * percent // 100))
    old_stream, new_stream, out = tmp / "old.yaml", tmp / "new.yaml", tmp / "diff.out"
    run_into([*MXJOB, "render", str(old)], old_stream)
    run_into([*MXJOB, "render", str(new)], new_stream)
    repo.mkdir()
    git(repo, "init", "-q")
    shutil.copytree(old, repo / "jobs")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "old")
    shutil.rmtree(repo / "jobs")
    shutil.copytree(new, repo / "jobs")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "new")

    def mxjob_diff(*args: str) -> Sample:
        return run_into([*MXJOB, "diff", "--color", "never", *args], out, ok=DIFFERENT)

    series = interleave(
        pairs,
        lambda: mxjob_diff(str(old), str(new)),
        lambda: run_into(
            ["git", "diff", "--no-index", "--no-color", str(old_stream), str(new_stream)], out, ok=DIFFERENT
        ),
        lambda: run_into(["diff", "-u", str(old_stream), str(new_stream)], out, ok=DIFFERENT),
        lambda: run_into(
            [*MXJOB, "diff", "--color", "never", "--base", "HEAD~1", "--head", "HEAD", "jobs"],
            out,
            ok=DIFFERENT,
            cwd=repo,
        ),
        lambda: mxjob_diff(str(old_stream), str(new_stream)),
        lambda: run([*MXJOB, "validate", "-q", str(new)]),
        lambda: run([*MXJOB, "validate", "-q", str(new_stream)]),
    )
    names = [
        "mxjob diff OLD_SPECS NEW_SPECS",
        "git diff --no-index rendered",
        "diff -u rendered",
        "mxjob diff --base/--head (Git refs)",
        "mxjob diff OLD_RENDERED NEW_RENDERED",
        "mxjob validate NEW_SPECS",
        "mxjob validate NEW_RENDERED",
    ]
    # The floors: a diff reports every error of either side, so it checks every job (or object) at least once,
    # which is what `validate` of one side does; their ratios to git diff bound what the diff can reach.
    found = print_comparison(
        f"diff {jobs:,} jobs x 10 replicas, {percent}% of the jobs changed "
        f"({old_stream.stat().st_size / 1e6:.1f} MB rendered per side)",
        names,
        series,
        target=(1, TARGET) if percent == 1 else None,
        pairs=[(0, 1), (0, 2), (3, 1), (4, 1), (0, 5), (5, 1), (4, 6), (6, 1)],
    )
    if percent == 1:
        ratio = found["mxjob diff OLD_RENDERED NEW_RENDERED / git diff --no-index rendered"]
        met = verdict(ratio, TARGET_RENDERED)
        print(f"  target: diff of the rendered streams <= {TARGET_RENDERED:g}x git diff: {met}")
    for path in (old_stream, new_stream, out):
        path.unlink()
    for folder in (repo, old, new):
        shutil.rmtree(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 jobs, 10% changed, two rounds (a smoke test)")
    parser.add_argument(
        "--percent",
        type=int,
        action="append",
        choices=(1, 10, 50),
        help="only this share of changed jobs (repeatable; default: 1, 10 and 50)",
    )
    arguments = parser.parse_args()
    quick = arguments.quick
    print(machine())
    with tempfile.TemporaryDirectory(prefix="mxjob-diff-bench-") as name:
        if quick:
            bench_case(Path(name), 20, 10, 2)
            return 0
        for percent in arguments.percent or (1, 10, 50):
            bench_case(Path(name), 1_000, percent, 5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
