"""`-k DIR` on render, validate, convert and diff: the real kustomize builds the kustomization and what it builds
is the input, on the working tree and on each side of a Git diff; a kustomization given as a plain PATH is never
read raw in silence."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli
from tests.helpers import git, init_repo
from tests.kustomizetool import kustomize

__all__ = ["kustomize"]  # the fixture

PROD = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ml
resources:
- ../../base
images:
- name: registry.example.com/ml/imagenet-train
  newTag: "1.4"
"""


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """A GitOps repository as teams lay it out: a kustomize base and a prod overlay, committed on main."""
    root = tmp_path / "gitops"
    (root / "jobs" / "overlays" / "prod").mkdir(parents=True)
    init_repo(root)
    base = root / "jobs" / "base"
    base.mkdir()
    for name in ("kustomization.yaml", "mxjob.yaml"):
        (base / name).write_text((EXAMPLES / "kustomize" / "base" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (root / "jobs" / "overlays" / "prod" / "kustomization.yaml").write_text(PROD, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "prod at 1.4")
    return root


def _bump(root: Path) -> None:
    overlay = root / "jobs" / "overlays" / "prod" / "kustomization.yaml"
    overlay.write_text(PROD.replace('"1.4"', '"1.5"'), encoding="utf-8")


def test_render_k_is_what_kustomize_builds_piped_in(layout: Path, kustomize: list[str]) -> None:
    built = subprocess.run([*kustomize, "jobs/overlays/prod"], cwd=layout, capture_output=True, text=True, check=True)
    piped = run_cli(["render", "-"], cwd=layout, stdin=built.stdout)
    direct = run_cli(["render", "-k", "jobs/overlays/prod"], cwd=layout)
    assert direct.exit_code == 0, direct.stderr
    assert direct.stdout == piped.stdout
    images = {d["spec"]["containers"][0]["image"] for d in yaml.safe_load_all(direct.stdout) if d["kind"] == "Pod"}
    assert images == {"registry.example.com/ml/imagenet-train:1.4"}


def test_validate_and_convert_take_k(layout: Path, kustomize: list[str]) -> None:
    checked = run_cli(["validate", "--kustomize", "jobs/overlays/prod"], cwd=layout)
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    converted = run_cli(["convert", "-k", "jobs/overlays/prod"], cwd=layout)
    assert converted.exit_code == 0 and "namespace: ml" in converted.stdout


def test_an_overlay_given_as_a_path_is_refused_naming_k(layout: Path) -> None:
    result = run_cli(["render", "jobs/overlays/prod"], cwd=layout)
    assert result.exit_code == 2 and result.stdout == ""
    assert "give it as `-k jobs/overlays/prod`" in result.stderr


def test_a_tree_with_overlays_notes_each_one(layout: Path) -> None:
    result = run_cli(["render", "jobs"], cwd=layout)
    assert result.exit_code == 0, result.stderr
    assert "jobs/overlays/prod: a kustomization, skipped" in result.stderr
    assert "give `-k jobs/overlays/prod`" in result.stderr
    # the base only lists its own files: read raw it is what kustomize builds, nothing to say
    assert "jobs/base:" not in result.stderr


def test_a_render_o_directory_reads_raw(layout: Path) -> None:
    assert run_cli(["render", "-o", "rendered", "jobs/base"], cwd=layout).exit_code == 0
    again = run_cli(["validate", "rendered"], cwd=layout)
    assert again.exit_code == 0, again.stdout + again.stderr


def test_diff_base_k_shows_the_overlay_tag_change(layout: Path, kustomize: list[str]) -> None:
    _bump(layout)
    plain = run_cli(["diff", "--base", "main", "--format", "brief", "jobs/overlays/prod"], cwd=layout)
    assert plain.exit_code == 2 and "-k jobs/overlays/prod" in plain.stderr  # never "No differences."
    built = run_cli(["diff", "--base", "main", "--format", "brief", "-k", "jobs/overlays/prod"], cwd=layout)
    assert built.exit_code == 1, built.stderr
    assert "~ Pod ml/imagenet-worker-0 modified" in built.stdout
    git(layout, "commit", "-qam", "prod at 1.5")
    heads = run_cli(["diff", "--base", "main~1", "--head", "main", "-k", "jobs/overlays/prod"], cwd=layout)
    assert heads.exit_code == 1 and "imagenet-train:1.5" in heads.stdout
    same = run_cli(["diff", "--base", "main", "--head", "main", "-k", "jobs/overlays/prod"], cwd=layout)
    assert same.exit_code == 0, same.stdout + same.stderr


def test_an_overlay_added_by_the_change_is_all_new(layout: Path, kustomize: list[str]) -> None:
    dev = layout / "jobs" / "overlays" / "dev"
    dev.mkdir()
    (dev / "kustomization.yaml").write_text(PROD.replace("namespace: ml", "namespace: ml-dev"), encoding="utf-8")
    result = run_cli(["diff", "--base", "main", "--format", "brief", "-k", "jobs/overlays/dev"], cwd=layout)
    assert result.exit_code == 1, result.stderr
    assert "+ Pod ml-dev/imagenet-worker-0 added" in result.stdout


def test_a_failed_build_is_an_input_error(layout: Path, kustomize: list[str]) -> None:
    (layout / "jobs" / "overlays" / "prod" / "kustomization.yaml").write_text(
        PROD.replace("../../base", "../../nowhere"), encoding="utf-8"
    )
    result = run_cli(["render", "-k", "jobs/overlays/prod"], cwd=layout)
    assert result.exit_code == 2 and result.stdout == ""
    assert "jobs/overlays/prod: kustomize build failed" in result.stderr


def test_no_kustomize_is_a_clear_error(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MXJOB_KUSTOMIZE", raising=False)
    monkeypatch.setenv("PATH", str(layout / "empty"))
    result = run_cli(["render", "-k", "jobs/overlays/prod"], cwd=layout)
    assert result.exit_code == 2 and result.stdout == ""
    assert "kustomize, which is not installed" in result.stderr and "MXJOB_KUSTOMIZE" in result.stderr
    monkeypatch.setenv("MXJOB_KUSTOMIZE", "no-such-kustomize")
    named = run_cli(["render", "-k", "jobs/overlays/prod"], cwd=layout)
    assert named.exit_code == 2 and "MXJOB_KUSTOMIZE='no-such-kustomize'" in named.stderr
