"""The reusable CI step, run step by step as the runners would: action.yml's shell steps with bash (and its
comment step's script with node, against a stand-in for GitHub's REST client), and the GitLab template's script.
Each validates, renders and diffs with one set of options and fails exactly when the sync would fail (an invalid
spec, an update the server would refuse), differences alone pass, and the comment is posted either way."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO
from tests.helpers import git, init_repo
from tests.kustomizetool import kustomize

__all__ = ["kustomize"]  # the fixture
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
TEMPLATE = yaml.safe_load((REPO / "ci" / "gitlab" / "mxjob.gitlab-ci.yml").read_text(encoding="utf-8"))[
    ".mxjob-pr-check"
]
NODE = shutil.which("node")

QUEUED = """\
apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {name: queued, namespace: ml}
spec:
  jobMode: MXTrain
  runPolicy: {schedulingPolicy: {queue: research}}
  mxReplicaSpecs:
    Scheduler: {replicas: 1, template: {spec: {containers: [{name: mxnet, image: "mxnet:1.9"}]}}}
    Server: {replicas: 1, template: {spec: {containers: [{name: mxnet, image: "mxnet:1.9"}]}}}
    Worker: {replicas: 1, template: {spec: {containers: [{name: mxnet, image: "mxnet:1.9"}]}}}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "gitops"
    (root / "jobs" / "prod").mkdir(parents=True)
    init_repo(root)
    shutil.copytree(EXAMPLES / "kustomize", root / "jobs" / "kustomize")
    (root / "jobs" / "prod" / "queued.yaml").write_text(QUEUED, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "branch", "base")
    return root


def _environment(tmp_path: Path, settings: dict[str, str]) -> dict[str, str]:
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    (shim / "mxjob").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mxjob_gitops "$@"\n', encoding="utf-8")
    (shim / "mxjob").chmod(0o755)
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    return {
        **os.environ,
        "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "RUNNER_TEMP": str(runner),
        "GITHUB_OUTPUT": str(runner / "output"),
        **settings,
    }


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # GitHub runs a `shell: bash` step as `bash --noprofile --norc -eo pipefail {0}`
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _action_env(step: dict[str, Any], inputs: dict[str, str]) -> dict[str, str]:
    """A step's `env:` with `${{ inputs.X }}` (and the base default) filled in."""
    resolved: dict[str, str] = {}
    for key, value in (step.get("env") or {}).items():
        found = re.fullmatch(r"\$\{\{ inputs\.(\w+)(?: \|\| .*)? \}\}", str(value))
        resolved[key] = inputs.get(found.group(1), "") if found else str(value)
    return resolved


def _comment_script(parts: Path, cwd: Path, existing: list[dict[str, Any]]) -> list[Any]:
    """Run the comment step's script in node against a recording stand-in of github-script's `github`/`context`."""
    assert NODE is not None
    [step] = [s for s in ACTION["runs"]["steps"] if "github-script" in str(s.get("uses"))]
    harness = f"""
const calls = [];
const existing = {json.dumps(existing)};
const github = {{
  paginate: async (f, args) => existing,
  rest: {{issues: {{
    listComments: 'listComments',
    updateComment: async (a) => calls.push(['update', a.comment_id, a.body]),
    createComment: async (a) => calls.push(['create', a.issue_number, a.body]),
    deleteComment: async (a) => calls.push(['delete', a.comment_id]),
  }}}},
}};
const context = {{repo: {{owner: 'o', repo: 'r'}}, issue: {{number: 7}}}};
(async () => {{
{step["with"]["script"]}
}})().then(() => console.log(JSON.stringify(calls)), (e) => {{ console.error(e); process.exit(1); }});
"""
    env = {**os.environ, **_action_env(step, {}), "MXJOB_PARTS": str(parts)}
    done = subprocess.run([NODE, "-e", harness], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    calls: list[Any] = json.loads(done.stdout)
    return calls


def _run_action(repo: Path, tmp_path: Path, inputs: dict[str, str]) -> tuple[int, str]:
    """The action's shell steps in order (install skipped: mxjob is the checkout's); the last one's exit code and
    the first part of the comment."""
    env = _environment(tmp_path, {})
    code = 0
    for step in ACTION["runs"]["steps"]:
        if "run" not in step or "pip install" in step["run"]:
            continue
        done = _bash(step["run"], repo, {**env, **_action_env(step, inputs)})
        code = done.returncode
        if step.get("id") == "check":
            assert code == 0, done.stderr
            status = (tmp_path / "runner" / "output").read_text(encoding="utf-8")
            assert re.fullmatch(r"status=\d+\n", status), status
    first = sorted((repo / "mxjob-parts").glob("part-1-of-*.md"))
    return code, first[0].read_text(encoding="utf-8") if first else ""


def test_an_overlay_change_passes_and_is_shown(repo: Path, tmp_path: Path, kustomize: list[str]) -> None:
    overlay = repo / "jobs" / "kustomize" / "overlays" / "prod" / "kustomization.yaml"
    overlay.write_text(
        overlay.read_text(encoding="utf-8")
        + "images:\n- name: registry.example.com/ml/imagenet-train\n  newTag: 2.0.0\n",
        encoding="utf-8",
    )
    git(repo, "commit", "-qam", "new tag")
    inputs = {
        "base": "base",
        "paths": "jobs/prod",
        "overlays": "jobs/kustomize/overlays/prod",
        "options": "--target argocd",
    }
    code, comment = _run_action(repo, tmp_path, inputs)
    assert code == 0
    assert "imagenet-train:2.0.0" in comment and "fails" not in comment
    if NODE is not None:
        calls = _comment_script(repo / "mxjob-parts", repo, [{"id": 5, "body": "<!-- mxjob-diff part 1 -->\nold"}])
        assert [c[:2] for c in calls] == [["update", 5]] and "imagenet-train:2.0.0" in calls[0][2]


def test_a_refused_update_fails_the_step_after_commenting(repo: Path, tmp_path: Path) -> None:
    spec = repo / "jobs" / "prod" / "queued.yaml"
    spec.write_text(QUEUED.replace("queue: research", "queue: production"), encoding="utf-8")
    git(repo, "commit", "-qam", "another queue")
    code, comment = _run_action(repo, tmp_path, {"base": "base", "paths": "jobs/prod"})
    assert code == 2
    assert comment.startswith("**mxjob: this change fails: diff (2).**")
    assert "MXJ410" in comment
    if NODE is not None:
        calls = _comment_script(repo / "mxjob-parts", repo, [])
        assert [c[0] for c in calls] == ["create"] and "MXJ410" in calls[0][2]


def test_an_invalid_spec_fails_the_step(repo: Path, tmp_path: Path) -> None:
    spec = repo / "jobs" / "prod" / "queued.yaml"
    spec.write_text(QUEUED.replace("jobMode: MXTrain", "jobMode: MXTrian"), encoding="utf-8")
    git(repo, "commit", "-qam", "typo")
    code, comment = _run_action(repo, tmp_path, {"base": "base", "paths": "jobs/prod"})
    assert code == 1
    assert comment.startswith("**mxjob: this change fails: validate (1), render (1), diff (2).**")


def test_the_gitlab_template_runs_the_same_check(repo: Path, tmp_path: Path) -> None:
    spec = repo / "jobs" / "prod" / "queued.yaml"
    spec.write_text(QUEUED.replace("queue: research", "queue: production"), encoding="utf-8")
    git(repo, "commit", "-qam", "another queue")
    env = _environment(
        tmp_path,
        {**{k: str(v) for k, v in TEMPLATE["variables"].items()}, "MXJOB_BASE": "base", "MXJOB_PATHS": "jobs/prod"},
    )
    steps = [s for s in TEMPLATE["script"] if "git fetch" not in s]
    codes = [_bash(step, repo, env).returncode for step in steps]  # no MXJOB_DIFF_TOKEN: no notes
    assert codes == [0, 0, 2]
    assert "MXJ410" in next((repo / "mxjob-parts").glob("part-1-of-*.md")).read_text(encoding="utf-8")
    passing = repo / "jobs" / "prod" / "queued.yaml"
    passing.write_text(
        QUEUED.replace(
            'replicas: 1, template: {spec: {containers: [{name: mxnet, image: "mxnet:1.9"}]}}}\n',
            'replicas: 2, template: {spec: {containers: [{name: mxnet, image: "mxnet:1.9"}]}}}\n',
        ).replace("Scheduler: {replicas: 2", "Scheduler: {replicas: 1"),
        encoding="utf-8",
    )
    git(repo, "commit", "-qam", "two workers, the old queue")
    assert [_bash(step, repo, env).returncode for step in steps] == [0, 0, 0]
