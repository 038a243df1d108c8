"""Budgets for what is cheap to write (docs/limits.md): documents per run, diagnostics printed, directory depth
and MXJobs rewritten by `convert --in-place`, each attacked through every command that reads input, in a child
process that must refuse it fast, located, with exit 1 or 2 (never 3)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mxjob_gitops.compiler.base.limits import MAX_DIRECTORY_DEPTH, MAX_IN_PLACE_JOBS, MAX_RUN_DOCUMENTS
from mxjob_gitops.compiler.base.printcap import MAX_PRINTED_DIAGNOSTICS
from tests.attack import run_child
from tests.conftest import run_cli
from tests.helpers import git, init_repo, job, replica

DASHES = "---\n" * 4_000_000  # 16 MB: 4 million empty documents
EMPTY_MAPPINGS = "{}\n---\n" * (MAX_RUN_DOCUMENTS // 2)  # under the document budget, one finding each
LOCATED = re.compile(r"^\S+:\d+:\d+: error MXJ008", re.MULTILINE)


@pytest.fixture(scope="module")
def dashes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dashes")
    (folder / "dashes.yaml").write_text(DASHES)
    return folder


COMMANDS = {
    "render": ["render", "dashes.yaml"],
    "validate": ["validate", "dashes.yaml"],
    "convert": ["convert", "dashes.yaml"],
    "convert --in-place": ["convert", "--in-place", "dashes.yaml"],
    "diff": ["diff", "dashes.yaml", "dashes.yaml"],
}


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_sixteen_megabytes_of_document_markers_are_refused_fast_and_located(dashes: Path, args: list[str]) -> None:
    refusal = run_child(args, dashes)
    assert refusal.exit_code in (1, 2), refusal.stderr[-2000:]
    said = refusal.stdout.decode() if args[0] == "validate" else refusal.stderr  # validate's report is its product
    assert refusal.stdout == b"" or args[0] == "validate" or b"# not compared" in refusal.stdout  # diff's report
    assert f"more than {MAX_RUN_DOCUMENTS:,} documents in this run" in said
    assert re.search(rf"dashes\.yaml:{MAX_RUN_DOCUMENTS}:1: error MXJ008", said), said[:2000]
    assert refusal.seconds < 2.0 and refusal.peak_mb < 250, (refusal.seconds, refusal.peak_mb)


def test_krm_refuses_the_markers_fast(tmp_path: Path) -> None:
    refusal = run_child(["krm"], tmp_path, stdin=DASHES.encode())
    assert refusal.exit_code == 1
    assert f"more than {MAX_RUN_DOCUMENTS:,} documents" in refusal.stdout.decode()
    assert refusal.seconds < 2.0 and refusal.peak_mb < 250


def test_diff_of_git_revisions_counts_both_sides_in_one_budget(tmp_path: Path) -> None:
    """Each side alone is under the budget; the run (old and new together) is not."""
    init_repo(tmp_path)
    half = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" + "---\n" * (MAX_RUN_DOCUMENTS * 3 // 5)
    (tmp_path / "a.yaml").write_text(half)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    (tmp_path / "a.yaml").write_text(half + "---\n")
    refusal = run_child(["diff", "--base", "HEAD", "a.yaml"], tmp_path)
    assert refusal.exit_code == 2, refusal.stderr[-2000:]
    assert f"more than {MAX_RUN_DOCUMENTS:,} documents in this run" in refusal.stderr
    assert LOCATED.search(refusal.stderr)
    assert refusal.seconds < 20


LIST_HEAD = {
    "render": "apiVersion: v1\nkind: List\n",
    "krm": "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n",
}


@pytest.mark.parametrize("command", ["render", "krm"])
def test_the_items_of_a_list_count_as_documents(tmp_path: Path, command: str) -> None:
    """400,000 `{}` items in one List took 37 s and printed 400,000 findings (krm: 83 MB of results)."""
    text = LIST_HEAD[command] + "items:\n" + "- {}\n" * 400_000
    (tmp_path / "l.yaml").write_text(text)
    refusal = run_child([command, *([] if command == "krm" else ["l.yaml"])], tmp_path, stdin=text.encode())
    said = refusal.stdout.decode() if command == "krm" else refusal.stderr
    assert refusal.exit_code == 1
    assert f":{MAX_RUN_DOCUMENTS + 4}:3: " in said and "the items of Lists counted as documents" in said, said[:3000]
    assert len(said) < 10_000
    assert refusal.seconds < 10 and refusal.peak_mb < 400


def test_documents_are_counted_across_files(tmp_path: Path) -> None:
    for name in "ab":
        (tmp_path / f"{name}.yaml").write_text("---\n" * (MAX_RUN_DOCUMENTS * 3 // 5))
    result = run_cli(["render", "."], cwd=tmp_path)
    assert result.exit_code == 1
    assert re.search(rf"b\.yaml:\d+:1: error MXJ008: more than {MAX_RUN_DOCUMENTS:,} documents", result.stderr)
    assert "a.yaml" not in result.stderr


@pytest.mark.parametrize("command", ["render", "convert", "validate"])
def test_printed_diagnostics_are_capped_with_one_line_for_the_rest(tmp_path: Path, command: str) -> None:
    (tmp_path / "m.yaml").write_text(EMPTY_MAPPINGS)
    refusal = run_child([command, "m.yaml"], tmp_path)
    assert refusal.exit_code == 1
    text = refusal.stderr if command != "validate" else refusal.stdout.decode()
    lines = text.splitlines()
    assert sum(": error MXJ004: " in line for line in lines) == MAX_PRINTED_DIAGNOSTICS
    more = MAX_RUN_DOCUMENTS // 2 - MAX_PRINTED_DIAGNOSTICS
    assert f"mxjob: {more:,} more diagnostics not shown (the first {MAX_PRINTED_DIAGNOSTICS:,} are; -v shows" in text
    assert len(text) < 400_000
    assert refusal.seconds < 8


def test_verbose_prints_every_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("{}\n---\n" * (MAX_PRINTED_DIAGNOSTICS + 5))
    result = run_cli(["render", "-v", "m.yaml"], cwd=tmp_path)
    assert result.stderr.count(": error MXJ004: ") == MAX_PRINTED_DIAGNOSTICS + 5
    assert "not shown" not in result.stderr


@pytest.fixture
def deep_trees() -> Iterator[list[Path]]:
    """Trees made by _deep, removed level by level after the test (shutil.rmtree, as pytest's own clean-up of
    tmp_path, recurses once per level)."""
    made: list[Path] = []
    yield made
    for root in made:
        levels = [root]
        while (levels[-1] / "a").is_dir():
            levels.append(levels[-1] / "a")
        for level in reversed(levels):
            for entry in level.iterdir():
                if not entry.is_dir():
                    entry.unlink()
            level.rmdir()


def _deep(root: Path, levels: int, made: list[Path]) -> None:
    """A job file `levels` directories below root/a... (made level by level: os.makedirs recurses too)."""
    here = os.getcwd()
    os.chdir(root)
    made.append(root / "a")
    try:
        for _ in range(levels):
            os.mkdir("a")
            os.chdir("a")
        Path("job.json").write_text(json.dumps(job(Worker=replica(1))))
    finally:
        os.chdir(here)


DEEP_COMMANDS = {
    "render": ["render", "tree"],
    "validate": ["validate", "tree"],
    "convert": ["convert", "tree"],
    "convert --in-place": ["convert", "--in-place", "tree"],
    "diff": ["diff", "tree", "tree"],
}


@pytest.mark.parametrize("args", DEEP_COMMANDS.values(), ids=DEEP_COMMANDS.keys())
def test_a_directory_1000_levels_deep_is_a_located_refusal(
    tmp_path: Path, args: list[str], deep_trees: list[Path]
) -> None:
    (tmp_path / "tree").mkdir()
    _deep(tmp_path / "tree", 1000, deep_trees)
    refusal = run_child(args, tmp_path)
    assert refusal.exit_code == 2, refusal.stderr[-3000:]
    assert "Traceback" not in refusal.stderr and "RecursionError" not in refusal.stderr
    assert f"directories nest deeper than {MAX_DIRECTORY_DEPTH} levels below tree" in refusal.stderr
    assert re.search(rf"mxjob: tree(/a){{{MAX_DIRECTORY_DEPTH + 1}}}: ", refusal.stderr), refusal.stderr[:500]
    assert refusal.seconds < 2


def test_a_directory_at_the_depth_limit_is_read(tmp_path: Path, deep_trees: list[Path]) -> None:
    (tmp_path / "tree").mkdir()
    _deep(tmp_path / "tree", MAX_DIRECTORY_DEPTH, deep_trees)
    result = run_cli(["render", "tree"], cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert "kind: Pod" in result.stdout


def test_git_revisions_refuse_a_tree_too_deep(tmp_path: Path, deep_trees: list[Path]) -> None:
    init_repo(tmp_path)
    (tmp_path / "tree").mkdir()
    _deep(tmp_path / "tree", MAX_DIRECTORY_DEPTH + 1, deep_trees)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "deep")
    refusal = run_child(["diff", "--base", "HEAD", "--head", "HEAD", "tree"], tmp_path)
    assert refusal.exit_code == 2, refusal.stderr[-2000:]
    assert f"HEAD:tree{'/a' * (MAX_DIRECTORY_DEPTH + 1)}/job.json: directories nest deeper than" in refusal.stderr


OLD_JOB = json.dumps(
    {**job(Worker=replica(1), Scheduler=replica(1), Server=replica(1)), "apiVersion": "kubeflow.org/v1beta1"}
)


def test_convert_in_place_keeps_the_documents_it_does_not_change_and_is_fast(tmp_path: Path) -> None:
    config_maps = "".join(
        f"---\n# map {i}\napiVersion:   v1\nkind: ConfigMap\nmetadata: {{name: 'cm-{i}'}}\ndata:\n    k: \"v{i}\"\n"
        for i in range(3000)
    )
    text = "# the job\n" + OLD_JOB + "\n" + config_maps
    (tmp_path / "f.yaml").write_text(text)
    refusal = run_child(["convert", "--in-place", "f.yaml"], tmp_path)
    assert refusal.exit_code == 0, refusal.stderr[-2000:]
    assert refusal.seconds < 3
    written = (tmp_path / "f.yaml").read_text()
    assert written.endswith(config_maps)  # byte for byte
    assert written.startswith("# the job\n") and "kubeflow.org/v1beta1" not in written


def test_convert_in_place_refuses_more_jobs_than_its_budget_before_rewriting_any(tmp_path: Path) -> None:
    text = "".join(f"---\n{OLD_JOB.replace('mxnet-job', f'job-{i}')}\n" for i in range(MAX_IN_PLACE_JOBS + 1))
    (tmp_path / "f.yaml").write_text(text)
    refusal = run_child(["convert", "--in-place", "f.yaml"], tmp_path)
    assert refusal.exit_code == 1
    assert f"f.yaml:{2 * MAX_IN_PLACE_JOBS + 2}:1: error MXJ008" in refusal.stderr
    assert f"at most {MAX_IN_PLACE_JOBS:,} MXJobs per run" in refusal.stderr
    assert (tmp_path / "f.yaml").read_text() == text
    assert refusal.seconds < 10


@pytest.mark.parametrize("fmt", ["json", "junit", "tap", "github"])
def test_every_validate_format_caps_its_input_findings(tmp_path: Path, fmt: str) -> None:
    count = MAX_PRINTED_DIAGNOSTICS + 250
    (tmp_path / "m.yaml").write_text("{}\n---\n" * count)
    result = run_cli(["validate", "--format", fmt, "m.yaml"], cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stdout.count("MXJ004") == MAX_PRINTED_DIAGNOSTICS, fmt
    if fmt == "json":
        report = json.loads(result.stdout)
        assert report["summary"]["diagnosticsNotShown"] == 250 and report["summary"]["inputErrors"] == count
    else:
        assert "mxjob: 250 more diagnostics not shown" in result.stdout
