"""Validate benchmark: the whole `mxjob validate` command next to a plain jsonschema_rs pass over the same objects.

Usage: python bench/validate_bench.py [--quick]   (or `make bench`)

Input: 1,000 jobs x 10 replicas, which render to 22,000 objects. Measured, each a whole process, in turn:
`mxjob validate SPECS` (parse, compile, check every rendered object), `mxjob validate RENDERED` (the
rendered stream, as Flux users validate a committed `render -o` output), and the baseline `bench/baseline.py
jsonschema_rs` (unpickle the same objects and check each with the same strict schemas, compiled by
jsonschema_rs), and `mxjob render SPECS > FILE` itself, the render that wrote the stream. Targets: the whole
command on the specs <= 2 s; validate of the rendered stream <= 1.2x the render that wrote it.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MXJOB, interleave, jobs_and_rounds, machine, print_comparison, run, run_into, verdict
from render_bench import BASELINE, many_jobs, pickle_rendering, write_input

TARGET_SECONDS = 2.0
TARGET_RENDERED_RATIO = 1.2


def main() -> int:
    jobs, pairs = jobs_and_rounds(__doc__ or "")
    print(machine())
    with tempfile.TemporaryDirectory(prefix="mxjob-validate-bench-") as name:
        tmp = Path(name)
        specs, rendered, objects = tmp / "specs.yaml", tmp / "rendered.yaml", tmp / "objects.pickle"
        again = tmp / "rendered-again.yaml"
        write_input(specs, many_jobs(jobs))
        count = pickle_rendering(specs, objects)
        run_into([*MXJOB, "render", str(specs)], rendered)
        series = interleave(
            pairs,
            lambda: run([*MXJOB, "validate", "-q", str(specs)]),
            lambda: run([*BASELINE, "jsonschema_rs", str(objects)]),
            lambda: run([*MXJOB, "validate", "-q", str(rendered)]),
            lambda: run_into([*MXJOB, "render", str(specs)], again),
        )
        found = print_comparison(
            f"validate {jobs:,} jobs x 10 replicas ({count:,} objects)",
            [
                "mxjob validate specs",
                "jsonschema_rs pass process",
                "mxjob validate rendered",
                "mxjob render specs > file",
            ],
            series,
            pairs=[(0, 1), (2, 1), (2, 3)],
        )
        if jobs == 1_000:
            wall, cpu = statistics.median(series[0].seconds), statistics.median(series[0].cpu_seconds)
            print(
                f"  target: whole command on the specs <= {TARGET_SECONDS:g} s: {verdict(wall, TARGET_SECONDS)} "
                f"(CPU time: {verdict(cpu, TARGET_SECONDS)})"
            )
            ratio = found["mxjob validate rendered / mxjob render specs > file"]
            print(
                f"  target: validate of the rendered stream <= {TARGET_RENDERED_RATIO:g}x its render: "
                f"{verdict(ratio, TARGET_RENDERED_RATIO)}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
