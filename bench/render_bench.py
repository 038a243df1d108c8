"""Render benchmark: end-to-end `mxjob render` against PyYAML's C dumper and json.dumps, measured in one run.

Usage: python bench/render_bench.py [--quick]   (or `make bench`)

Cases: 1,000 jobs x 10 replicas (1 scheduler, 3 servers, 6 workers) and 1 job x 10,000 workers. For each,
the end-to-end time is a fresh `mxjob render FILE > /dev/null` process (start-up, parsing, validation,
expansion, serialisation); the baselines serialise the very same manifests in this process with
yaml.dump(Dumper=CSafeDumper) and json.dumps, one document at a time (so neither holds the whole stream).
Peak memory is the render process's maximum resident set size. Also timed: `mxjob --help` and one small
job, as Argo CD runs the plugin on every refresh. The figures are ratios measured side by side in one run,
because absolute times on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from compiler import RenderOptions, compile_documents, parse_text  # noqa: E402
from compiler.constants import MAX_PODS  # noqa: E402

MXJOB = [sys.executable, "-m", "compiler.cli"]


def _template(image: str, gpus: int) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "mxnet", "image": image, "command": ["python"],
        "args": ["/train.py", "--num-epochs", "10", "--kv-store", "dist_device_sync"],
        "env": [{"name": "PYTHONUNBUFFERED", "value": "1"}],
        "resources": {"limits": {"nvidia.com/gpu": gpus, "memory": "16Gi"}, "requests": {"cpu": "4"}},
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
    }
    return {"metadata": {"labels": {"team": "vision"}},
            "spec": {"containers": [container], "volumes": [{"name": "data", "emptyDir": {}}]}}


def make_job(name: str, servers: int, workers: int) -> dict[str, Any]:
    replicas = {
        "Scheduler": {"replicas": 1, "template": _template("mxnet:1.9", 0)},
        "Server": {"replicas": servers, "restartPolicy": "ExitCode", "template": _template("mxnet:1.9", 0)},
        "Worker": {"replicas": workers, "restartPolicy": "ExitCode", "template": _template("mxnet:1.9-gpu", 1)},
    }
    return {"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"jobMode": "MXTrain", "runPolicy": {"backoffLimit": 3}, "mxReplicaSpecs": replicas}}


def write_input(path: Path, jobs: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        yaml.dump_all(jobs, handle, Dumper=yaml.CSafeDumper, sort_keys=False)


def manifests(path: Path, max_pods: int) -> Iterator[dict[str, Any]]:
    parsed = parse_text(path.read_text(encoding="utf-8"), str(path))
    plan = compile_documents(parsed.documents, RenderOptions(max_pods=max_pods))
    assert plan.ok
    return plan.manifests()


def time_baselines(path: Path, max_pods: int) -> tuple[float, float, int]:
    """Seconds spent inside yaml.dump (C) and json.dumps for the same manifests, and the document count."""
    dumper = yaml.CSafeDumper
    yaml_seconds = json_seconds = 0.0
    count = 0
    with open(os.devnull, "w", encoding="utf-8") as sink:
        for document in manifests(path, max_pods):
            start = time.perf_counter()
            sink.write(yaml.dump(document, Dumper=dumper, default_flow_style=False, sort_keys=False))
            middle = time.perf_counter()
            sink.write(json.dumps(document))
            json_seconds += time.perf_counter() - middle
            yaml_seconds += middle - start
            count += 1
    return yaml_seconds, json_seconds, count


def run_timed(args: list[str], stdout: Any = subprocess.DEVNULL) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    process = subprocess.Popen(args, cwd=REPO, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {process.stderr.read().decode() if process.stderr else ''}")
    return elapsed, usage.ru_maxrss / 1024


def bench_case(label: str, path: Path, repeats: int, max_pods: int = MAX_PODS) -> None:
    runs = [run_timed([*MXJOB, "render", "--max-pods", str(max_pods), str(path)]) for _ in range(repeats)]
    render_seconds = statistics.median(r[0] for r in runs)
    peak = max(r[1] for r in runs)
    yaml_seconds, json_seconds, count = time_baselines(path, max_pods)
    print(f"\n{label}: {count:,} objects from {path.stat().st_size / 1e6:.1f} MB of input")
    print(f"  mxjob render, end to end      {render_seconds:8.2f} s   peak RSS {peak:7.0f} MiB")
    print(f"  PyYAML C dumper, dump only    {yaml_seconds:8.2f} s   ratio render/PyYAML-C = "
          f"{render_seconds / yaml_seconds:.2f}  (target <= 0.5)")
    print(f"  json.dumps, dump only         {json_seconds:8.2f} s   ratio render/json     = "
          f"{render_seconds / json_seconds:.2f}")


def bench_latency(small: Path, repeats: int) -> None:
    help_times = [run_timed([*MXJOB, "--help"])[0] for _ in range(repeats)]
    small_times = [run_timed([*MXJOB, "render", str(small)])[0] for _ in range(repeats)]
    print(f"\nlatency (median of {repeats}):")
    print(f"  mxjob --help                  {statistics.median(help_times):8.3f} s   (target <= 0.3 s)")
    print(f"  render one small job          {statistics.median(small_times):8.3f} s   (target <= 0.5 s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller cases, one repeat (a smoke test)")
    options = parser.parse_args()
    jobs, workers, repeats = (100, 1_000, 1) if options.quick else (1_000, 10_000, 3)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, PyYAML {yaml.__version__} "
          f"(libyaml: {yaml.__with_libyaml__})")
    with tempfile.TemporaryDirectory(prefix="mxjob-bench-") as tmp:
        many, wide, small = Path(tmp, "many.yaml"), Path(tmp, "wide.yaml"), Path(tmp, "small.yaml")
        write_input(many, [make_job(f"job-{i:04d}", servers=3, workers=6) for i in range(jobs)])
        write_input(wide, [make_job("wide", servers=1, workers=workers)])
        write_input(small, [make_job("small", servers=1, workers=2)])
        bench_case(f"{jobs:,} jobs x 10 replicas", many, repeats)
        bench_case(f"1 job x {workers:,} workers", wide, 1 if workers >= 10_000 else repeats,
                   max(MAX_PODS, workers + 2))
        bench_latency(small, 5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
