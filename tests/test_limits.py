"""Resource limits: YAML bombs, deep nesting, huge replica counts and oversized input are refused fast, located."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from mxjob_gitops.compiler.base.limits import DEFAULT_MAX_PODS, MAX_DEPTH, output_limit
from mxjob_gitops.compiler.io import inputs
from mxjob_gitops.compiler.render.options import RenderOptions
from tests.attack import run_child
from tests.conftest import run_cli
from tests.helpers import git, init_repo, job, replica

_LAUGHS = "".join(f"  {x}: &{x} [{', '.join([f'*{p}'] * 9)}]\n" for p, x in zip("abcdefgh", "bcdefghi", strict=True))
BILLION_LAUGHS = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n"
    '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + _LAUGHS
)
_MXJOB_HEAD = (
    "apiVersion: kubeflow.org/v1\nkind: MXJob\nmetadata: {name: j}\nspec:\n  jobMode: MXTrain\n  mxReplicaSpecs:\n"
)
_TEMPLATE = "template: {spec: {containers: [{name: mxnet, image: x}]}}"


def _replicas(**counts: int) -> str:
    return _MXJOB_HEAD + "".join(f"    {kind}: {{replicas: {n}, {_TEMPLATE}}}\n" for kind, n in counts.items())


ATTACKS = {
    "billion laughs ConfigMap": (BILLION_LAUGHS, r"11:6"),
    "billion laughs in an MXJob": (
        _MXJOB_HEAD + "    Worker:\n      replicas: 1\n      template:\n"
        "        metadata:\n          labels: {x: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]}\n"
        + _LAUGHS.replace("  ", "        ", 1).replace("\n  ", "\n        ")
        + "        spec: {containers: [{name: mxnet, image: x}]}\n",
        r"\d+:\d+",
    ),
    "recursive alias": ("a: &a [*a]\n", r"1:4"),
    "recursive mapping alias": ("apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: x, self: *m}\n", r"3:\d+"),
    "flow nesting 5000 deep": ("a: " + "[" * 5000 + "]" * 5000 + "\n", r"1:203: error MXJ008"),
    "block nesting 1000 deep": ("".join(" " * i + "- \n" for i in range(1000)), r"201:\d+: error MXJ008"),
    "1e8 workers": (_replicas(Scheduler=1, Server=1, Worker=100_000_000), r"9:\d+"),
    "2^31-1 servers": (_replicas(Scheduler=1, Server=2**31 - 1, Worker=1), r"8:\d+"),
    "many workers in total": (_replicas(Scheduler=1, Server=600, Worker=600), r"7:5"),
    "output past 512 MiB": (
        "---\n".join(
            _replicas(Scheduler=1, Server=1, Worker=998).replace("name: j}", f"name: j{i}}}") for i in range(30)
        ),
        r"10\d:5: error MXJ008",
    ),
    "TunerServer 881581": (
        _MXJOB_HEAD.replace("MXTrain", "MXTune")
        + f"    TunerServer: {{replicas: 881581, {_TEMPLATE}}}\n"
        + f"    Tuner: {{replicas: 1, {_TEMPLATE}}}\n"
        + f"    TunerTracker: {{replicas: 1, {_TEMPLATE}}}\n",
        r"7:\d+",
    ),
}


@pytest.mark.parametrize("command", ["render", "validate", "convert"])
@pytest.mark.parametrize(("text", "where"), ATTACKS.values(), ids=ATTACKS.keys())
def test_attacks_are_refused_fast_small_and_located(tmp_path: Path, command: str, text: str, where: str) -> None:
    (tmp_path / "in.yaml").write_text(text, encoding="utf-8")
    refusal = run_child([command, "in.yaml"], tmp_path)
    if command == "convert" and "replicas" in text and "&" not in text:
        assert refusal.exit_code == 0  # convert rewrites the spec as it is; render and validate judge its size
        return
    assert refusal.exit_code == 1, refusal.stderr
    assert "MXJ008" in refusal.stderr + refusal.stdout.decode()
    assert re.search(f"in.yaml:{where}", refusal.stderr + refusal.stdout.decode()), refusal.stderr
    assert refusal.seconds < 1.0 and refusal.peak_mb < 200, (refusal.seconds, refusal.peak_mb)
    if command != "validate":
        assert refusal.stdout == b""


def test_max_pods_raises_the_limit_and_is_recorded(tmp_path: Path) -> None:
    spec = tmp_path / "job.json"
    spec.write_text(
        json.dumps(job(name="j", Scheduler=replica(1), Server=replica(1), Worker=replica(1200))), encoding="utf-8"
    )
    assert run_cli(["render", str(spec)]).exit_code == 1
    result = run_cli(["render", "--max-pods", "1202", str(spec)])
    assert result.exit_code == 0, result.stderr
    assert "maxPods" in result.stdout  # recorded, so the reconciler renders the job with the same bound
    assert RenderOptions.from_record({"target": "plain", "maxPods": "1202"}).max_pods == 1202


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "many", ""])
def test_max_pods_must_be_a_positive_integer(value: str) -> None:
    result = run_cli(["render", "--max-pods", value, "-"], stdin="")
    assert result.exit_code == 2 and "--max-pods" in result.stderr


def test_output_limit_grows_with_the_square_of_max_pods() -> None:
    assert (
        output_limit(DEFAULT_MAX_PODS) == output_limit(1) < output_limit(10 * DEFAULT_MAX_PODS) == 100 * output_limit(1)
    )


def test_oversized_input_is_refused_before_it_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 1000)
    assert inputs.decode_limited(io.BytesIO(b"a" * 1000)) == "a" * 1000
    assert inputs.decode_limited(io.BytesIO(b"a" * 5000)) is inputs.Unreadable.TOO_LARGE
    result = run_cli(["render", "-"], stdin="a: b\n" * 300)
    assert result.exit_code == 1 and "<stdin>: error MXJ008" in result.stderr and result.stdout == ""


def test_nesting_at_the_limit_is_accepted() -> None:
    nested = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    document = f'{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "x"}}, "data": {{"a": "{nested}"}}}}'
    assert run_cli(["render", "-"], stdin=document).exit_code == 0


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # many small documents: each is bounded alone, none is scanned
        ("a: {}\n---\n" * 500, False),
        # a deep document after many shallow ones is still found, flow or block
        ("a: {}\n---\n" * 50 + "a: " + "[" * 300 + "]" * 300 + "\n", True),
        ("a: {}\n---\n" * 50 + "".join(" " * i + "- \n" for i in range(300)), True),
        # `---` at column 0 ends every collection (a syntax error in flow): nesting never spans it
        ("a: " + "[" * 150 + "\n---\n" + "]" * 150 + "\n", False),
    ],
)
def test_depth_is_bounded_per_document(text: str, found: bool) -> None:
    from mxjob_gitops.compiler.read.guards import depth_problem

    assert (depth_problem(text) is not None) == found


def test_a_document_marker_ends_flow_collections_and_quoted_scalars() -> None:
    """What the per-document depth bound relies on, checked against libyaml itself."""
    import yaml

    for text in ("[[\n---\n]]", 'a: "x\n---\ny"', "a: 'x\n---\ny'", "a: [1,\n--- \n2]"):
        with pytest.raises(yaml.YAMLError):
            list(yaml.load_all(text, Loader=yaml.CSafeLoader))


def test_a_huge_document_without_anchors_is_refused_in_bounded_time_and_memory(tmp_path: Path) -> None:
    """20 MB of `[0,0,...]` (ten million nodes): bounded only for anchored documents before, 3.3 GB and 69 s."""
    flat = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nx: [" + "0," * 10_000_000 + "0]\n"
    (tmp_path / "in.yaml").write_text(flat, encoding="utf-8")
    for command in ("render", "validate"):
        refusal = run_child([command, "in.yaml"], tmp_path)
        assert refusal.exit_code == 1 and "more than 1,000,000 nodes" in refusal.stderr + refusal.stdout.decode()
        assert re.search(r"in.yaml:4:\d+", refusal.stderr + refusal.stdout.decode()), refusal.stderr
        assert refusal.seconds < 10 and refusal.peak_mb < 300, (refusal.seconds, refusal.peak_mb)


def test_aliases_are_budgeted_across_the_whole_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each document within the per-document rule, together past the run's budget (one file or many)."""
    from mxjob_gitops.compiler.read import source

    document = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {a: &a x, b: *a, c: *a, d: *a}\n"
    (tmp_path / "one.yaml").write_text("---\n".join(document % i for i in range(5)), encoding="utf-8")
    for i in range(5):
        (tmp_path / f"many-{i}.yaml").write_text(document % (10 + i), encoding="utf-8")
    monkeypatch.setattr(source, "MAX_RUN_ALIAS_NODES", 12)  # three aliases a document: the fifth is over
    for paths in (["one.yaml"], [f"many-{i}.yaml" for i in range(5)]):
        result = run_cli(["validate", *paths], cwd=tmp_path)
        assert result.exit_code == 1 and "aliases in this run expand past 12 nodes" in result.stdout + result.stderr
    assert run_cli(["validate", "many-0.yaml"], cwd=tmp_path).exit_code == 0  # a new run starts a new budget


def test_the_run_reads_a_bounded_number_of_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mxjob_gitops.compiler.base import limits

    for i in range(4):
        (tmp_path / f"c{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n")
    monkeypatch.setattr(limits, "MAX_RUN_FILES", 3)
    for command in (["validate"], ["render"], ["diff", str(tmp_path)]):
        result = run_cli([*command, str(tmp_path)])
        assert result.exit_code == 2 and "more than 3 input files in one run" in result.stderr, result.stderr
        assert result.stdout == ""


def test_git_blobs_are_size_checked_before_they_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`diff --base` read every blob whole: 2 MB of packed .git expanded to 1.26 GB. Now sizes come first."""

    from mxjob_gitops.compiler.io import gitsource

    repo = tmp_path / "repo"
    (repo / "jobs").mkdir(parents=True)
    init_repo(repo)
    (repo / "jobs" / "big.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\n" + "#" * 5000)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "big")
    read: list[list[str]] = []
    original = gitsource._git

    def recording(args: list[str], repository: Path, stdin: bytes | None = None) -> bytes:
        read.append(list(args[:2]))
        return original(args, repository, stdin)

    monkeypatch.setattr(gitsource, "_git", recording)
    monkeypatch.setattr(gitsource, "MAX_INPUT_BYTES", 4096)
    result = run_cli(["diff", "--base", "HEAD", "--head", "HEAD", "jobs"], cwd=repo)
    assert result.exit_code == 2 and "HEAD:jobs/big.yaml: larger than 4,096 bytes" in result.stderr, result.stderr
    assert ["cat-file", "--batch"] not in read


@pytest.mark.parametrize(
    "text",
    [
        "a: [[[[[1]]]]]\n",
        "a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n",
        "---\na: [[[[[[1]]]]]]\n---\nb: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]\n",
        "---\nb: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]\n---\na: [[[[[[1]]]]]]\n",
        "a: [[[[[[1]]]]]]\nb: [1, 2\n",
        "a: 1\nb: [1, 2\n",
        "a: [1, 2]\n" + "x" * 40 + ": 1\n",
    ],
)
def test_one_pass_finds_what_the_two_checks_find(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from mxjob_gitops.compiler.read import guards

    monkeypatch.setattr(guards, "MAX_DEPTH", 4)
    monkeypatch.setattr(guards, "MAX_DOCUMENT_NODES", 10)
    nodes = guards.node_count_problem(text)  # reported first: the depth matters only without it
    assert guards.structure_problems(text) == (nodes, guards.depth_problem(text) if nodes is None else None)
