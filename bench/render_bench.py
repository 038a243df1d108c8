"""Render benchmark: the whole `mxjob render` process into a file, next to baselines that write the same objects.

Usage: python bench/render_bench.py [--quick] [--cases 1|2|3]   (or `make bench`: all cases)

Cases: 1,000 jobs x 10 replicas (1 scheduler, 3 servers, 6 workers), 1 job x 10,000 workers, and 20,000 jobs
x 10 replicas. Measured: `mxjob render INPUT > FILE` (start-up, parsing, validation, expansion, serialisation,
writing). Baselines, each a whole process writing into a file and run in turn with it (A B C ...):
`bench/baseline.py json` (json.dumps of the very same objects, loaded from a pickle), the same with
PyYAML's C dumper, and `cat` of the rendered output (the I/O floor); at 1,000 x 10 also `bench/baseline.py
emit`, our own emitter alone on the same objects (the Python floor under the json.dumps target). Targets
(docs/development.md#benchmark-figures), each against its peer in the same run: 1,000 x 10 <= 1.5x the
json.dumps process; one small job <= 2.5x `python -c "import yaml"` (Argo CD starts the plugin once per
application). The PyYAML baseline runs in every case although it is the slowest process of each round (about
2.5x a render at 1,000 x 10, 20x at 1 x 10,000): with all three cases `make bench` spends about 15 minutes of
its time on it.
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import MXJOB, REPO, interleave, machine, print_comparison, run, run_into

sys.path.insert(0, str(REPO))

from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text
from mxjob_gitops.compiler.base.limits import DEFAULT_MAX_PODS as MAX_PODS
from mxjob_gitops.compiler.base.limits import estimated_output_bytes, output_limit

BASELINE = [sys.executable, str(REPO / "bench" / "baseline.py")]
SMALL_JOB_RATIO = 2.5  # x `python -c "import yaml"`
RENDER_RATIO = 1.5  # 1,000 jobs x 10: x the json.dumps process of the same objects


def _template(image: str, gpus: int) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "mxnet",
        "image": image,
        "command": ["python"],
        "args": ["/train.py", "--num-epochs", "10", "--kv-store", "dist_device_sync"],
        "env": [{"name": "PYTHONUNBUFFERED", "value": "1"}],
        "resources": {"limits": {"nvidia.com/gpu": gpus, "memory": "16Gi"}, "requests": {"cpu": "4"}},
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
    }
    return {
        "metadata": {"labels": {"team": "vision"}},
        "spec": {"containers": [container], "volumes": [{"name": "data", "emptyDir": {}}]},
    }


def make_job(name: str, servers: int, workers: int) -> dict[str, Any]:
    # Never, as docs/reconciler.md advises for dist_sync jobs (ExitCode would draw warning MXJ319 on every job).
    replicas = {
        "Scheduler": {"replicas": 1, "template": _template("mxnet:1.9", 0)},
        "Server": {"replicas": servers, "restartPolicy": "Never", "template": _template("mxnet:1.9", 0)},
        "Worker": {"replicas": workers, "restartPolicy": "Never", "template": _template("mxnet:1.9-gpu", 1)},
    }
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {"jobMode": "MXTrain", "runPolicy": {"backoffLimit": 3}, "mxReplicaSpecs": replicas},
    }


def many_jobs(count: int) -> list[dict[str, Any]]:
    return [make_job(f"job-{i:05d}", servers=3, workers=6) for i in range(count)]


def write_input(path: Path, jobs: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        yaml.dump_all(jobs, handle, Dumper=yaml.CSafeDumper, sort_keys=False)


def pickle_rendering(source: Path, target: Path, max_pods: int = MAX_PODS) -> int:
    """The objects `mxjob render` writes for `source`, pickled for the baseline processes; returns how many."""
    parsed = parse_text(source.read_text(encoding="utf-8"), str(source))
    plan = compile_documents(parsed.documents, RenderOptions(max_pods=max_pods))
    assert plan.ok
    documents = list(plan.manifests())
    with target.open("wb") as handle:
        pickle.dump(documents, handle, protocol=pickle.HIGHEST_PROTOCOL)
    return len(documents)


def needed_max_pods(jobs: list[dict[str, Any]]) -> int:
    """The --max-pods this input needs: the widest job's pods, raised until the output-size limit (which grows
    with it, compiler.limits.output_limit) admits the estimated rendering (20,000 x 10 writes 558 MB)."""
    pods: list[int] = [sum(r["replicas"] for r in j["spec"]["mxReplicaSpecs"].values()) for j in jobs]
    max_pods: int = max(MAX_PODS, *pods)
    templates = [[r["template"] for r in j["spec"]["mxReplicaSpecs"].values()] for j in jobs]
    estimate = estimated_output_bytes(
        (j["metadata"]["name"], n, t) for j, n, t in zip(jobs, pods, templates, strict=True)
    )
    while output_limit(max_pods) < estimate:
        max_pods += MAX_PODS // 10
    return max_pods


def bench_case(label: str, jobs: list[dict[str, Any]], pairs: int, tmp: Path, targeted: bool = False) -> None:
    """One case; `targeted`: the case the json.dumps target is for, which also times our emitter alone."""
    source, objects = tmp / "input.yaml", tmp / "objects.pickle"
    ours, rendered, theirs = tmp / "ours.yaml", tmp / "rendered.yaml", tmp / "theirs.out"
    write_input(source, jobs)
    max_pods = needed_max_pods(jobs)
    render = [*MXJOB, "render", "--max-pods", str(max_pods), str(source)]
    count = pickle_rendering(source, objects, max_pods)
    run_into(render, rendered)  # warm-up, and the file cat copies
    names = [
        "mxjob render > file",
        "json.dumps process > file",
        "PyYAML C dump process > file",
        "cat rendered > file (I/O floor)",
    ]
    commands = [
        lambda: run_into(render, ours),
        lambda: run_into([*BASELINE, "json", str(objects)], theirs),
        lambda: run_into([*BASELINE, "yaml", str(objects)], theirs),
        lambda: run_into(["cat", str(rendered)], theirs),
    ]
    if targeted:
        names.append("our emitter alone > file")
        commands.append(lambda: run_into([*BASELINE, "emit", str(objects)], theirs))
    series = interleave(pairs, *commands)
    title = (
        f"render {label}: {count:,} objects, {source.stat().st_size / 1e6:.1f} MB in, "
        f"{rendered.stat().st_size / 1e6:.1f} MB out"
    )
    print_comparison(
        title,
        names,
        series,
        target=(1, RENDER_RATIO) if targeted else None,
        pairs=[(0, 1), (0, 2), (0, 3), (0, 4), (4, 1)] if targeted else None,
    )
    for path in (source, objects, ours, rendered, theirs):
        path.unlink()


_LOADED = """
import json, sys
from mxjob_gitops.compiler.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    assert not exc.code, exc.code
ours = sorted(name for name in sys.modules if name.startswith("mxjob_gitops"))
# Libraries imported when first needed (jsonschema_rs for the schema check) are loaded by the render too.
libraries = sorted(
    name for name, module in sys.modules.items()
    if "." not in name and not name.startswith("_") and name not in sys.stdlib_module_names and name != "mxjob_gitops"
    and getattr(module, "__spec__", None) is not None  # not a pseudo-module such as cython_runtime
)
sys.stderr.write(json.dumps(ours + libraries))
"""


def _ours(small: Path) -> list[str]:
    """The modules `mxjob render small.yaml` imports: the project's (sorted: importing one imports what it needs)
    and the top-level third-party ones (some of which are imported only when first needed)."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, "render", str(small)], capture_output=True, text=True, check=True, cwd=REPO
    )
    return list(json.loads(done.stderr))


def bench_latency(tmp: Path, pairs: int) -> None:
    small = tmp / "small.yaml"
    write_input(small, [make_job("small", servers=1, workers=2)])
    floor = [sys.executable, "-c", "pass"]
    import_yaml = [sys.executable, "-c", "import yaml"]
    # What any render loads before reading a byte: the CLI, YAML and schema libraries and the standard modules
    # the compiler's own imports pull in (the floor under the ratio to `import yaml`).
    libraries = [sys.executable, "-c", "import click, yaml, jsonschema_rs, json, decimal, pathlib, dataclasses"]
    # Every module of ours the render imports (which pulls in the rest), with the collector paused as the
    # command pauses it: the floor under the render's own work.
    everything = [sys.executable, "-c", "import gc; gc.disable(); " + "; ".join(f"import {m}" for m in _ours(small))]
    series = interleave(
        pairs,
        lambda: run([*MXJOB, "render", str(small)]),
        lambda: run(import_yaml),
        lambda: run(floor),
        lambda: run([*MXJOB, "--help"]),
        lambda: run(libraries),
        lambda: run(everything),
    )
    print_comparison(
        "one small job (Argo CD runs the plugin on every refresh)",
        [
            "mxjob render small.yaml",
            "python -c 'import yaml'",
            "python -c pass (interpreter floor)",
            "mxjob --help",
            "import of the libraries a render loads",
            "import of every module a render loads",
        ],
        series,
        target=(1, SMALL_JOB_RATIO),
        pairs=[(0, 1), (0, 2), (0, 3), (0, 4), (4, 1), (0, 5), (5, 1)],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small cases, two rounds (a smoke test)")
    parser.add_argument(
        "--cases",
        type=int,
        choices=(1, 2, 3),
        default=3,
        help="how many of the cases to run, smallest first (default: all three)",
    )
    arguments = parser.parse_args()
    quick = arguments.quick
    pairs = 2 if quick else 5
    print(f"{machine()}; PyYAML {yaml.__version__} (libyaml: {yaml.__with_libyaml__})")
    cases = (10, 100, 20) if quick else (1_000, 10_000, 20_000)
    with tempfile.TemporaryDirectory(prefix="mxjob-render-bench-") as name:
        tmp = Path(name)
        bench_latency(tmp, 3 if quick else 10)
        bench_case(f"{cases[0]:,} jobs x 10 replicas", many_jobs(cases[0]), pairs, tmp, targeted=True)
        if arguments.cases > 1:
            bench_case(f"1 job x {cases[1]:,} workers", [make_job("wide", 1, cases[1])], pairs, tmp)
        if arguments.cases > 2:
            bench_case(f"{cases[2]:,} jobs x 10 replicas", many_jobs(cases[2]), pairs, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
