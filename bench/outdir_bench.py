"""`render -o DIR` benchmark: a fresh directory and an unchanged re-render, each next to rendering to stdout.

Usage: python bench/outdir_bench.py [--quick]   (or `make bench`)

Input: 1,000 jobs x 10 replicas (22,000 objects, so 22,001 files). Measured in turn, each a whole process:
`mxjob render -o DIR` into an empty directory (the directory removed, untimed, before each run), the same
into a directory that already holds this very rendering (what CI does on every commit that does not touch
the job), and `mxjob render > FILE`. Target: unchanged re-render <= 1.2x stdout.

An unchanged re-render is measured twice: with the stat record an earlier render of DIR left (cli.statcache:
no file is read; a developer's repeated render) and without it (the record removed, untimed, first: every
file is read and compared, as in a fresh CI checkout, whose files are all new to the record).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MXJOB, Sample, interleave, jobs_and_rounds, machine, print_comparison, run, run_into
from render_bench import many_jobs, write_input


def main() -> int:
    jobs, pairs = jobs_and_rounds(__doc__ or "")
    print(machine())
    with tempfile.TemporaryDirectory(prefix="mxjob-outdir-bench-") as name:
        tmp = Path(name)
        specs, fresh, kept, stream = tmp / "specs.yaml", tmp / "fresh", tmp / "kept", tmp / "stream.yaml"
        write_input(specs, many_jobs(jobs))
        os.environ["MXJOB_RENDER_CACHE"] = str(tmp / "render-cache")  # not the user's cache folder
        run([*MXJOB, "render", "-q", "-o", str(kept), str(specs)])
        run([*MXJOB, "render", "-q", "-o", str(kept), str(specs)])  # reads every file once and records it

        def into_fresh() -> Sample:
            shutil.rmtree(fresh, ignore_errors=True)
            return run([*MXJOB, "render", "-q", "-o", str(fresh), str(specs)])

        def unrecorded() -> Sample:
            shutil.rmtree(tmp / "render-cache", ignore_errors=True)
            return run([*MXJOB, "render", "-q", "-o", str(kept), str(specs)])

        series = interleave(
            pairs,
            lambda: run([*MXJOB, "render", "-q", "-o", str(kept), str(specs)]),
            lambda: run_into([*MXJOB, "render", str(specs)], stream),
            into_fresh,
            unrecorded,
        )
        files = sum(1 for _ in kept.iterdir())
        print_comparison(
            f"render -o DIR, {jobs:,} jobs x 10 replicas ({files:,} files)",
            ["render -o DIR, unchanged", "render > file (stdout)", "render -o DIR, fresh", "unchanged, no record"],
            series,
            target=(1, 1.2),
            pairs=[(0, 1), (3, 1), (2, 1), (0, 2)],
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
