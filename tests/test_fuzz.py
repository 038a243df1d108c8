"""Fuzz every command with generated and hostile input: exit 0, 1 or 2, never a traceback, always an answer.

For each input and command: the exit code is 0, 1 or 2; no traceback and no internal error; a failed render
or convert prints nothing on stdout (a failed krm still prints a ResourceList with error results; validate's
report is its product); a failure carries at least one located error with a stable code. The suite runs a
fixed-seed, bounded sample (profile `ci`); `python -m tests.fuzz` runs a larger random one (docs/limits.md).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import JOB_EXAMPLE_FILES, run_cli
from tests.test_robustness import junk, mutated_jobs

settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=int(os.environ.get("MXJOB_FUZZ_EXAMPLES", "10000")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = os.environ.get("MXJOB_FUZZ_PROFILE", "ci")

EXAMPLE_TEXTS = [p.read_bytes() for p in JOB_EXAMPLE_FILES]
# Hand-made seeds: the shapes of the attacks in the issue that asked for this suite.
ATTACK_SEEDS = [
    b"a: &a [*a]\n",
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: x, self: *m}\n",
    b"a: " + b"[" * 300 + b"]" * 300 + b"\n",
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ../../outside}\n",
    b"apiVersion: v1\nkind: /etc/passwd\nmetadata: {name: x}\n",
    b"apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n",
    b'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "a\\0b"}\n',
    b"\xff\xfe\x00a: 1\n",
    b"apiVersion: v1\r\r\nkind: ConfigMap\r\nmetadata: {name: x}\x85\n",
]
COMMANDS = ["render", "render-o", "validate", "convert", "diff", "krm"]
_LOCATED = re.compile(r"(<stdin>|in\.yaml)(:\d+:\d+)?: error MXJ\d{3}")


@st.composite
def byte_mutations(draw: st.DrawFn) -> bytes:
    """An example or attack seed with a few bytes replaced, inserted or deleted (broken YAML, bad UTF-8)."""
    data = bytearray(draw(st.sampled_from([*EXAMPLE_TEXTS, *ATTACK_SEEDS])))
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        position = draw(st.integers(min_value=0, max_value=len(data)))
        action = draw(st.sampled_from(["replace", "insert", "delete"]))
        chunk = draw(
            st.sampled_from(
                [
                    b"\x00",
                    b"\xff",
                    b"\xc2\x85",
                    b"&a ",
                    b"*a",
                    b"[",
                    b"{",
                    b"\n  ",
                    b":",
                    b"-",
                    b"1.0",
                    b"'",
                    b'"',
                    b"\r",
                    b"\t",
                    b"!!python/object ",
                ]
            )
        )
        if action == "delete":
            del data[position : position + len(chunk)]
        elif action == "insert":
            data[position:position] = chunk
        else:
            data[position : position + len(chunk)] = chunk
    return bytes(data)


inputs = st.one_of(
    mutated_jobs().map(lambda document: json.dumps(document).encode()),
    byte_mutations(),
    junk.map(lambda document: yaml.safe_dump(document).encode()),
)


def _run(command: str, data: bytes, directory: Path) -> tuple[int, str, str]:
    source = directory / "in.yaml"
    source.write_bytes(data)
    if command == "krm":  # the documents as the items of a ResourceList; what no YAML reader reads goes in raw
        try:
            items = list(yaml.safe_load_all(data.decode("utf-8")))
            stdin = json.dumps(
                {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}, default=str
            ).encode()
        except (UnicodeDecodeError, yaml.YAMLError, RecursionError, ValueError):  # ValueError: a recursive alias
            stdin = data
        result = run_cli(["krm"], stdin=stdin)
    else:
        args = {
            "render": ["render"],
            "render-o": ["render", "-o", str(directory / "out")],
            "validate": ["validate"],
            "convert": ["convert"],
            "diff": ["diff", str(JOB_EXAMPLE_FILES[0])],
        }[command]
        result = run_cli([*args, str(source)])
    return result.exit_code, result.stdout, result.stderr


def _check(command: str, code: int, stdout: str, stderr: str) -> None:
    assert code in (0, 1, 2), stderr[-3000:]
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr[-3000:]
    failed = code == 2 if command == "diff" else code != 0
    if command in ("render", "convert"):
        assert (stdout == "") == failed, (code, stdout[:500])
    if command == "render-o":
        assert stdout == ""
    if command == "krm":
        output = yaml.safe_load(stdout)
        assert output["kind"] == "ResourceList"
        errors = [r for r in output.get("results", []) if r["severity"] == "error"]
        assert bool(errors) == failed and all(
            re.match(r"(<stdin>:\d+:\d+: )?MXJ\d{3}", r["message"]) for r in errors
        ), (code, output.get("results"))
    elif failed:
        assert _LOCATED.search(stdout + stderr) or (code == 2 and stderr.startswith("mxjob: ")), (code, stderr[-3000:])


@settings.get_profile(PROFILE)
@given(data=inputs, command=st.sampled_from(COMMANDS))
def test_every_command_answers_every_input(tmp_path_factory: Any, data: bytes, command: str) -> None:
    directory = tmp_path_factory.mktemp("fuzz")
    code, stdout, stderr = _run(command, data, directory)
    _check(command, code, stdout, stderr)
    if command == "render-o" and code != 0:
        assert not (directory / "out").exists() or not any((directory / "out").iterdir())
