"""What ships: the wheel carries the schemas; GitOps examples and the pre-commit hook are well-formed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from tests.conftest import EXAMPLES, REPO, run_cli


def test_wheel_contains_the_schemas(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir",
                           str(tmp_path), str(REPO)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    wheel = next(tmp_path.glob("mxjob_gitops-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in ("compiler/_schemas/kubeconform/kubeflow.org/mxjob_v1.json",
                     "compiler/_schemas/kubeconform/scheduling.volcano.sh/podgroup_v1beta1.json",
                     "compiler/_schemas/crd/kubeflow.org_mxjobs.yaml", "compiler/cli/main.py",
                     "reconciler/__init__.py"):
        assert expected in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "mxjob = compiler.cli.main:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_gitops_examples_parse_and_validate() -> None:
    files = sorted((EXAMPLES / "gitops").rglob("*.yaml"))
    assert len(files) >= 4
    for path in files:
        assert [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d], path
    manifests = [p for p in files if p.parent.name in ("argocd", "flux")]  # the rest are CI workflows
    for path in manifests:  # one by one: sources.yaml and oci.yaml are alternatives that define the same objects
        result = run_cli(["validate", str(path)])
        assert result.exit_code == 0, result.stdout


def test_pre_commit_hook_runs_validate() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hooks[0]["id"] == "mxjob-validate" and hooks[0]["entry"] == "mxjob validate"
