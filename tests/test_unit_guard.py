"""The size guard (MXJ330): an unsharded `render --target argocd|flux` warns, with the --shard-size to use, when its
output passes what one Argo CD Application or Flux Kustomization holds, and stays quiet below; exit code 0 either
way. The limits are taken on both sides from measured sizes (a real job's objects, bytes and Flux inventory
entries), so the tests need no 10 MB input but one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.compiler.integrations.unitlimits import (
    ARGOCD_MAX_DIRECTORY_BYTES,
    ARGOCD_MAX_OBJECTS,
    ARGOCD_MAX_PLUGIN_BYTES,
    FLUX_MAX_INVENTORY_BYTES,
    MAX_RECOMMENDED_SHARD,
    Measure,
    inventory_entry_bytes,
    recommended_shard_size,
    unit_warnings,
)
from mxjob_gitops.compiler.render.emit import to_yaml
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.targets import Target
from tests.conftest import run_cli
from tests.helpers import job, render, replica


def _job(index: int) -> dict[str, Any]:
    spec = job(f"train-{index:04d}", Scheduler=replica(1), Server=replica(3), Worker=replica(6))
    spec["metadata"]["namespace"] = "ml"
    return spec


def _measured(target: Target) -> Measure:
    """One job rendered for `target`: its objects, the bytes they print to, their Flux inventory entries."""
    manifests = render(_job(0), options=RenderOptions(target=target))
    return Measure(
        objects=len(manifests),
        bytes=sum(len(to_yaml(m).encode()) + 4 for m in manifests),
        inventory_bytes=sum(inventory_entry_bytes(m) for m in manifests),
    )


def _times(measure: Measure, jobs: int) -> Measure:
    return Measure(measure.objects * jobs, measure.bytes * jobs, measure.inventory_bytes * jobs)


def _codes(diagnostics: list[Any]) -> list[str]:
    return [d.code.value for d in diagnostics]


def test_an_inventory_entry_is_as_many_bytes_as_fluxs_json_of_it() -> None:
    """Flux stores `{"id":"<ns>_<name>_<group>_<kind>","v":"<version>"}` per object, comma-separated."""
    manifests = render(_job(0), options=RenderOptions(target=Target.FLUX))
    assert {m["kind"] for m in manifests} == {"ConfigMap", "Service", "Pod", "MXJob"}
    for manifest in manifests:
        group, _, version = manifest["apiVersion"].rpartition("/")
        meta = manifest["metadata"]
        ref = {"id": f"{meta.get('namespace', '')}_{meta['name']}_{group}_{manifest['kind']}", "v": version}
        assert inventory_entry_bytes(manifest) == len(json.dumps(ref, separators=(",", ":"))) + 1
    pod = next(m for m in manifests if m["kind"] == "Pod")
    assert inventory_entry_bytes(pod) == len('{"id":"ml_' + pod["metadata"]["name"] + '__Pod","v":"v1"},')


@pytest.mark.parametrize(
    ("target", "directory", "field", "bound"),
    [
        (Target.ARGOCD, True, "objects", ARGOCD_MAX_OBJECTS),
        (Target.ARGOCD, True, "bytes", ARGOCD_MAX_DIRECTORY_BYTES),
        (Target.ARGOCD, False, "bytes", ARGOCD_MAX_PLUGIN_BYTES),
        (Target.FLUX, True, "inventory_bytes", FLUX_MAX_INVENTORY_BYTES),
        (Target.FLUX, False, "inventory_bytes", FLUX_MAX_INVENTORY_BYTES),
    ],
)
def test_each_limit_is_quiet_below_and_warns_past_it(target: Target, directory: bool, field: str, bound: int) -> None:
    """The most jobs whose measured `field` stays within the bound are quiet on it; one job more warns."""
    one = _measured(target)
    within = bound // getattr(one, field)
    below, past = _times(one, within), _times(one, within + 1)
    assert getattr(below, field) <= bound < getattr(past, field)
    quiet_on = [d for d in unit_warnings(target, below, directory=directory) if f"{bound:,}" in d.message]
    warned = [d for d in unit_warnings(target, past, directory=directory) if f"{bound:,}" in d.message]
    assert quiet_on == []
    [warning] = warned
    assert warning.code.value == "MXJ330" and warning.severity.value == "warning"
    assert f"{getattr(past, field):,}" in warning.message
    assert "--shard-size" in warning.hint


def test_the_limits_of_one_engine_do_not_warn_for_the_other() -> None:
    huge = Measure(objects=10**6, bytes=ARGOCD_MAX_PLUGIN_BYTES + 1, inventory_bytes=0)
    assert len(unit_warnings(Target.ARGOCD, huge, directory=False)) == 2
    assert unit_warnings(Target.FLUX, huge, directory=True) == []
    assert unit_warnings(Target.PLAIN, huge, directory=True) == []


@pytest.mark.parametrize("target", [Target.ARGOCD, Target.FLUX])
def test_the_recommended_shard_size_keeps_a_shard_well_within_every_limit(target: Target) -> None:
    one = _measured(target)
    size = recommended_shard_size(target, _times(one, 1000))
    assert 100 <= size <= MAX_RECOMMENDED_SHARD[target] and size % 100 == 0
    per_object = Measure(1, one.bytes // one.objects + 1, one.inventory_bytes // one.objects + 1)
    shard = Measure(size, per_object.bytes * size, per_object.inventory_bytes * size)
    assert unit_warnings(target, Measure(shard.objects * 5 // 4, shard.bytes * 5 // 4, 0), directory=True) == []


def _write_jobs(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "jobs.yaml"
    path.write_text("\n---\n".join(json.dumps(_job(i)) for i in range(count)), encoding="utf-8")
    return path


def test_render_warns_once_past_argo_cds_object_limit_and_not_below(tmp_path: Path) -> None:
    """Stdout (a config-management plugin's output): the most jobs within 3,000 objects are quiet, one more warns."""
    per_job = _measured(Target.ARGOCD).objects
    within = ARGOCD_MAX_OBJECTS // per_job
    quiet = run_cli(["render", "--target", "argocd", str(_write_jobs(tmp_path / "below", within))])
    assert quiet.exit_code == 0 and "MXJ330" not in quiet.stderr, quiet.stderr
    loud = run_cli(["render", "--target", "argocd", str(_write_jobs(tmp_path / "past", within + 1))])
    assert loud.exit_code == 0, loud.stderr
    [line] = [line for line in loud.stderr.splitlines() if "MXJ330" in line]
    assert line.startswith("warning MXJ330") and f"has {(within + 1) * per_job:,}" in line
    assert "--shard-size" in line
    assert loud.stdout.count("\nkind: Pod\n") == (within + 1) * 10  # a warning changes nothing printed
    assert run_cli(["render", "--target", "plain", str(tmp_path / "past" / "jobs.yaml")]).stderr == ""
    assert "MXJ330" not in run_cli(["render", "-q", "--target", "argocd", str(tmp_path / "past" / "jobs.yaml")]).stderr


def test_render_o_warns_past_the_directory_bytes_and_objects_and_counts_the_files(tmp_path: Path) -> None:
    """The one large render: enough jobs to pass Argo CD's 10 MB directory limit; the bytes the warning names are
    the bytes of the files written. With --shard-size, no warning."""
    one = _measured(Target.ARGOCD)
    jobs = ARGOCD_MAX_DIRECTORY_BYTES // (one.bytes - 4 * one.objects) + 20  # files carry no document markers
    source = _write_jobs(tmp_path / "in", jobs)
    out = tmp_path / "out"
    done = run_cli(["render", "--target", "argocd", "-o", str(out), str(source)])
    assert done.exit_code == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "MXJ330" in line]
    assert len(lines) == 2, done.stderr
    files = [p for p in out.iterdir() if p.suffix == ".yaml" and p.name != "kustomization.yaml"]
    assert f"has {len(files):,}" in lines[0]
    assert f"has {sum(p.stat().st_size for p in files):,}" in lines[1]
    again = run_cli(["render", "--target", "argocd", "-o", str(out), str(source)])  # unchanged files: still counted
    assert again.exit_code == 0 and [line for line in again.stderr.splitlines() if "MXJ330" in line] == lines
    sharded = run_cli(["render", "--target", "argocd", "-o", str(tmp_path / "sharded"), "--shard-size", "1000",
                       str(source)])  # fmt: skip
    assert sharded.exit_code == 0 and "MXJ330" not in sharded.stderr, sharded.stderr
