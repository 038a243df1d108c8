"""The PodGroup rules of compiler.kubevalidate.podgroup against the real CRDs on the 1.36 server: each job below
is rendered for a gang scheduler; when `mxjob render` refuses it (MXJ411, located in the MXJob), the server refuses
the same group built without our check, with the same message; when render accepts, the server accepts the group."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.base.diagnostics import Code
from tests.conftest import JOB_EXAMPLE_FILES, run_cli
from tests.modern.server import ModernServer
from tests.modern.test_crds import with_crds  # noqa: F401 - the fixture installing both PodGroup CRDs

EXAMPLE = JOB_EXAMPLE_FILES[0]
CASES: list[tuple[str, str, dict[str, Any], dict[str, str]]] = [
    ("plugins-min-zero", "scheduler-plugins", {"minAvailable": 0}, {}),
    ("plugins-min-one", "scheduler-plugins", {"minAvailable": 1}, {}),
    ("volcano-min-zero", "volcano", {"minAvailable": 0}, {}),
    ("volcano-queue-ok", "volcano", {"queue": "research-gpu.team1"}, {}),
    ("volcano-queue-upper", "volcano", {"queue": "Research"}, {}),
    ("volcano-queue-underscore", "volcano", {"queue": "research_gpu"}, {}),
    ("volcano-queue-long", "volcano", {"queue": "q" * 254}, {}),
    ("volcano-queue-annotation", "volcano", {}, {"scheduling.volcano.sh/queue-name": "Bad Queue"}),
    ("volcano-priority-long", "volcano", {"priorityClass": "p" * 254}, {}),
    ("volcano-priority-ok", "volcano", {"priorityClass": "high"}, {}),
]


def _job(policy: dict[str, Any], annotations: dict[str, str]) -> dict[str, Any]:
    job: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    if policy:
        job["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = policy
    if annotations:
        job["metadata"].setdefault("annotations", {}).update(annotations)
    return job


def _render(path: Path, scheduler: str) -> tuple[int, str, list[dict[str, Any]]]:
    result = run_cli(["render", "-n", "gang", "--gang-scheduler", scheduler, str(path)])
    groups = [d for d in yaml.safe_load_all(result.stdout) if d and d["kind"] == "PodGroup"] if result.stdout else []
    return result.exit_code, result.stderr, groups


@pytest.mark.parametrize(("name", "scheduler", "policy", "annotations"), CASES, ids=[c[0] for c in CASES])
def test_render_refuses_what_the_podgroup_crd_refuses(
    with_crds: ModernServer,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    scheduler: str,
    policy: dict[str, Any],
    annotations: dict[str, str],
) -> None:
    job = _job(policy, annotations)
    job["metadata"]["name"] = name
    path = tmp_path / "job.yaml"
    text = yaml.safe_dump(job, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    code, stderr, _ = _render(path, scheduler)
    with monkeypatch.context() as patched:  # the same rendering without our rule: what the server would get
        patched.setattr("mxjob_gitops.compiler.compile.job.check_pod_group", lambda _group, _job: [])
        unchecked_code, unchecked_err, groups = _render(path, scheduler)
    assert unchecked_code == 0, unchecked_err
    [group] = groups
    done = with_crds.run("create", "--dry-run=server", "-f", "-", stdin=json.dumps(group))
    ours = [line for line in stderr.splitlines() if Code.K8S_POD_GROUP.value in line]
    assert (done.returncode != 0) == (code != 0), (done.stderr, stderr)
    assert (code != 0) == bool(ours), stderr
    for line in ours:
        assert f"{path}:" in line, line  # located in the MXJob
        message = line.split(" PodGroup ", 1)[1].rsplit(" (", 1)[0]  # the server's field error, our hint cut
        assert message in done.stderr, (line, done.stderr)


def test_the_cases_refuse_and_accept() -> None:
    refused = {c[0] for c in CASES if "ok" not in c[0] and "one" not in c[0] and c[0] != "volcano-min-zero"}
    assert len(refused) >= 6 and len(CASES) - len(refused) >= 4
