"""Findings in what kustomize built are reported at the source file and line its `config.kubernetes.io/origin`
annotation names (kustomize `buildMetadata: [originAnnotations]`), in every report format, on the working tree
and on a Git revision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli
from tests.helpers import git, init_repo
from tests.kustomizetool import kustomize

__all__ = ["kustomize"]  # the fixture

OVERLAY = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ml
buildMetadata: [originAnnotations]
resources:
- ../../base
images:
- name: registry.example.com/ml/imagenet-train
  newTag: "1.5"
"""


@pytest.fixture
def broken(tmp_path: Path) -> tuple[Path, int]:
    """The layout with the base's worker restartPolicy misspelt; the line it is on."""
    root = tmp_path / "gitops"
    (root / "jobs" / "overlays" / "prod").mkdir(parents=True)
    (root / "jobs" / "base").mkdir()
    (root / "jobs" / "base" / "kustomization.yaml").write_text(
        (EXAMPLES / "kustomize" / "base" / "kustomization.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    lines = (EXAMPLES / "kustomize" / "base" / "mxjob.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    worker = next(i for i, line in enumerate(lines) if line.strip() == "Worker:")
    at = next(i for i in range(worker, len(lines)) if "restartPolicy:" in lines[i])
    lines[at] = lines[at].split(":")[0] + ": Sometimes\n"
    (root / "jobs" / "base" / "mxjob.yaml").write_text("".join(lines), encoding="utf-8")
    (root / "jobs" / "overlays" / "prod" / "kustomization.yaml").write_text(OVERLAY, encoding="utf-8")
    return root, at + 1


def _column(root: Path, line: int) -> int:
    text = (root / "jobs" / "base" / "mxjob.yaml").read_text(encoding="utf-8").splitlines()[line - 1]
    return text.index("Sometimes") + 1


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("text", "jobs/base/mxjob.yaml:{line}:{col}: error MXJ103"),
        ("github", "::error file=jobs/base/mxjob.yaml,line={line},col={col},title=mxjob MXJ103::"),
        ("tap", "not ok 1 - jobs/base/mxjob.yaml:{line}:{col} MXJ103"),
        ("junit", '<testcase classname="jobs/base/mxjob.yaml" name="input">'),
    ],
)
def test_validate_reports_at_the_base_file(
    broken: tuple[Path, int], kustomize: list[str], fmt: str, expected: str
) -> None:
    root, line = broken
    result = run_cli(["validate", "--format", fmt, "-k", "jobs/overlays/prod"], cwd=root)
    assert result.exit_code == 1, result.stdout + result.stderr
    assert expected.format(line=line, col=_column(root, line)) in result.stdout, result.stdout
    assert "<kustomize build" not in result.stdout


def test_json_carries_the_base_file_and_line(broken: tuple[Path, int], kustomize: list[str]) -> None:
    root, line = broken
    report = json.loads(run_cli(["validate", "--format", "json", "-k", "jobs/overlays/prod"], cwd=root).stdout)
    [found] = [d for d in report["diagnostics"] if d["code"] == "MXJ103"]
    assert (found["file"], found["line"], found["column"]) == ("jobs/base/mxjob.yaml", line, _column(root, line))


def test_render_reports_at_the_base_file(broken: tuple[Path, int], kustomize: list[str]) -> None:
    root, line = broken
    result = run_cli(["render", "-k", "jobs/overlays/prod"], cwd=root)
    assert result.exit_code == 1 and result.stdout == ""
    assert f"jobs/base/mxjob.yaml:{line}:{_column(root, line)}: error MXJ103" in result.stderr


def test_without_origin_annotations_the_build_is_named(broken: tuple[Path, int], kustomize: list[str]) -> None:
    root, _ = broken
    overlay = root / "jobs" / "overlays" / "prod" / "kustomization.yaml"
    overlay.write_text(OVERLAY.replace("buildMetadata: [originAnnotations]\n", ""), encoding="utf-8")
    result = run_cli(["render", "-k", "jobs/overlays/prod"], cwd=root)
    assert result.exit_code == 1 and "<kustomize build jobs/overlays/prod>:" in result.stderr


def test_a_git_side_reports_at_the_revision_file(broken: tuple[Path, int], kustomize: list[str]) -> None:
    root, line = broken
    init_repo(root)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "broken")
    result = run_cli(["diff", "--base", "main", "-k", "jobs/overlays/prod"], cwd=root)
    assert result.exit_code == 2
    assert f"main:jobs/base/mxjob.yaml:{line}:{_column(root, line)}: error MXJ103" in result.stderr, result.stderr


def test_a_build_piped_in_is_located_too(broken: tuple[Path, int], kustomize: list[str]) -> None:
    """`kubectl kustomize DIR | mxjob render -`: the origin paths are resolved from the kustomizations below the
    working directory (all that find a file find the same base file)."""
    import subprocess

    root, line = broken
    built = subprocess.run([*kustomize, "jobs/overlays/prod"], cwd=root, capture_output=True, text=True, check=True)
    result = run_cli(["render", "--format", "json", "-"], cwd=root, stdin=built.stdout)
    assert result.exit_code == 1
    assert f"jobs/base/mxjob.yaml:{line}:{_column(root, line)}: error MXJ103" in result.stderr, result.stderr
    checked = run_cli(["validate", "--format", "github", "-"], cwd=root, stdin=built.stdout)
    assert f"::error file=jobs/base/mxjob.yaml,line={line}," in checked.stdout
    plain = run_cli(["render", "-"], cwd=root, stdin=built.stdout.replace("config.kubernetes.io/origin", "x/y"))
    assert "<stdin>:" in plain.stderr  # no annotation: the stream's own line
