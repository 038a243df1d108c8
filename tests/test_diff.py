"""`mxjob diff`: identity matching, keyed lists, Git revisions, reporters, comment limits, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from mxjob_gitops.compiler.diff.changes import ObjectStatus, diff_manifests
from tests.conftest import EXAMPLES, REPO, run_cli
from tests.helpers import container, git, init_repo, job, render, replica


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    init_repo(tmp_path)
    (tmp_path / "jobs").mkdir()
    spec = job(name="mnist", Scheduler=replica(1), Server=replica(1), Worker=replica(2))
    spec["metadata"]["namespace"] = "ml"
    (tmp_path / "jobs" / "mnist.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    (tmp_path / "jobs" / "other.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "settings", "namespace": "ml"},
                "data": {"a": "1"},
            }
        ),
        encoding="utf-8",
    )
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "two workers")
    spec["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = 3
    (tmp_path / "jobs" / "mnist.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    git(tmp_path, "commit", "-qam", "three workers")
    return tmp_path


def test_worker_count_change_between_commits(repo: Path) -> None:
    result = run_cli(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown", "jobs"], cwd=repo)
    assert result.exit_code == 1, result.stderr
    comment = result.stdout
    assert "| `ml/mnist` | 1 Pod, 1 Service |  | 1 ConfigMap, 1 MXJob, 4 Pods |" in comment
    assert "**8 objects differ**: 2 added, 0 removed, 6 modified; 4 pods will be replaced" in comment
    assert "#### Pod `ml/mnist-worker-2` · added" in comment
    for pod in ("mnist-scheduler-0", "mnist-server-0", "mnist-worker-0", "mnist-worker-1"):
        assert f"#### Pod `ml/{pod}` · modified" in comment
    assert "DMLC_NUM_WORKER" in comment and "MX_CONFIG" in comment
    assert "ConfigMap `ml/settings`" not in comment


def test_working_tree_is_the_default_head_and_stays_untouched(repo: Path) -> None:
    (repo / "jobs" / "other.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "settings", "namespace": "ml"},
                "data": {"a": "2"},
            }
        ),
        encoding="utf-8",
    )
    before = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    result = run_cli(["diff", "--base", "HEAD", "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 1
    assert result.stdout == "~ ConfigMap ml/settings modified\n"
    after = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    assert before == after


def test_unknown_revision_is_an_error(repo: Path) -> None:
    result = run_cli(["diff", "--base", "no-such-ref", "jobs"], cwd=repo)
    assert result.exit_code == 2
    assert result.stdout == "" and "git" in result.stderr


def test_reordering_documents_or_swapping_containers_is_no_difference(tmp_path: Path) -> None:
    first = job(name="s", Worker=replica(1, [container("mxnet", "a"), container("log", "b")]))
    second = job(name="s", Worker=replica(1, [container("log", "b"), container("mxnet", "a")]))
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    (tmp_path / "old.yaml").write_text(yaml.safe_dump_all([first, other]), encoding="utf-8")
    (tmp_path / "new.yaml").write_text(yaml.safe_dump_all([other, second]), encoding="utf-8")
    result = run_cli(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.exit_code == 0, result.stdout
    assert "order of spec.containers changed (not a difference): mxnet, log -> log, mxnet" in result.stdout


def test_swapping_two_args_is_a_difference(tmp_path: Path) -> None:
    for name, args in (("old", ["--lr", "1", "--epochs", "2"]), ("new", ["--lr", "2", "--epochs", "1"])):
        spec = job(name="a", Worker=replica(1, [container(args=args)]))
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    result = run_cli(["diff", "--format", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.exit_code == 1
    pod = next(o for o in json.loads(result.stdout)["objects"] if o["kind"] == "Pod")
    assert pod["replace"] is True
    assert [(c["path"], c["old"], c["new"]) for c in pod["changes"]] == [
        ("spec.containers[mxnet].args[1]", "1", "2"),
        ("spec.containers[mxnet].args[3]", "2", "1"),
    ]
    assert run_cli(["diff", "--exit-zero", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]).exit_code == 0


def test_env_order_matters() -> None:
    env_a = [{"name": "A", "value": "1"}, {"name": "B", "value": "$(A)"}]
    old = render(job(name="e", Worker=replica(1, [container(env=env_a)])))
    new = render(job(name="e", Worker=replica(1, [container(env=env_a[::-1])])))
    pod = next(c for c in diff_manifests(old, new) if c.kind == "Pod")
    assert pod.status is ObjectStatus.MODIFIED


def test_secret_values_are_masked_but_changes_reported() -> None:
    def secret(value: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"token": value}}

    changes = diff_manifests([secret("c2VjcmV0MQ==")], [secret("c2VjcmV0Mg==")])
    assert [c.status for c in changes] == [ObjectStatus.MODIFIED]
    from mxjob_gitops.compiler.report.diff import unified

    text = "\n".join(unified(changes[0], 3))
    assert "c2VjcmV0" not in text
    assert "-  token: '***'" in text and "+  token: '*** (changed)'" in text


def test_ignore_paths_kinds_and_defaults(tmp_path: Path) -> None:
    old = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "uid": "1", "annotations": {"team": "a"}},
        "data": {"k": "1"},
    }
    new = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "uid": "2", "annotations": {"team": "b"}},
        "data": {"k": "1"},
    }
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(old), encoding="utf-8")
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(new), encoding="utf-8")
    paths = [str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]
    assert run_cli(["diff", *paths]).exit_code == 1
    assert run_cli(["diff", "--ignore-path", "/metadata/annotations/team", *paths]).exit_code == 0
    assert run_cli(["diff", "--ignore-path", "/metadata/**", *paths]).exit_code == 0
    assert run_cli(["diff", "--ignore-kind", "ConfigMap", *paths]).exit_code == 0
    only_uid = run_cli(["diff", "--ignore-path", "/metadata/annotations/*", "--format", "brief", *paths])
    assert only_uid.exit_code == 0
    shown = run_cli(["diff", "--no-default-ignores", "--ignore-path", "/metadata/annotations/*", *paths])
    assert shown.exit_code == 1 and "uid" in shown.stdout
    assert run_cli(["diff", "--ignore-path", "metadata", *paths]).exit_code == 2


def test_rendered_manifests_can_be_compared(tmp_path: Path) -> None:
    for side, workers in (("old", 2), ("new", 3)):
        spec = job(name="r", Scheduler=replica(1), Server=replica(1), Worker=replica(workers))
        (tmp_path / f"{side}.json").write_text(json.dumps(spec), encoding="utf-8")
        assert run_cli(["render", "-o", str(tmp_path / side), str(tmp_path / f"{side}.json")]).exit_code == 0
    rendered = run_cli(["diff", "--format", "brief", str(tmp_path / "old"), str(tmp_path / "new")])
    from_specs = run_cli(["diff", "--format", "brief", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    assert rendered.exit_code == 1
    assert rendered.stdout == from_specs.stdout


def _big_change(tmp_path: Path, workers: int) -> list[str]:
    for side, image in (("old", "mxnet:1.8"), ("new", "mxnet:1.9")):
        worker = replica(workers, [container(image=image)])
        spec = job(name="big", Scheduler=replica(1), Server=replica(1), Worker=worker)
        (tmp_path / f"{side}.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    return [str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")]


def _check_comment(text: str) -> None:
    assert len(text) <= 65_536
    fences = re.findall(r"^(`{3,})(diff)?$", text, flags=re.MULTILINE)
    assert len(fences) % 2 == 0
    assert [f for f, lang in fences[0::2] if lang != "diff"] == []
    assert text.count("<details>") == text.count("</details>")


def test_a_300_worker_change_fits_in_comments(tmp_path: Path) -> None:
    paths = _big_change(tmp_path, 300)
    single = run_cli(["diff", "--format", "markdown", *paths])
    assert single.exit_code == 1
    _check_comment(single.stdout)
    assert "more objects did not fit in one comment" in single.stdout
    split = run_cli(["diff", "--format", "markdown", "--split", str(tmp_path / "parts"), *paths])
    assert split.exit_code == 1
    parts = sorted((tmp_path / "parts").glob("part-*.md"), key=lambda p: int(p.name.split("-")[1]))
    assert len(parts) > 1
    shown = 0
    for part in parts:
        text = part.read_text(encoding="utf-8")
        _check_comment(text)
        shown += text.count("\n#### ")
    assert shown == 301  # the MXJob and the 300 worker pods; the ConfigMap does not change with the image
    summary = run_cli(["diff", "--format", "markdown", "--summary-only", *paths]).stdout
    assert "#### " not in summary and "| `big` |" in summary


def test_json_output_matches_its_schema(repo: Path) -> None:
    result = run_cli(["diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json", "jobs"], cwd=repo)
    document = json.loads(result.stdout)
    schema = json.loads((REPO / "schemas" / "diff-v1.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert list(Draft202012Validator(schema).iter_errors(document)) == []
    assert document["summary"]["jobs"] == [
        {
            "job": "ml/mnist",
            "replaced": 4,
            "added": {"Pod": 1, "Service": 1},
            "modified": {"ConfigMap": 1, "MXJob": 1, "Pod": 4},
        }
    ]


def test_text_colour_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _big_change(tmp_path, 1)
    assert "\033[" not in run_cli(["diff", *paths]).stdout
    assert "\033[32m" in run_cli(["diff", "--color", "always", *paths]).stdout
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\033[" not in run_cli(["diff", "--color", "auto", *paths]).stdout


def test_usage_errors() -> None:
    assert run_cli(["diff", str(EXAMPLES / "train")]).exit_code == 2
    assert run_cli(["diff"]).exit_code == 2


@pytest.mark.parametrize(("fmt", "summary"), [("text", ": 1 object differs\n"), ("markdown", "**1 object differs**")])
def test_one_difference_is_worded_in_the_singular(repo: Path, fmt: str, summary: str) -> None:
    settings = repo / "jobs" / "other.yaml"
    settings.write_text(settings.read_text(encoding="utf-8").replace("a: '1'", "a: '2'"), encoding="utf-8")
    result = run_cli(["diff", "--base", "HEAD", "--format", fmt, "jobs/other.yaml"], cwd=repo)
    assert result.exit_code == 1, result.stderr
    assert summary in result.stdout
