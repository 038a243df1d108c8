"""The pre-commit hook on the layout the docs recommend (MXJob specs, a kustomize base and overlays, a committed
`render -o` directory, CI configuration): it passes with no user `exclude:`, skipping kustomization files with a
note; a stale committed rendering fails it. pre-commit's own file selection is followed: `files` and `exclude`
are Python regular expressions searched in each path `git ls-files` lists."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO, run_cli
from tests.helpers import git, init_repo

[HOOK] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    root = tmp_path / "gitops"
    (root / "jobs").mkdir(parents=True)
    init_repo(root)
    for name in ("train/mx_job_dist_gpu.yaml", "single/mx_job_single_worker.yaml"):
        shutil.copy(EXAMPLES / name, root / "jobs" / Path(name).name)
    shutil.copytree(EXAMPLES / "kustomize", root / "kustomize")
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "ci.yaml").write_text("on: [push]\njobs: {}\n", encoding="utf-8")
    (root / "package.json").write_text('{"name": "x"}\n', encoding="utf-8")
    assert run_cli(["render", "-q", "-o", "rendered", "jobs"], cwd=root).exit_code == 0
    git(root, "add", "-A")
    return root


def _hook(root: Path, exclude: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the hook as pre-commit would on every tracked file (`pre-commit run --all-files`)."""
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    chosen = [
        name
        for name in listed.splitlines()
        if re.search(HOOK["files"], name)
        and not (HOOK.get("exclude") and re.search(HOOK["exclude"], name))
        and not (exclude and re.search(exclude, name))
    ]
    entry = shlex.split(HOOK["entry"])
    assert entry[0] == "mxjob"
    command = [sys.executable, "-m", "mxjob_gitops", *entry[1:], *chosen]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)


def test_the_hook_needs_no_exclude_of_its_own() -> None:
    assert "exclude" not in HOOK and HOOK["require_serial"] is True


@pytest.mark.parametrize("exclude", [None, r"^rendered/", r"^\.github/"])
def test_the_recommended_layout_passes(layout: Path, exclude: str | None) -> None:
    done = _hook(layout, exclude)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kustomize/overlays/prod: a kustomization, skipped" in done.stderr
    assert "give `-k kustomize/overlays/prod`" in done.stderr


def test_a_stale_committed_rendering_fails_it(layout: Path) -> None:
    spec = layout / "jobs" / "mx_job_dist_gpu.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2"), encoding="utf-8")
    done = _hook(layout)
    assert done.returncode == 1
    assert "this committed rendering is stale" in done.stdout and "mxjob render -o rendered" in done.stdout


def test_only_kustomization_files_changed_passes(layout: Path) -> None:
    result = run_cli(["validate", "--skip-non-kubernetes", "kustomize/overlays/prod/kustomization.yaml"], cwd=layout)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "a kustomization, skipped" in result.stderr


def test_the_docs_show_the_hook_as_it_is() -> None:
    text = (REPO / "docs" / "validate.md").read_text(encoding="utf-8")
    section = text[text.index("## pre-commit") :]
    config = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    [hook] = config["repos"][0]["hooks"]
    assert hook == {"id": HOOK["id"]}  # no exclude needed
    assert HOOK["entry"] in section


def test_validate_and_render_agree_on_the_specs(layout: Path) -> None:
    assert run_cli(["validate", "jobs"], cwd=layout).exit_code == run_cli(["render", "jobs"], cwd=layout).exit_code == 0
    spec = layout / "jobs" / "mx_job_dist_gpu.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("replicas: 1", "replicas: 2", 1), encoding="utf-8")
    checked, rendered = run_cli(["validate", "jobs"], cwd=layout), run_cli(["render", "jobs"], cwd=layout)
    assert checked.exit_code == rendered.exit_code == 1
    codes = sorted(re.findall(r"error (MXJ\d+)", checked.stdout))
    assert codes and codes == sorted(re.findall(r"error (MXJ\d+)", rendered.stderr))
