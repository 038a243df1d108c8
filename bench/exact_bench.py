"""What each fast path buys: every user-visible figure timed with all fast paths, and with one turned off.

Usage: python bench/exact_bench.py [--quick]   (or `make bench`)

Input: 1,000 jobs x 10 replicas (22,000 rendered objects). Figures, each a whole process: `mxjob render SPECS`,
`mxjob validate RENDERED`, `mxjob diff OLD NEW` of two renderings (10% of the jobs changed), and `mxjob render
-o DIR` into a directory that already holds the rendering. Each is run with every fast path on (the default),
then with one of compiler/base/exact.py's SHORTCUTS off (MXJOB_EXACT=NAME), in interleaved rounds; the last
series is MXJOB_EXACT=1 (every one off). A shortcut pays for itself when turning it off costs at least 10% on
some figure (docs/performance.md: a second implementation that buys less is removed).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MXJOB, interleave, jobs_and_rounds, machine, print_comparison, run, run_into
from render_bench import many_jobs, write_input

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mxjob_gitops.compiler.base.exact import SHORTCUTS

PAYS = 1.10  # the least a shortcut must buy on one figure


def _figures(tmp: Path, jobs: int) -> dict[str, tuple[list[str], Path | None]]:
    """Each figure's command line and the file it writes to (None: stdout is dropped)."""
    specs, rendered, changed = tmp / "specs.yaml", tmp / "rendered.yaml", tmp / "changed.yaml"
    listed = many_jobs(jobs)
    write_input(specs, listed)
    run_into([*MXJOB, "render", str(specs)], rendered)
    for job in listed[: max(1, jobs // 10)]:
        job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["image"] += "-next"
    other = tmp / "specs-changed.yaml"
    write_input(other, listed)
    run_into([*MXJOB, "render", str(other)], changed)
    out = tmp / "out"
    run([*MXJOB, "render", "-o", str(out), str(specs)])
    return {
        "render SPECS": ([*MXJOB, "render", str(specs)], None),
        "validate RENDERED": ([*MXJOB, "validate", str(rendered)], None),
        "diff OLD NEW": ([*MXJOB, "diff", "--format", "brief", str(rendered), str(changed)], None),
        "render -o DIR (unchanged)": ([*MXJOB, "render", "-o", str(out), str(specs)], None),
    }


def main() -> int:
    jobs, pairs = jobs_and_rounds(__doc__ or "")
    print(machine())
    settings = ["", *SHORTCUTS, "1"]
    names = ["all fast paths", *(f"without {name}" for name in SHORTCUTS), "MXJOB_EXACT=1 (none)"]
    paying: dict[str, float] = dict.fromkeys(SHORTCUTS, 0.0)
    with tempfile.TemporaryDirectory(prefix="mxjob-exact-bench-") as name:
        for figure, (args, _target) in _figures(Path(name), jobs).items():
            actions = [
                (lambda setting=setting, args=args: run(args, env={"MXJOB_EXACT": setting}, ok=(0, 1)))
                for setting in settings
            ]
            series = interleave(pairs, *actions)
            found = print_comparison(
                f"{figure}: each shortcut turned off alone", names, series, pairs=[(i, 0) for i in range(1, len(names))]
            )
            for shortcut, label in zip(SHORTCUTS, names[1:], strict=False):
                paying[shortcut] = max(paying[shortcut], found[f"{label} / {names[0]}"])
    print("\nWhat each shortcut buys at most (its figure's time without it / with it):")
    for shortcut, ratio in paying.items():
        print(f"  {shortcut:<12} {ratio:.2f}x   {'pays' if ratio >= PAYS else 'buys under 10%'}: {SHORTCUTS[shortcut]}")
    print(f"  (median of {statistics.median(paying.values()):.2f}x over the shortcuts)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
