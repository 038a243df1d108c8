"""Resource limits: YAML bombs, deep nesting, huge replica counts and oversized input are refused fast, located."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from mxjob_gitops.compiler import constants as c
from mxjob_gitops.compiler.cli import inputs
from mxjob_gitops.compiler.limits import MAX_DEPTH, output_limit
from mxjob_gitops.compiler.options import RenderOptions
from tests.attack import run_child
from tests.conftest import run_cli
from tests.helpers import job, replica

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
    assert output_limit(c.MAX_PODS) == output_limit(1) < output_limit(10 * c.MAX_PODS) == 100 * output_limit(1)


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
    from mxjob_gitops.compiler.limits import depth_problem

    assert (depth_problem(text) is not None) == found


def test_a_document_marker_ends_flow_collections_and_quoted_scalars() -> None:
    """What the per-document depth bound relies on, checked against libyaml itself."""
    import yaml

    for text in ("[[\n---\n]]", 'a: "x\n---\ny"', "a: 'x\n---\ny'", "a: [1,\n--- \n2]"):
        with pytest.raises(yaml.YAMLError):
            list(yaml.load_all(text, Loader=yaml.CSafeLoader))
