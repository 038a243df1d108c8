"""Jobs for the e2e tier: the examples' and golden inputs with their `mxnet` command pointed at our scripts."""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.pods import Manifest

SCRIPTS = Path(__file__).resolve().parent / "scripts"
RENDER_TIMEOUT = 60.0


def load(path: Path) -> Manifest:
    """The one MXJob in a YAML file."""
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d]
    jobs = [d for d in documents if d.get("kind") == "MXJob"]
    assert len(jobs) == 1, f"{path}: one MXJob expected"
    return copy.deepcopy(jobs[0])


def with_command(job: Manifest, command: Sequence[str], **per_type: Sequence[str]) -> Manifest:
    """The job with every replica's `mxnet` container running `command` from our scripts folder.

    The images of the examples are not here; everything else in the template (env, ports, annotations, other
    containers) stays as the input had it. `per_type` gives a replica type extra args (e.g. Worker=[...]).
    """
    job = copy.deepcopy(job)
    for replica_type, spec in job["spec"]["mxReplicaSpecs"].items():
        for container in spec["template"]["spec"]["containers"]:
            if container["name"] != "mxnet":
                continue
            container["command"] = list(command)
            container["args"] = list(per_type.get(replica_type, []))
            container["workingDir"] = str(SCRIPTS)
            container.pop("resources", None)  # GPU limits mean nothing to a local process
    return job


def render(job: Manifest, workdir: Path, *options: str) -> list[Manifest]:
    """Render `job` with the installed `mxjob render` command (a separate process, as CI runs it)."""
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"{job['metadata']['name']}.yaml"
    source.write_text(yaml.safe_dump(job, sort_keys=False))
    mxjob = Path(sys.executable).parent / "mxjob"
    done = subprocess.run(
        [str(mxjob), "render", "--quiet", *options, str(source)],
        capture_output=True,
        text=True,
        timeout=RENDER_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"mxjob render {' '.join(options)} exited {done.returncode}:\n{done.stderr}"
    manifests: list[Manifest] = [d for d in yaml.safe_load_all(done.stdout) if d]
    return manifests


def pod_envs(manifests: list[Manifest]) -> dict[str, Any]:
    """Each Pod's containers' env lists, for comparing renderings."""
    return {
        m["metadata"]["name"]: [(c["name"], c.get("env")) for c in m["spec"]["containers"]]
        for m in manifests
        if m.get("kind") == "Pod"
    }
