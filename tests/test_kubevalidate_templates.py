"""The differential tier on MXJob specs: edits of tests/kube_mutations.py applied to a replica's pod template (not
to the rendered pod), judged by `mxjob render` of the MXJob and by Kubernetes 1.36's own validation (core-validate)
of the pod the same edit gives. render must refuse, with an error located in the MXJob, exactly the edits the
server refuses, and accept the others. A hypothesis strategy draws combinations of two edits."""

from __future__ import annotations

import pathlib
import re
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli
from tests.kube_mutations import Edit, Mutation, apply, catalog, version_gated
from tests.test_kubevalidate_differential import EXAMPLE, _bases, _stream, core_validate_errors

TEMPLATE = ("spec", "mxReplicaSpecs", "Worker", "template")
# Fields the compiler owns in the pods it renders, so an edit of them in a template is not the same edit of the
# pod: the mxnet container's name (the job needs it: MXJ206), restartPolicy (set per replica from its
# restartPolicy), the first env var and port (in the pod they are the injected MX_CONFIG and mxjob-port; in the
# template an edit creates a user's own entry instead).
OWNED = (
    re.compile(r"^spec\.containers\.0\.name$"),
    re.compile(r"^spec\.restartPolicy$"),
    re.compile(r"^spec\.containers\.0\.(env|ports)\b"),
)


def _template_edits(edits: list[Edit]) -> list[Edit] | None:
    """The edits as made to the Worker's pod template, or None when they do not translate."""
    out: list[Edit] = []
    for path, value in edits:
        dotted = ".".join(str(p) for p in path)
        if path[0] != "spec" or any(rule.search(dotted) for rule in OWNED):
            return None
        out.append(((*TEMPLATE, *path), value))
    return out


def sample() -> list[Mutation]:
    return [(name, kind, edits) for name, kind, edits in [*catalog(), *version_gated()] if kind == "Pod"]


def _job() -> dict[str, Any]:
    job: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    return job


def _oracle(pods: list[dict[str, Any]], tmp_path: pathlib.Path) -> list[list[str]]:
    path = tmp_path / "pods.yaml"
    path.write_text(_stream(pods), encoding="utf-8")
    return core_validate_errors(path)


def _render(job: dict[str, Any], tmp_path: pathlib.Path) -> tuple[int, str]:
    """render's exit code and stderr; validate of the same MXJob must give the same verdict."""
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job, sort_keys=False), encoding="utf-8")
    result = run_cli(["render", "--kubernetes-version", "1.36", str(path)])
    validated = run_cli(["validate", "--kubernetes-version", "1.36", str(path)])
    assert validated.exit_code == result.exit_code, (result.stderr, validated.stdout, validated.stderr)
    return result.exit_code, result.stderr


def _disagreements(cases: list[tuple[str, list[Edit]]], tmp_path: pathlib.Path) -> tuple[list[str], int]:
    pod = _bases()["Pod"]
    oracle = _oracle([apply(pod, edits) for _, edits in cases], tmp_path)
    assert len(oracle) == len(cases)
    found, refused = [], 0
    for (name, edits), errors in zip(cases, oracle, strict=True):
        template = _template_edits(edits)
        assert template is not None
        code, stderr = _render(apply(_job(), template), tmp_path)
        assert code in (0, 1), (name, stderr)  # never a usage error or a crash
        refused += code == 1
        if (code == 1) != bool(errors):
            verdict = "refuses: " + stderr[:300] if code else "accepts"
            found.append(
                f"{name}: server {'refuses: ' + '; '.join(errors)[:300] if errors else 'accepts'}, render {verdict}"
            )
        elif code == 1 and not re.search(
            r"job\.yaml:\d+:\d+: error MXJ\d+ at spec\.mxReplicaSpecs\.Worker\.template", stderr
        ):
            found.append(f"{name}: render refuses without an error located in the template: {stderr[:300]}")
    return found, refused


def test_template_edits_agree_with_kubernetes_136(tmp_path: pathlib.Path) -> None:
    cases = [(name, edits) for name, _kind, edits in sample() if _template_edits(edits) is not None]
    assert len(cases) >= 100
    found, refused = _disagreements(cases, tmp_path)
    assert found == [], "\n".join(found)
    assert 50 < refused < len(cases) - 30  # both verdicts are well represented


TRANSLATABLE = [(name, edits) for name, _kind, edits in sample() if _template_edits(edits) is not None]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TRANSLATABLE), min_size=2, max_size=2, unique_by=lambda case: case[0]))
def test_two_template_edits_at_once_agree(tmp_path: pathlib.Path, pair: list[tuple[str, list[Edit]]]) -> None:
    """Two edits together: the server refuses when either part makes it refuse (or their mix does)."""
    name = " + ".join(n for n, _ in pair)
    edits = [edit for _, part in pair for edit in part]
    paths = [path for path, _ in edits]
    if any(a != b and a[: len(b)] == b for a in paths for b in paths) or len(set(paths)) < len(paths):
        edits = pair[0][1]  # one edit replaces what the other set: keep the first alone
    found, _ = _disagreements([(name, edits)], tmp_path)
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("example", [EXAMPLE])
def test_the_unedited_template_renders(example: pathlib.Path) -> None:
    assert run_cli(["render", "--kubernetes-version", "1.36", str(example)]).exit_code == 0
