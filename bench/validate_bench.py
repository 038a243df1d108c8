"""Validate benchmark: the whole `mxjob validate` command next to a plain jsonschema_rs pass over the same objects.

Usage: python bench/validate_bench.py [--quick]   (or `make bench`)

Input: 1,000 jobs x 10 replicas, which render to 22,000 objects. Measured, each a whole process, in turn:
`mxjob validate SPECS` (parse, compile, check every rendered object), `mxjob validate RENDERED` (the
rendered stream, as Flux users validate a committed `render -o` output), and the baseline `bench/baseline.py
jsonschema_rs` (unpickle the same objects and check each with the same strict schemas, compiled by
jsonschema_rs), and `mxjob render SPECS > FILE` itself, the render that wrote the stream. Where the real
components are built (REALCOMP_CACHE, docs/real-cluster.md), the peer a user compares with runs too,
interleaved with `mxjob validate RENDERED`: `kubeconform -strict -summary` (its defaults otherwise) on the same
rendered stream with the same schemas. Target (docs/development.md#benchmark-figures): `mxjob validate
RENDERED` <= 0.5x kubeconform's wall time, with no more peak memory (both verdicts printed).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MXJOB, interleave, jobs_and_rounds, machine, print_comparison, run, run_into, verdict
from render_bench import BASELINE, many_jobs, pickle_rendering, write_input

TARGET_KUBECONFORM_RATIO = 0.5  # wall time of `mxjob validate RENDERED` / kubeconform -strict's
TARGET_KUBECONFORM_MEMORY = 1.0  # its peak RSS / kubeconform's


def _realcomp() -> Path:
    explicit = os.environ.get("REALCOMP_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mxjob-gitops" / "realcomp"


def kubeconform_command(rendered: Path) -> list[str] | None:
    """kubeconform -strict on the rendered stream, with the Kubernetes schemas realcomp built and ours for the
    CRDs (as tests/modern/test_core.py runs it), or None where it is not built."""
    binary, schemas = _realcomp() / "bin" / "kubeconform", _realcomp() / "share" / "kubernetes-json-schema"
    if not binary.is_file() or not schemas.is_dir():
        return None
    repo = Path(__file__).resolve().parent.parent
    return [
        str(binary), "-strict", "-summary", "-kubernetes-version", "1.36.0",
        "-schema-location",
        f"{schemas}/{{{{ .NormalizedKubernetesVersion }}}}-standalone{{{{ .StrictSuffix }}}}/"
        "{{ .ResourceKind }}{{ .KindSuffix }}.json",
        "-schema-location",
        f"{repo}/schemas/kubeconform/{{{{.Group}}}}/{{{{.ResourceKind}}}}_{{{{.ResourceAPIVersion}}}}.json",
        str(rendered),
    ]  # fmt: skip


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
        print_comparison(
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
        peer = kubeconform_command(rendered)
        if peer is not None:
            series = interleave(
                pairs, lambda: run([*MXJOB, "validate", "-q", str(rendered)]), lambda: run(peer, ok=(0, 1))
            )
            print_comparison(
                f"validate the rendered stream ({count:,} objects) against kubeconform -strict",
                ["mxjob validate rendered", "kubeconform -strict -summary"],
                series,
                target=(1, TARGET_KUBECONFORM_RATIO) if jobs == 1_000 else None,
            )
            ours, theirs = series[0].peak_rss_mib, series[1].peak_rss_mib
            memory = ours / max(theirs, 1.0)
            print(
                f"  peak RSS mxjob validate rendered / kubeconform -strict: {ours:.0f} / {theirs:.0f} MiB = "
                f"{memory:.2f}   target <= {TARGET_KUBECONFORM_MEMORY:g}: {verdict(memory, TARGET_KUBECONFORM_MEMORY)}"
            )
        else:
            print("\n(kubeconform not built: run `make envtest` for the comparison with kubeconform -strict)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
