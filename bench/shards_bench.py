"""`render -o DIR --shard-size N` benchmark: the sharded render next to the unsharded one, then kustomize building
the shards next to kustomize building one unsharded directory.

Usage: python bench/shards_bench.py [--quick] [--shard-size N] [--rounds N]   (or `make bench`)

Input: 1,000 jobs x 10 replicas (22,000 objects). Measured in turn, each a whole process: `mxjob render -o DIR
--shard-size N` and `mxjob render -o DIR` into an empty directory (removed, untimed, before each run), then the
same two into a directory that already holds their rendering. Target: the sharded render <= 1.3x the unsharded
one (fresh and unchanged alike).

Then kustomize (what Argo CD's repo server and Flux's kustomize-controller run on each directory): every shard
built one after another, against one unsharded directory. kustomize's time grows faster than the directory (a
directory of 400 objects builds in 0.4 s, one of 5,054 in 44 s), so the whole unsharded directory of 22,001
files is not built here: directories of the first 25, 50, 100 and 250 jobs are (550 to 5,500 objects), which
shows the curve, beside the shards' total. The kustomize binary: $MXJOB_KUSTOMIZE, the one .ci/kustomize.sh
builds, PATH's `kustomize`, else `kubectl kustomize`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MXJOB, Sample, interleave, machine, print_comparison, run, run_into
from kustomize_diff_bench import kustomize
from render_bench import many_jobs, write_input

SAMPLE_JOBS = (25, 50, 100, 250)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 jobs, two rounds (a smoke test)")
    parser.add_argument("--shard-size", type=int, default=1_000, help="objects per shard (default 1,000)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    arguments = parser.parse_args()
    jobs, rounds = (20, 2) if arguments.quick else (1_000, arguments.rounds)
    size = arguments.shard_size if not arguments.quick else 50
    print(machine())
    with tempfile.TemporaryDirectory(prefix="mxjob-shards-bench-") as name:
        tmp = Path(name)
        specs = tmp / "specs.yaml"
        write_input(specs, many_jobs(jobs))
        os.environ["MXJOB_RENDER_CACHE"] = str(tmp / "render-cache")  # not the user's cache folder
        sharded, flat = [*MXJOB, "render", "-q", "--shard-size", str(size), "-o"], [*MXJOB, "render", "-q", "-o"]

        def fresh(command: list[str], out: Path) -> Sample:
            shutil.rmtree(out, ignore_errors=True)
            return run([*command, str(out), str(specs)])

        stream = [*MXJOB, "render", str(specs)]
        series = interleave(
            rounds,
            lambda: fresh(sharded, tmp / "sharded"),
            lambda: fresh(flat, tmp / "flat"),
            lambda: run_into(stream, tmp / "stream.yaml"),
        )
        shards = sorted(p for p in (tmp / "sharded").iterdir() if p.is_dir())
        print_comparison(
            f"render -o DIR, {jobs:,} jobs x 10 replicas, into an empty directory ({len(shards)} shards of at most "
            f"{size:,} objects)",
            ["render -o DIR --shard-size, fresh", "render -o DIR, fresh", "render > file (stdout)"],
            series,
            target=(1, 1.3),
        )
        series = interleave(
            rounds,
            lambda: run([*sharded, str(tmp / "sharded"), str(specs)]),
            lambda: run([*flat, str(tmp / "flat"), str(specs)]),
            lambda: run_into(stream, tmp / "stream.yaml"),
        )
        print_comparison(
            f"render -o DIR, {jobs:,} jobs x 10 replicas, unchanged re-render",
            ["render -o DIR --shard-size, unchanged", "render -o DIR, unchanged", "render > file (stdout)"],
            series,
            target=(1, 1.3),
        )
        _kustomize_builds(tmp, shards, jobs, rounds)
    return 0


def _kustomize_builds(tmp: Path, shards: list[Path], jobs: int, rounds: int) -> None:
    build = kustomize()
    objects = sum(len(list(shard.glob("*.yaml"))) - 1 for shard in shards)

    def all_shards() -> Sample:
        samples = [run([*build, str(shard)]) for shard in shards]
        return Sample(
            sum(s.seconds for s in samples), sum(s.cpu_seconds for s in samples), max(s.peak_rss_mib for s in samples)
        )

    samples: list[tuple[str, int, Sample]] = []
    for count in (c for c in SAMPLE_JOBS if c <= jobs):
        out = tmp / f"flat-{count}"
        specs = tmp / f"specs-{count}.yaml"
        write_input(specs, many_jobs(count))
        run([*MXJOB, "render", "-q", "-o", str(out), str(specs)])
        samples.append((f"one directory of {count} jobs", len(list(out.glob("*.yaml"))) - 1, run([*build, str(out)])))
    whole = interleave(max(1, rounds // 2), all_shards)[0]
    print(
        f"\nkustomize build ({' '.join(build)}): the {len(shards)} shards of {jobs:,} jobs, one after another, "
        "against single directories (wall seconds; objects; seconds per 1,000 objects)"
    )
    median = sorted(whole.seconds)[len(whole.seconds) // 2]
    largest = max(len(list(s.glob("*.yaml"))) - 1 for s in shards)
    print(f"  {_row('every shard, one after another', median, objects)}   (the largest shard: {largest:,} objects)")
    for label, count, sample in samples:
        print(f"  {_row(label, sample.seconds, count)}")


def _row(label: str, seconds: float, objects: int) -> str:
    return f"{label:<40} {seconds:8.2f} s  {objects:7,} objects  {1000 * seconds / max(objects, 1):6.2f} s/1k"


if __name__ == "__main__":
    raise SystemExit(main())
