"""The committed `.mxjob.yaml` gives every command the same render options: found from the inputs upwards, below
the flags and environment, above the defaults; a malformed file is a usage error."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli

CONFIG = "render:\n  target: argocd\n  namespace: training\n  gangScheduler: volcano\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "gitops"
    (root / ".git").mkdir(parents=True)  # the top of a work tree, as far as the search goes
    shutil.copytree(EXAMPLES / "train", root / "jobs")
    (root / ".mxjob.yaml").write_text(CONFIG, encoding="utf-8")
    return root


def _docs(stdout: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(stdout) if d]


def test_render_reads_the_committed_options(repo: Path, tmp_path: Path) -> None:
    result = run_cli(["render", str(repo / "jobs")], cwd=tmp_path)  # found from the input, not the directory
    assert result.exit_code == 0, result.stderr
    docs = _docs(result.stdout)
    assert {d["metadata"]["namespace"] for d in docs} == {"training"}
    assert "PodGroup" in {d["kind"] for d in docs}
    pod = next(d for d in docs if d["kind"] == "Pod")
    assert pod["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Force=true,Replace=true"


def test_flags_and_environment_win(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _docs(run_cli(["render", "--target", "plain", "jobs"], cwd=repo).stdout)
    assert all("argocd.argoproj.io/sync-options" not in (d["metadata"].get("annotations") or {}) for d in plain)
    monkeypatch.setenv("MXJOB_TARGET", "flux")
    flux = next(d for d in _docs(run_cli(["render", "jobs"], cwd=repo).stdout) if d["kind"] == "Pod")
    assert "kustomize.toolkit.fluxcd.io/force" in flux["metadata"]["annotations"]


def test_validate_and_diff_read_it_too(repo: Path) -> None:
    report = run_cli(["validate", "--format", "json", "jobs"], cwd=repo)
    assert report.exit_code == 0 and '"kind": "PodGroup"' in report.stdout
    rendered = repo / "rendered.yaml"
    rendered.write_text(run_cli(["render", "jobs"], cwd=repo).stdout, encoding="utf-8")
    same = run_cli(["diff", "jobs", "rendered.yaml"], cwd=repo)
    assert same.exit_code == 0, same.stdout + same.stderr


@pytest.mark.parametrize("text", ["render: [1]\n", "render:\n  colour: blue\n", "render:\n  target: sideways\n"])
def test_a_malformed_file_is_a_usage_error(repo: Path, text: str) -> None:
    (repo / ".mxjob.yaml").write_text(text, encoding="utf-8")
    result = run_cli(["render", "jobs"], cwd=repo)
    assert result.exit_code == 2 and result.stdout == "" and ".mxjob.yaml" in result.stderr
