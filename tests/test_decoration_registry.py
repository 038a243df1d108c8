"""The README's claim: a new decoration or gang scheduler is one new module plus one line in its registry."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

import mxjob_gitops.compiler.render.job
from mxjob_gitops.compiler import RenderOptions, compile_job
from mxjob_gitops.compiler.render.decorations import Filter, JobContext, Manifest, registry
from mxjob_gitops.compiler.render.gang import registry as gang_registry
from mxjob_gitops.compiler.render.gang.base import GangBackend, GangPlan
from mxjob_gitops.compiler.render.gang.plan import GangScheduler, gang_forms
from tests.conftest import REPO, run_cli
from tests.helpers import job, render, replica

DECORATIONS_DIR = REPO / "compiler" / "render" / "decorations"
GANG_DIR = REPO / "compiler" / "render" / "gang"
# (room, module): every decoration module and every gang scheduler's module (not the rooms' own machinery).
MODULES = sorted(
    [("decorations", p.stem) for p in DECORATIONS_DIR.glob("*.py") if p.stem not in ("__init__", "registry")]
    + [("gang", p.stem) for p in GANG_DIR.glob("*.py") if p.stem not in ("__init__", "registry", "base", "plan")]
)


def _imported_modules(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(("room", "module"), MODULES)
def test_only_the_registry_wires_a_decoration_module(room: str, module: str) -> None:
    """No other module of the compiler or the reconciler imports a decoration module, so adding one needs no
    edit outside its own file and the registry; the registry lists its `select` or its gang `BACKEND`."""
    dotted = f"mxjob_gitops.compiler.render.{room}.{module}"
    folder = DECORATIONS_DIR if room == "decorations" else GANG_DIR
    wired = sorted(
        str(path.relative_to(REPO))
        for path in [*(REPO / "compiler").rglob("*.py"), *(REPO / "reconciler").rglob("*.py")]
        if path != folder / "registry.py" and dotted in _imported_modules(path.read_text("utf-8"))
    )
    assert wired == [], f"{dotted} is imported outside its registry: {wired}"
    imported = __import__(dotted, fromlist=["_"])
    listed = [
        getattr(imported, "select", None) in registry.DECORATIONS,
        getattr(imported, "BACKEND", None) in gang_registry.GANG_SCHEDULERS,
    ]
    assert listed.count(True) == 1, f"{dotted} must be listed in its room's registry.py exactly once"


def _stamp(context: JobContext) -> Filter | None:
    """A decoration a new module could add: a label on every pod of jobs rendered for Argo CD."""
    if context.options.target.value != "argocd":
        return None

    def decorate(manifests: Iterable[Manifest]) -> Iterator[Manifest]:
        for manifest in manifests:
            if manifest["kind"] == "Pod":
                manifest["metadata"]["labels"] = {**manifest["metadata"]["labels"], "example.com/stamped": "yes"}
            yield manifest

    return decorate


def _train() -> dict[str, Any]:
    return job("reg", Scheduler=replica(), Server=replica(1), Worker=replica(2))


def test_one_registry_entry_reaches_every_rendering_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding the select function to the registry's tuple is all it takes: the CLI's path (compile_documents)
    and the reconciler's one-pod path (compile_job(...).pod) both apply it."""
    monkeypatch.setattr(mxjob_gitops.compiler.render.job, "DECORATIONS", (*registry.DECORATIONS, _stamp))
    options = RenderOptions(target=mxjob_gitops.compiler.Target.ARGOCD)
    pods = [m for m in render(_train(), options=options) if m["kind"] == "Pod"]
    assert len(pods) == 4 and all(p["metadata"]["labels"]["example.com/stamped"] == "yes" for p in pods)
    one = compile_job(_train(), options).pod("reg-worker-1")
    assert one is not None and one["metadata"]["labels"]["example.com/stamped"] == "yes"
    plain = [m for m in render(_train()) if m["kind"] == "Pod"]
    assert all("example.com/stamped" not in p["metadata"]["labels"] for p in plain)


def _join(pod: Manifest, plan: GangPlan, role: str) -> None:
    pod["metadata"]["labels"] = {**pod["metadata"]["labels"], "example.com/gang": f"{plan.job.name}-{role}"}


_BACKEND = GangBackend("example-gang", "QUEUE", "default", lambda _argument: None, lambda _plan: None, _join)


def test_one_registry_entry_adds_a_gang_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    """A gang scheduler's BACKEND in the registry is known to the option parser and joins the pods."""
    monkeypatch.setattr(gang_registry, "GANG_SCHEDULERS", (*gang_registry.GANG_SCHEDULERS, _BACKEND))
    assert gang_forms().endswith("|example-gang[=QUEUE]")
    scheduler = GangScheduler.parse("example-gang=team-a")
    assert (scheduler.kind, scheduler.argument) == ("example-gang", "team-a")
    assert RenderOptions.from_record({"gangScheduler": "example-gang"}).gang_scheduler == GangScheduler(
        "example-gang", "default"
    )
    manifests = render(_train(), options=RenderOptions(gang_scheduler=scheduler))
    labels = {
        m["metadata"]["name"]: m["metadata"]["labels"].get("example.com/gang") for m in manifests if m["kind"] == "Pod"
    }
    assert labels == {
        "reg-scheduler-0": "reg-scheduler",
        "reg-server-0": "reg-server",
        "reg-worker-0": "reg-worker",
        "reg-worker-1": "reg-worker",
    }


def test_render_help_names_every_registered_gang_scheduler() -> None:
    result = run_cli(["render", "--help"])
    assert result.exit_code == 0, result.stderr
    assert f"--gang-scheduler {gang_forms()}" in result.stdout
