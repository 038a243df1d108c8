"""Stable shards against the real kustomize (the kustomize tier: it runs under CI=true, see tests/kustomizetool.py):
60 jobs rendered with --shard-size, every shard built, exactly the objects of the unsharded render; then jobs
added, removed, edited and grown, and no surviving job changes shard; --move-job moves one and says it restarts."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from mxjob_gitops.compiler.compile.shards import RECORD, parse_record
from mxjob_gitops.compiler.render.emit import to_json
from tests.conftest import run_cli
from tests.helpers import container, job, replica
from tests.kustomizetool import kustomize as kustomize

SIZE = 100
# 60 jobs (about 13 objects each): about 780 objects in 8 shards of at most SIZE, enough for every promise (several
# shards, removals that free room in some, newcomers that fill it, a grown job that overfills its own, a move); each
# shard costs a kustomize build in every form it takes (about 0.45 s on a loaded machine), 300 jobs made 40 shards.
JOBS = 60
REMOVED, ADDED = range(0, 12, 2), range(JOBS, JOBS + 10)


def _job(index: int, workers: int = 0, image: str = "mxnet:1.9") -> dict[str, Any]:
    workers = workers or 1 + index % 5
    spec = job(
        f"job-{index:03d}",
        Scheduler=replica(1, [container(image=image)]),
        Server=replica(1 + index % 2, [container(image=image)]),
        Worker=replica(workers, [container(image=image)]),
    )
    spec["metadata"]["namespace"] = f"team-{index % 3}"
    return spec


def _extra(index: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"shared-{index}", "namespace": "team-0"}}


def _write(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("\n---\n".join(to_json(o) for o in objects), encoding="utf-8")
    return path


def _canonical(objects: list[Any]) -> Counter[str]:
    return Counter(json.dumps(o, sort_keys=True) for o in objects if o is not None)


def _unsharded(spec: Path) -> Counter[str]:
    result = run_cli(["render", str(spec)])
    assert result.exit_code == 0, result.stderr
    return _canonical(list(yaml.safe_load_all(result.stdout)))


# A shard's files (their names and bytes) -> what kustomize built of them: a shard a step left byte for byte as it
# was is not built again (kustomize's build is deterministic); every shard is built in each form it takes.
_BUILDS: dict[str, list[Any]] = {}


def _build(build: list[str], shard: Path) -> list[Any]:
    files = sorted((p.name, p.read_bytes()) for p in shard.iterdir())
    key = hashlib.sha256(repr(files).encode()).hexdigest()
    if key not in _BUILDS:
        done = subprocess.run([*build, str(shard)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        _BUILDS[key] = [o for o in yaml.safe_load_all(done.stdout) if o is not None]
    return _BUILDS[key]


def _built(out: Path, build: list[str]) -> tuple[Counter[str], dict[str, int]]:
    """Every shard of DIR built by kustomize: all their objects, and how many each shard holds."""
    record = parse_record((out / RECORD).read_text(encoding="utf-8"))
    shards = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert shards == record.shard_names()
    objects: Counter[str] = Counter()
    counts: dict[str, int] = {}
    with ThreadPoolExecutor(2) as pool:
        for shard, built in zip(shards, pool.map(lambda s: _build(build, out / s), shards), strict=True):
            counts[shard] = len(built)
            assert counts[shard] == record.load(shard), shard
            objects.update(_canonical(built))
    return objects, counts


def _render(out: Path, spec: Path, *extra: str) -> str:
    result = run_cli(["render", "-o", str(out), "--shard-size", str(SIZE), *extra, str(spec)])
    assert result.exit_code == 0, result.stderr
    return result.stderr


def _where(out: Path) -> dict[str, str]:
    return parse_record((out / RECORD).read_text(encoding="utf-8")).shard_of()


def _files_of(out: Path, name: str) -> set[str]:
    return {p.parent.name for p in out.glob(f"shard-*/team-*.*-{name}*")}


def test_jobs_in_stable_shards_build_to_the_unsharded_objects(tmp_path: Path, kustomize: list[str]) -> None:
    spec, out = tmp_path / "jobs.yaml", tmp_path / "deploy"
    jobs = {i: _job(i) for i in range(JOBS)}
    _write(spec, [*jobs.values(), _extra(1), _extra(2)])
    _render(out, spec)
    objects, counts = _built(out, kustomize)
    assert objects == _unsharded(spec)
    assert all(count <= SIZE for count in counts.values()), counts
    first = _where(out)
    assert len(first) == JOBS + 2 and len(counts) == -(-sum(counts.values()) // SIZE)
    assert len(counts) >= 5, counts
    for name in ("job-000", "job-030", "job-059"):  # every object of a job in one shard
        assert len(_files_of(out, name)) == 1

    # The same inputs and record give the same bytes: a re-render writes nothing but finds every file as it is,
    # and a fresh directory holding only the record is written byte for byte alike.
    assert " 0 written" in _render(out, spec)
    twin = tmp_path / "twin"
    twin.mkdir()
    shutil.copy(out / RECORD, twin / RECORD)
    _render(twin, spec)
    assert _tree(twin) == _tree(out)

    # Remove 6 jobs, add 10, edit 5 (a new image), grow one far past its shard's room.
    for i in REMOVED:
        del jobs[i]
    for i in ADDED:
        jobs[i] = _job(i)
    for i in range(21, 31, 2):
        jobs[i] = _job(i, image="mxnet:2.0")
    jobs[43] = _job(43, workers=60)
    _write(spec, [*jobs.values(), _extra(2), _extra(3)])
    messages = _render(out, spec)
    second = _where(out)
    survivors = set(first) & set(second)
    assert len(survivors) == JOBS - len(REMOVED) + 1
    assert {u: second[u] for u in survivors} == {u: first[u] for u in survivors}  # no surviving job moved
    grown = first["MXJob team-1/job-043"]
    assert f"warning: {grown} holds" in messages and "--move-job team-1/job-043" in messages
    objects, counts = _built(out, kustomize)
    assert objects == _unsharded(spec)
    assert [s for s, n in counts.items() if n > SIZE] == [grown]
    freed = {first[f"MXJob team-{i % 3}/job-{i:03d}"] for i in REMOVED}
    newcomers = {second[f"MXJob team-{i % 3}/job-{i:03d}"] for i in ADDED}
    assert newcomers & freed, "new jobs fill the room removed ones left"

    # The explicit move: it says the job restarts, and the job's files and record entry go to another shard.
    moved = _render(out, spec, "--move-job", "team-1/job-043")
    third = _where(out)
    target = third["MXJob team-1/job-043"]
    assert target != grown
    assert f"moved MXJob team-1/job-043 from {grown} to {target}: it restarts" in moved
    assert "pruned by" in moved and "re-created by" in moved
    assert _files_of(out, "job-043") == {target}
    assert {u: v for u, v in third.items() if u != "MXJob team-1/job-043"} == {
        u: v for u, v in second.items() if u != "MXJob team-1/job-043"
    }
    objects, counts = _built(out, kustomize)
    assert objects == _unsharded(spec)
    assert all(n <= SIZE for s, n in counts.items() if s != target)


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and not p.name.startswith(".mxjob-render")
    }
