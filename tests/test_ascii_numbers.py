"""Numbers in supplied text are read as the Go tools read them (compiler.asciinum), at every entry point.

Python's int() and float() also take other scripts' digits (`int("٣") == 3`), `_`, surrounding whitespace, and
float() `inf`, `nan` and exponents. Each environment variable, numeric flag, the leader-election timings, the
exit-code keys, priorities and the server's Retry-After are run with such text: a flag or variable refuses it
(exit 2, naming itself), the header gives no hint, a label or annotation is not read. A scan of the CLI, the
reconciler and the option codec keeps new readers from going back to int(), float() or click's number types.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import click
import pytest
import yaml

from mxjob_gitops.compiler.base.asciinum import INT64_MAX, decimal, whole
from mxjob_gitops.compiler.cli.group import cli
from mxjob_gitops.compiler.io import forked
from mxjob_gitops.compiler.io.output_dir import lock_timeout
from mxjob_gitops.compiler.render.options import kubernetes_minor, priority_pairs
from mxjob_gitops.compiler.spec.exitcodes import ExitClass, ExitTable
from mxjob_gitops.reconciler.cli import _timings
from mxjob_gitops.reconciler.kube import _retry_after
from mxjob_gitops.reconciler.state import PodView
from tests.conftest import EXAMPLES, REPO, Run, run_cli

# What int() or float() read and no Go tool does; each entry point's plain "3" is accepted.
HOSTILE = ["٣", "1_0", "³", "inf", "nan", "1e1", "-1", "0x10", " 3\n"]
JOB = str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml")

# --- the readers ---------------------------------------------------------------------------------------------------

WHOLE = {
    "digits": ("42", 42),
    "zero": ("0", 0),
    "leading zeros": ("007", 7),
    "int64 maximum": (str(INT64_MAX), INT64_MAX),
    "past int64": (str(INT64_MAX + 1), None),
    "many leading zeros": ("0" * 5000 + "5", 5),
    "many digits": ("9" * 5000, None),
    "empty": ("", None),
    "plus": ("+3", None),
    "point": ("3.0", None),
    "trailing newline": ("3\n", None),
    "fullwidth": ("\uff13", None),
    **{f"hostile {text!r}": (text, None) for text in HOSTILE},
}
DECIMAL = {
    "whole": ("3", 3.0),
    "fraction": ("0.5", 0.5),
    "no leading digit": (".5", 0.5),
    "no fraction digit": ("3.", None),
    "point only": (".", None),
    "two points": ("1.2.3", None),
    "too big to be finite": ("9" * 400, None),
    "exponent": ("1E1", None),
    "Infinity": ("Infinity", None),
    "other script's fraction": ("1.٣", None),
    **{f"hostile {text!r}": (text, None) for text in HOSTILE},
}


@pytest.mark.parametrize(("text", "expected"), WHOLE.values(), ids=WHOLE.keys())
def test_whole(text: str, expected: int | None) -> None:
    assert whole(text) == expected


@pytest.mark.parametrize(("text", "expected"), DECIMAL.values(), ids=DECIMAL.keys())
def test_decimal(text: str, expected: float | None) -> None:
    assert decimal(text) == expected


# --- every entry point ---------------------------------------------------------------------------------------------


class Entry(NamedTuple):
    named: str  # what the refusal names on stderr
    run: Callable[[str, pytest.MonkeyPatch, Path], Run]  # the command run with the text in the number's place
    read: Callable[[str, pytest.MonkeyPatch], Any]  # what the command makes of the text when it is accepted
    three: Any  # ... of "3"
    accepts: frozenset[str] = frozenset()  # HOSTILE texts it reads by design (a list item's spaces, a sign)


def _parsed(command: str, option: str, text: str) -> Any:
    """The option's value after click converts `option text` (the command itself does not run)."""
    group = click.Context(cli)
    found = cli.get_command(group, command)
    assert found is not None
    name = next(p.name for p in found.params if option in p.opts)
    return found.make_context(command, [option, text], parent=group).params[name]


def _option(
    command: str, option: str, three: Any, template: str = "{}", *rest: str, accepts: frozenset[str] = frozenset()
) -> Entry:
    """The option given `template` with the text in it (and `rest`, the command's other arguments)."""
    return Entry(
        option,
        lambda text, _env, _tmp: run_cli([command, option, template.format(text), *rest]),
        lambda text, _env: _parsed(command, option, template.format(text)),
        three,
        accepts,
    )


def _jobs_run(text: str, env: pytest.MonkeyPatch, _tmp: Path) -> Run:
    env.setenv("MXJOB_JOBS", text)
    return run_cli(["validate", JOB])


def _jobs_read(text: str, env: pytest.MonkeyPatch) -> int:
    env.setenv("MXJOB_JOBS", text)
    return forked.configured_workers()


def _lock_timeout_run(text: str, env: pytest.MonkeyPatch, tmp: Path) -> Run:
    env.setenv("MXJOB_LOCK_TIMEOUT", text)
    return run_cli(["render", "-o", str(tmp / "out"), JOB])


def _lock_timeout_read(text: str, env: pytest.MonkeyPatch) -> float:
    env.setenv("MXJOB_LOCK_TIMEOUT", text)
    return lock_timeout(60.0)


def _timings_entry(template: str, three: tuple[int, float, float]) -> Entry:
    return Entry(
        "--leader-election-timings",
        lambda text, _env, _tmp: run_cli(["reconcile", "--leader-election-timings", template.format(text)]),
        lambda text, _env: _timings(template.format(text)),
        three,
    )


def _exit_codes_run(text: str, _env: pytest.MonkeyPatch, _tmp: Path) -> Run:
    return run_cli(["reconcile", "--exit-codes", f"{text}=permanent"])


def _exit_codes_read(text: str, _env: pytest.MonkeyPatch) -> ExitClass:
    return ExitTable.parse(f"{text}=retryable").classify(3)  # 3 is permanent in the built-in table


_LISTED = frozenset({" 3\n"})  # an item of a comma-separated list may have spaces around it
_SIGNED = _LISTED | {"-1"}  # a PriorityClass value may be negative
ENTRIES = {
    "MXJOB_JOBS": Entry("MXJOB_JOBS", _jobs_run, _jobs_read, 3),
    "MXJOB_LOCK_TIMEOUT": Entry("MXJOB_LOCK_TIMEOUT", _lock_timeout_run, _lock_timeout_read, 3.0),
    "render --max-pods": _option("render", "--max-pods", 3, "{}", JOB),
    "render --priority-class": _option("render", "--priority-class", (("p", 3),), "p={}", JOB)._replace(
        accepts=_LISTED | {"-1"}
    ),
    "render --exit-codes": _option("render", "--exit-codes", "3=permanent", "{}=permanent", JOB)._replace(
        accepts=_LISTED | {"-1"}
    ),
    "diff -U": _option("diff", "-U", 3, "{}", JOB, JOB),
    "diff --max-length": _option("diff", "--max-length", 30_000, "{}0000", JOB, JOB),
    "reconcile --workers": _option("reconcile", "--workers", 3),
    "reconcile --watch-timeout": _option("reconcile", "--watch-timeout", 3),
    "reconcile --max-pods": _option("reconcile", "--max-pods", 3),
    "reconcile --pass-timeout": _option("reconcile", "--pass-timeout", 3.0),
    "reconcile --metrics-address": _option("reconcile", "--metrics-address", ":3", ":{}"),
    "reconcile --health-address": _option("reconcile", "--health-address", "127.0.0.1:3", "127.0.0.1:{}"),
    "leader lease": _timings_entry("{},2,1", (3, 2.0, 1.0)),
    "leader renew": _timings_entry("15,{},1", (15, 3.0, 1.0)),
    "leader retry": _timings_entry("15,10,{}", (15, 10.0, 3.0)),
    "reconcile --exit-codes": Entry("--exit-codes", _exit_codes_run, _exit_codes_read, ExitClass.RETRYABLE, _LISTED),
}
CASES = [
    pytest.param(entry, text, id=f"{name} {text!r}")
    for name, entry in ENTRIES.items()
    for text in HOSTILE
    if text not in entry.accepts
]


@pytest.mark.parametrize(("entry", "text"), CASES)
def test_hostile_numbers_are_usage_errors(
    entry: Entry, text: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result = entry.run(text, monkeypatch, tmp_path)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert entry.named in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("entry", ENTRIES.values(), ids=ENTRIES.keys())
def test_ascii_digits_are_read(entry: Entry, monkeypatch: pytest.MonkeyPatch) -> None:
    assert entry.read("3", monkeypatch) == entry.three


def test_an_exit_code_key_is_the_number_its_digits_spell() -> None:
    assert ExitTable.parse("007=retryable, 3 =retryable").classify(7) is ExitClass.RETRYABLE
    assert ExitTable.parse("007=retryable, 3 =retryable").classify(3) is ExitClass.RETRYABLE


@pytest.mark.parametrize("variable", ["MXJOB_JOBS", "MXJOB_LOCK_TIMEOUT"])
def test_a_blank_variable_is_unset(variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, " \n")
    assert (forked.configured_workers(), lock_timeout(60.0)) == (forked.default_workers(), 60.0)


def test_a_priority_may_be_negative() -> None:
    assert priority_pairs(["low=-10", "high = 1000"]) == (("low", -10), ("high", 1000))
    for text in ["low=--10", "low=-", "low=+10", "low=-٣"]:
        with pytest.raises(ValueError, match="VALUE an integer"):
            priority_pairs([text])


@pytest.mark.parametrize("text", ["v\u0661.36", "1.\u0663\u0666", "1.36.\u0663"])
def test_a_kubernetes_version_is_in_ascii_digits(text: str) -> None:
    assert kubernetes_minor("v1.36.2") == "1.36"
    with pytest.raises(ValueError, match="Kubernetes version"):
        kubernetes_minor(text)


class _ApiError(Exception):
    def __init__(self, retry_after: str) -> None:
        super().__init__("429")
        self.headers = {"Retry-After": retry_after}


RETRY_AFTER = {
    "seconds": ("3", 3.0),
    "zero": ("0", 0.0),
    "spaces around, as Go's header reader drops them": (" 3\t", 3.0),
    "a fraction": ("1.5", None),
    "an HTTP date": ("Wed, 21 Oct 2015 07:28:00 GMT", None),
    **{f"hostile {text!r}": (text, None) for text in HOSTILE},
}


@pytest.mark.parametrize(("header", "expected"), RETRY_AFTER.values(), ids=RETRY_AFTER.keys())
def test_retry_after_is_whole_seconds_as_client_go_reads_it(header: str, expected: float | None) -> None:
    assert _retry_after(_ApiError(header)) == expected


@pytest.mark.parametrize("text", ["٣", "³", "1_0", " 3"])
def test_a_pods_index_label_in_other_digits_is_not_a_replica(text: str) -> None:
    labels = {"training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": text}
    pod = {"metadata": {"name": "mxnet-job-worker-3", "uid": "u", "labels": labels}}
    assert PodView.from_object(pod, {"worker": "Worker"}) is None
    labels["training.kubeflow.org/replica-index"] = "3"
    view = PodView.from_object(pod, {"worker": "Worker"})
    assert view is not None and view.index == 3


@pytest.mark.parametrize(("text", "index"), [("1", {"index": 1}), ("³", {}), ("٣", {}), ("1_0", {})])
def test_krm_reports_a_files_index_only_in_ascii_digits(text: str, index: dict[str, int]) -> None:
    broken = yaml.safe_load(Path(JOB).read_text(encoding="utf-8"))
    broken["spec"]["jobMode"] = "MXTrian"
    annotations = {"internal.config.kubernetes.io/path": "k.yaml", "internal.config.kubernetes.io/index": text}
    broken["metadata"]["annotations"] = annotations
    stdin = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [broken]})
    result = run_cli(["krm"], stdin=stdin)
    assert result.exit_code == 1, result.stderr
    assert yaml.safe_load(result.stdout)["results"][0]["file"] == {"path": "k.yaml", **index}


# --- no new readers of the old kind --------------------------------------------------------------------------------

# The CLI, the reconciler, and the core modules that read flags, functionConfig and ConfigMap records.
SOURCES = sorted(
    [
        *(REPO / "compiler" / "cli").rglob("*.py"),
        *(REPO / "compiler" / "io").rglob("*.py"),
        *(REPO / "reconciler").rglob("*.py"),
        REPO / "compiler" / "render" / "options.py",
        REPO / "compiler" / "spec" / "exitcodes.py",
    ]
)
# Every int()/float() call there on anything but a literal, each judged: none reads text that was not checked.
JUDGED = {
    ("compiler/cli/flags.py", "int(value)"): "-v's count, an int from click",
    ("compiler/io/verbosity.py", "int(ctx.meta.get(LEVEL, 0))"): "the level cli.flags stored, an int",
    ("compiler/io/forked.py", "int(quota)"): "cgroup cpu.max, written by the kernel in ASCII",
    ("compiler/io/forked.py", "int(period)"): "cgroup cpu.max, written by the kernel in ASCII",
    ("compiler/io/gitsource.py", "int(fields[2])"): "git cat-file's size, bytes checked by bytes.isdigit (ASCII)",
    ("compiler/io/gitsource.py", "int(header[2])"): "git cat-file --batch's size, written by git",
    ("compiler/render/options.py", "int(match.group(1))"): "a Kubernetes version's digits, [0-9]+ by its pattern",
    ("compiler/render/options.py", "int(match.group(2))"): "a Kubernetes version's digits, [0-9]+ by its pattern",
    ("reconciler/decide.py", "int(record.get('count', 0))"): "podRestarts counts, ints kept by trust.clean_status",
    ("reconciler/decide.py", "int(r.get('count', 0))"): "podRestarts counts, ints kept by trust.clean_status",
    ("reconciler/jobs.py", "int(count)"): "replicas, checked to be a JSON number first",
    ("reconciler/kube.py", "float(seconds)"): "an int from asciinum.whole",
    ("reconciler/leader.py", "int(current.get('leaseTransitions') or 0)"): "a Lease's int32, from the API server",
    ("reconciler/state.py", "int(x.get('restartCount') or 0)"): "a pod's int32, from the API server",
    ("reconciler/state.py", "int(container.get('restartCount') or 0)"): "a pod's int32, from the API server",
    ("reconciler/state.py", "int(terminated['exitCode'])"): "a pod's int32, from the API server",
}


def _number_readers(path: Path) -> list[str]:
    """int()/float() on anything but a literal, click's number types, and `type=int`/`type=float` in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name in ("int", "float") and not all(isinstance(a, ast.Constant) for a in node.args):
            found.append(ast.unparse(node))
        if name in ("IntRange", "FloatRange"):
            found.append(ast.unparse(node))
        found += [f"type={ast.unparse(k.value)}" for k in node.keywords if ast.unparse(k) in ("type=int", "type=float")]
    return found


def test_every_number_read_from_text_goes_through_asciinum() -> None:
    unjudged = [
        f"{path.relative_to(REPO)}: {call}"
        for path in SOURCES
        for call in _number_readers(path)
        if (str(path.relative_to(REPO)), call) not in JUDGED
    ]
    assert not unjudged, "read numbers in text with compiler.asciinum (or judge the call in JUDGED): " + ", ".join(
        unjudged
    )
