"""A repository with MXJob specs and a committed `render -o` directory, read in one run: render, validate and diff
give the same verdict through every entry point (a walked directory, named files as pre-commit passes them, -f,
standard input, Git revisions). The committed rendering is checked on its own; what it shares with the specs must
be their rendering (else MXJ210, stale) and is counted once; its other objects are read like any input (io.units).
And `diff` with an invalid side prints what it could compare, names the files it left out, then exits 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli
from tests.helpers import git, init_repo

SPECS = ("train/mx_job_dist_gpu.yaml", "single/mx_job_single_worker.yaml")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "gitops"
    (root / "jobs").mkdir(parents=True)
    init_repo(root)
    for name in SPECS:
        shutil.copy(EXAMPLES / name, root / "jobs" / Path(name).name)
    assert run_cli(["render", "-q", "-o", "rendered", "jobs"], cwd=root).exit_code == 0
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "specs and their rendering")
    return root


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml") if p.name != "kustomization.yaml")


def _verdicts(root: Path) -> dict[str, int]:
    """The exit code of every command and entry point on the whole repository."""
    named = _files(root)
    return {
        "render .": run_cli(["render", "."], cwd=root).exit_code,
        "validate .": run_cli(["validate", "."], cwd=root).exit_code,
        "render FILES": run_cli(["render", *named], cwd=root).exit_code,
        "validate FILES": run_cli(["validate", "--skip-non-kubernetes", *named], cwd=root).exit_code,
        "render -f": run_cli(["render", "-f", "jobs", "-f", "rendered"], cwd=root).exit_code,
        "validate -f": run_cli(["validate", "-f", "jobs", "-f", "rendered"], cwd=root).exit_code,
    }


def _stale(root: Path) -> None:
    spec = root / "jobs" / "mx_job_dist_gpu.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2"), encoding="utf-8")


def test_a_fresh_rendering_passes_every_command(repo: Path) -> None:
    assert set(_verdicts(repo).values()) == {0}
    result = run_cli(["render", "."], cwd=repo)
    rendered = [m for m in yaml.safe_load_all(result.stdout) if m]
    keys = [(m["kind"], m["metadata"]["name"]) for m in rendered]
    assert len(keys) == len(set(keys)) == len(list((repo / "rendered").glob("*.yaml"))) - 1  # each object once
    assert "rendered holds the output of an earlier `mxjob render -o`: it is checked on its own" in result.stderr
    assert result.stdout == run_cli(["render", "jobs"], cwd=repo).stdout
    diff = run_cli(["diff", "--base", "HEAD", "."], cwd=repo)
    assert diff.exit_code == 0 and "0 objects differ" in diff.stdout, diff.stderr


def test_a_stale_rendering_fails_every_command_alike(repo: Path) -> None:
    _stale(repo)
    verdicts = _verdicts(repo)
    assert set(verdicts.values()) == {1}, verdicts
    for args in (["render", "."], ["validate", "."]):
        result = run_cli(args, cwd=repo)
        assert "this committed rendering is stale" in result.stdout + result.stderr
        assert "mxjob render -o rendered" in result.stdout + result.stderr
    diff = run_cli(["diff", "--base", "HEAD", "--format", "json", "."], cwd=repo)
    assert diff.exit_code == 2 and "this committed rendering is stale" in diff.stderr
    assert json.loads(diff.stdout)["notCompared"]  # the report is printed all the same
    assert run_cli(["render", "-q", "-o", "rendered", "jobs"], cwd=repo).exit_code == 0  # the fix it names
    assert set(_verdicts(repo).values()) == {0}


def test_an_object_only_the_rendering_holds_is_read_once_by_all(repo: Path) -> None:
    extra = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: only-here, namespace: default}\ndata: {a: b}\n"
    (repo / "rendered" / "configmap-only-here.yaml").write_text(extra, encoding="utf-8")
    assert set(_verdicts(repo).values()) == {0}
    rendered = [m for m in yaml.safe_load_all(run_cli(["render", "."], cwd=repo).stdout) if m]
    assert [m["metadata"]["name"] for m in rendered].count("only-here") == 1
    diff = run_cli(["diff", "--base", "HEAD", "--format", "brief", "."], cwd=repo)
    assert diff.exit_code == 1 and "+ ConfigMap default/only-here added" in diff.stdout, diff.stdout + diff.stderr


def test_standard_input_reads_one_stream_alike(repo: Path) -> None:
    """On stdin nothing tells a rendering from specs: both commands read one stream, and agree on it."""
    rendering = "".join(
        "---\n" + p.read_text(encoding="utf-8")
        for p in sorted((repo / "rendered").glob("*.yaml"))
        if p.name != "kustomization.yaml"
    )
    specs = "".join("---\n" + (repo / "jobs" / Path(n).name).read_text(encoding="utf-8") for n in SPECS)
    for text, code in [(rendering, 0), (specs, 0), (specs + rendering, 1)]:
        assert run_cli(["render", "-"], stdin=text).exit_code == code
        assert run_cli(["validate", "-"], stdin=text).exit_code == code
    again = run_cli(["render", "-"], stdin=run_cli(["render", "-"], stdin=specs).stdout)
    assert again.exit_code == 0 and again.stdout == run_cli(["render", "-"], stdin=specs).stdout  # idempotent


def test_git_mode_reads_the_rendering_as_the_work_tree_does(repo: Path) -> None:
    _stale(repo)
    assert run_cli(["render", "-q", "-o", "rendered", "jobs"], cwd=repo).exit_code == 0
    git(repo, "commit", "-q", "-am", "new image")
    for args in (["--base", "HEAD~1", "--head", "HEAD"], ["--base", "HEAD~1"]):
        diff = run_cli(["diff", *args, "--format", "brief", "."], cwd=repo)
        assert diff.exit_code == 1, diff.stdout + diff.stderr
        assert diff.stdout.count("modified") == 4 and "MXJ210" not in diff.stderr  # the job's 3 pods and itself


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_diff_with_an_invalid_side_prints_what_it_compared_then_exits_2(repo: Path, fmt: str) -> None:
    (repo / "jobs" / "bad.yaml").write_text(
        "apiVersion: kubeflow.org/v1\nkind: MXJob\nmetadata: {name: bad}\nspec: {mxReplicaSpecs: {Worker: {}}}\n",
        encoding="utf-8",
    )
    spec = repo / "jobs" / "mx_job_single_worker.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("mnist-single", "mnist-renamed"), encoding="utf-8")
    result = run_cli(["diff", "--base", "HEAD", "--format", fmt, "jobs"], cwd=repo)
    assert result.exit_code == 2
    assert "jobs/bad.yaml:4:" in result.stderr and "1 file(s) with errors were not compared" in result.stderr
    if fmt == "json":
        report = json.loads(result.stdout)
        assert report["notCompared"] == ["jobs/bad.yaml"] and report["invalid"][0]["file"] == "jobs/bad.yaml"
        assert report["summary"]["added"] == report["summary"]["removed"] == 4  # the renamed job, compared
    elif fmt == "markdown":
        assert "**Not compared: 1 file(s) with errors**" in result.stdout and "`jobs/bad.yaml`" in result.stdout
        assert "**8 objects differ**" in result.stdout
    else:
        assert "# not compared (errors in it, on stderr): jobs/bad.yaml" in result.stdout
        assert "8 objects differ" in result.stdout


def test_a_file_invalid_on_one_side_is_not_shown_as_removed(repo: Path) -> None:
    spec = repo / "jobs" / "mx_job_dist_gpu.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("jobMode: MXTrain", "jobMode: 7"), encoding="utf-8")
    result = run_cli(["diff", "--base", "HEAD", "--format", "brief", "jobs"], cwd=repo)
    assert result.exit_code == 2
    assert result.stdout == "! jobs/mx_job_dist_gpu.yaml not compared (errors in it)\n"


def test_a_sharded_rendering_counts_as_one_render_o_directory(repo: Path) -> None:
    """`render -o DIR --shard-size N` puts the files in shard directories below DIR: they count with DIR."""
    shutil.rmtree(repo / "rendered")
    assert run_cli(["render", "-q", "-o", "rendered", "--shard-size", "1", "jobs"], cwd=repo).exit_code == 0
    assert set(_verdicts(repo).values()) == {0}
    assert run_cli(["render", "."], cwd=repo).stdout == run_cli(["render", "jobs"], cwd=repo).stdout
    _stale(repo)
    verdicts = _verdicts(repo)
    assert set(verdicts.values()) == {1}, verdicts
