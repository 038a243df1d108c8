"""Diff benchmark: two renders of 1,000 jobs x 10 replicas with about 1% of objects changed.

Usage: python bench/diff_bench.py   (or `make bench`)

Prints, from one run: the time `mxjob diff` needs to compare the two rendered inventories and write its
text report, the time GNU `diff -u` needs for the same two rendered YAML streams, and their ratio; plus the
whole command end to end (reading and rendering both sides of specs) for context. Targets: <= 1 s and
<= 3x `diff -u`.
"""

from __future__ import annotations

import copy
import gc
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from render_bench import make_job, write_input  # noqa: E402

from compiler import RenderOptions, compile_documents, parse_text  # noqa: E402
from compiler.changes import diff_manifests  # noqa: E402
from compiler.cli.diffreport import DiffReport  # noqa: E402
from compiler.cli.diffreport.text import TextReporter  # noqa: E402
from compiler.emit import write_yaml_stream  # noqa: E402

JOBS = 1_000
CHANGED_JOBS = 30  # each changes its MXJob and 6 worker pods: ~210 of 22,000 objects, about 1%


def specs() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    old = [make_job(f"job-{i:04d}", servers=3, workers=6) for i in range(JOBS)]
    new = copy.deepcopy(old)
    for i in range(0, JOBS, JOBS // CHANGED_JOBS)[:CHANGED_JOBS]:
        worker = new[i]["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
        worker["image"] = "mxnet:1.9.1-gpu"
    return old, new


def render(path: Path) -> list[dict[str, Any]]:
    parsed = parse_text(path.read_text(encoding="utf-8"), str(path))
    plan = compile_documents(parsed.documents, RenderOptions())
    assert plan.ok
    return list(plan.manifests())


def main() -> int:
    gnu_diff = shutil.which("diff")
    with tempfile.TemporaryDirectory(prefix="mxjob-diff-bench-") as tmp:
        old_specs, new_specs = specs()
        old_in, new_in = Path(tmp, "old-specs.yaml"), Path(tmp, "new-specs.yaml")
        write_input(old_in, old_specs)
        write_input(new_in, new_specs)
        old, new = render(old_in), render(new_in)
        old_out, new_out = Path(tmp, "old.yaml"), Path(tmp, "new.yaml")
        for path, manifests in ((old_out, old), (new_out, new)):
            with path.open("w", encoding="utf-8") as handle:
                write_yaml_stream(manifests, handle)

        gc.disable()  # as the `mxjob diff` command does
        start = time.perf_counter()
        changes = diff_manifests(old, new)
        TextReporter("never").write(DiffReport(changes, "old", "new"), io.StringIO())
        ours = time.perf_counter() - start
        gc.enable()

        print(f"{len(old):,} objects per side, {sum(c.counts for c in changes)} differ "
              f"({100 * len(changes) / len(old):.1f}%), rendered streams {old_out.stat().st_size / 1e6:.1f} MB each")
        print(f"  mxjob diff (match, compare, DeepDiff the changed, text report)  {ours:6.2f} s  (target <= 1 s)")
        if gnu_diff:
            start = time.perf_counter()
            subprocess.run([gnu_diff, "-u", str(old_out), str(new_out)], stdout=subprocess.DEVNULL, check=False)
            theirs = time.perf_counter() - start
            print(f"  GNU diff -u of the two rendered streams                         {theirs:6.2f} s")
            print(f"  ratio mxjob diff / diff -u = {ours / theirs:.2f}  (target <= 3)")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "compiler.cli", "diff", "--format", "brief", str(old_in), str(new_in)],
                       cwd=REPO, stdout=subprocess.DEVNULL, check=False, env={**os.environ, "NO_COLOR": "1"})
        whole = time.perf_counter() - start
        print(f"  whole command from specs (read and render both sides, then diff) {whole:6.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
