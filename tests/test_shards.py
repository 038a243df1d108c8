"""Stable shards (`render -o DIR --shard-size N`): the placement's promises as properties (a recorded unit never
moves, shards stay within N but for a lone or a grown unit, the same inputs place the same), the record's codec,
and the command's refusals. tests/test_shards_kustomize.py builds the shards with the real kustomize."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.compile.shards import (
    RECORD,
    ShardRecord,
    assign,
    job_unit,
    parse_record,
    record_text,
    shard_name,
    shard_number,
)
from mxjob_gitops.compiler.render.emit import to_json
from tests.conftest import run_cli
from tests.helpers import job, replica

# One step of a history: add a unit of some size, remove the i-th unit, resize the i-th unit, or move it.
_STEP = st.one_of(
    st.tuples(st.just("add"), st.integers(1, 14)),
    st.tuples(st.just("remove"), st.integers(0, 40)),
    st.tuples(st.just("resize"), st.integers(0, 40), st.integers(1, 14)),
    st.tuples(st.just("move"), st.integers(0, 40)),
)


def _apply(units: dict[str, int], step: tuple[Any, ...], serial: int) -> tuple[dict[str, int], set[str]]:
    units = dict(units)
    names = sorted(units)
    if step[0] == "add":
        units[f"MXJob ns/job-{serial:03d}"] = step[1]
    elif names and step[0] == "remove":
        del units[names[step[1] % len(names)]]
    elif names and step[0] == "resize":
        units[names[step[1] % len(names)]] = step[2]
    elif names and step[0] == "move":
        return units, {names[step[1] % len(names)]}
    return units, set()


@settings(max_examples=300, deadline=None)
@given(size=st.integers(1, 30), steps=st.lists(_STEP, min_size=1, max_size=40))
@example(size=12, steps=[("add", 1), ("add", 2), ("remove", 0), ("resize", 0, 1), ("add", 11), ("resize", 0, 2)])
def test_no_recorded_unit_ever_moves_unless_asked(size: int, steps: list[tuple[Any, ...]]) -> None:
    units: dict[str, int] = {}
    record: ShardRecord | None = None
    before: dict[str, int] = {}  # each unit's object count at the previous render
    for serial, step in enumerate(steps):
        units, moves = _apply(units, step, serial)
        placement = assign(record, units, size, moves)
        assert placement == assign(record, dict(reversed(units.items())), size, moves)  # order does not matter
        new = placement.record
        was = record.shard_of() if record is not None else {}
        now = new.shard_of()
        assert set(now) == set(units)
        for unit, shard in now.items():
            if unit in moves:
                assert shard != was[unit]
                assert placement.moved == [(unit, was[unit], shard)]
            elif unit in was:
                assert shard == was[unit], f"{unit} moved from {was[unit]} to {shard}"
        old_shards = record.shards if record is not None else {}
        for shard, held in new.shards.items():
            assert held, "an empty shard stays in the record"
            if sum(held.values()) <= size or len(held) == 1:
                continue
            # Over N with more than one unit: only a shard that took no unit in this render, and only because a
            # unit it holds grew now or it was over already (a job shrunk, its room given to another, then
            # grown back, stays where it is).
            arrived = [u for u in held if was.get(u) != shard]
            assert not arrived, (shard, held, arrived)
            grown = any(held[u] > before.get(u, held[u]) for u in held)
            was_over = sum(old_shards.get(shard, {}).values()) > size
            assert grown or was_over or new.size != size, (shard, held)
        overfull = {s for s, held in new.shards.items() if sum(held.values()) > size and len(held) > 1}
        assert len(placement.warnings) == len(overfull)
        assert parse_record(record_text(new)) == new
        record = new
        before = dict(units)


def test_placement_fills_free_room_first_then_new_shards() -> None:
    first = assign(None, {"MXJob a/x": 6, "MXJob a/y": 6, "MXJob a/z": 3, "MXJob a/big": 25}, 10).record
    assert first.shards == {
        "shard-0001": {"MXJob a/big": 25},
        "shard-0002": {"MXJob a/x": 6, "MXJob a/z": 3},
        "shard-0003": {"MXJob a/y": 6},
    }
    # x removed: its room is free; w fits there; y grows past its shard's room and stays, with a warning
    second = assign(first, {"MXJob a/big": 25, "MXJob a/y": 6, "MXJob a/z": 3, "MXJob a/w": 7}, 10)
    assert second.record.shard_of() == {
        "MXJob a/big": "shard-0001",
        "MXJob a/w": "shard-0002",
        "MXJob a/z": "shard-0002",
        "MXJob a/y": "shard-0003",
    }
    third = assign(second.record, {"MXJob a/big": 25, "MXJob a/y": 6, "MXJob a/z": 9, "MXJob a/w": 7}, 10)
    assert third.record.shard_of() == second.record.shard_of()
    (warning,) = third.warnings
    assert "shard-0002 holds 16 objects, more than --shard-size 10" in warning
    assert "MXJob a/z grew from 3 to 9 objects" in warning and "--move-job a/z" in warning
    assert "restarts" in warning
    (again,) = assign(third.record, {"MXJob a/big": 25, "MXJob a/y": 6, "MXJob a/z": 9, "MXJob a/w": 7}, 10).warnings
    assert "a job in it grew at an earlier render" in again and "shard size is now" not in again
    moved = assign(third.record, {"MXJob a/big": 25, "MXJob a/y": 6, "MXJob a/z": 9, "MXJob a/w": 7}, 10, {"MXJob a/z"})
    assert moved.moved == [("MXJob a/z", "shard-0002", "shard-0004")] and not moved.warnings
    with pytest.raises(ValueError, match="not in the record"):
        assign(third.record, {"MXJob a/q": 1}, 10, {"MXJob a/q"})


def test_shard_names_and_job_references() -> None:
    assert [shard_name(n) for n in (1, 42, 12345)] == ["shard-0001", "shard-0042", "shard-12345"]
    assert [shard_number(n) for n in ("shard-0001", "shard-12345", "shard-01", "shard-00001", "shard-0000")] == [
        1,
        12345,
        None,
        None,
        None,
    ]
    assert job_unit("team/train") == "MXJob team/train" and job_unit("train") == "MXJob train"
    assert job_unit("a/b/c") is None and job_unit("") is None and job_unit("x\ny") is None


@pytest.mark.parametrize(
    "text",
    [
        "[1, 2]",
        "shardSize: 0\nshards: {}\n",
        "shardSize: 10\nshards: {}\nextra: 1\n",
        "shardSize: 10\nshards:\n  shard-1:\n    MXJob a/b: 1\n",
        "shardSize: 10\nshards:\n  shard-0001:\n    MXJob a/b: -1\n",
        "shardSize: 10\nshards:\n  shard-0001:\n    MXJob a/b: 1\n  shard-0002:\n    MXJob a/b: 1\n",
        "shardSize: 10\nshards:\n  shard-0001:\n    ../../etc: 1\n",
        "shardSize: 10\nshards:\n  shard-0001: {}\n",
        "{unclosed",
    ],
)
def test_a_malformed_record_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_record(text)


def _spec(path: Path, jobs: list[dict[str, Any]]) -> Path:
    path.write_text("\n---\n".join(to_json(j) for j in jobs), encoding="utf-8")
    return path


def _job(name: str, workers: int = 1) -> dict[str, Any]:
    spec = job(name, Scheduler=replica(1), Server=replica(1), Worker=replica(workers))
    spec["metadata"]["namespace"] = "team"
    return spec


def _tree(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_shard_size_needs_an_output_directory_and_a_bound(tmp_path: Path) -> None:
    spec = _spec(tmp_path / "jobs.yaml", [_job("a")])
    alone = run_cli(["render", "--shard-size", "10", str(spec)])
    assert alone.exit_code == 2 and "give -o DIR" in alone.stderr and not alone.stdout
    for size in ("0", "-1", "100001", "ten"):
        result = run_cli(["render", "-o", str(tmp_path / "out"), "--shard-size", size, str(spec)])
        assert result.exit_code == 2, result.stderr
        assert not (tmp_path / "out").exists()
    move = run_cli(["render", "-o", str(tmp_path / "out"), "--move-job", "team/a", str(spec)])
    assert move.exit_code == 2 and "--shard-size" in move.stderr
    bad = run_cli(["render", "-o", str(tmp_path / "out"), "--shard-size", "5", "--move-job", "a/b/c", str(spec)])
    assert bad.exit_code == 2 and "NAMESPACE/NAME" in bad.stderr


def test_pass_through_objects_are_units_of_their_own(tmp_path: Path) -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "team"}}
    spec = _spec(tmp_path / "jobs.yaml", [_job("a"), config, _job("b")])
    out = tmp_path / "out"
    assert run_cli(["render", "-o", str(out), "--shard-size", "9", str(spec)]).exit_code == 0
    record = yaml.safe_load((out / RECORD).read_text(encoding="utf-8"))
    assert record == {
        "shardSize": 9,
        "shards": {
            "shard-0001": {"ConfigMap team/settings": 1, "MXJob team/a": 8},
            "shard-0002": {"MXJob team/b": 8},
        },
    }
    assert (out / "shard-0001" / "team.configmap-settings.yaml").is_file()
    assert not (out / "kustomization.yaml").exists()


def test_the_tree_is_written_as_one_transaction(tmp_path: Path) -> None:
    """An invalid input, a move of an unknown job, a malformed record: nothing in DIR changes (exit 1, 2, 2)."""
    spec = _spec(tmp_path / "jobs.yaml", [_job("a"), _job("b", workers=3)])
    out = tmp_path / "out"
    assert run_cli(["render", "-o", str(out), "--shard-size", "10", str(spec)]).exit_code == 0
    before = _tree(out)
    again = run_cli(["render", "-o", str(out), "--shard-size", "10", str(spec)])
    assert again.exit_code == 0 and "0 written" in again.stderr and _tree(out) == before
    broken = _spec(tmp_path / "broken.yaml", [_job("a"), _job("c"), {**_job("d"), "spec": {"bogus": 1}}])
    assert run_cli(["render", "-o", str(out), "--shard-size", "10", str(broken)]).exit_code == 1
    assert _tree(out) == before
    unknown = run_cli(["render", "-o", str(out), "--shard-size", "10", "--move-job", "team/zzz", str(spec)])
    assert unknown.exit_code == 2 and "MXJob team/zzz" in unknown.stderr and _tree(out) == before
    flat = run_cli(["render", "-o", str(out), str(spec)])
    assert flat.exit_code == 2 and "--shard-size" in flat.stderr and _tree(out) == before
    (out / RECORD).write_text("shardSize: [\n", encoding="utf-8")
    damaged = run_cli(["render", "-o", str(out), "--shard-size", "10", str(spec)])
    assert damaged.exit_code == 2 and "not a shard record" in damaged.stderr
    assert {k: v for k, v in _tree(out).items() if k != RECORD} == {k: v for k, v in before.items() if k != RECORD}


def test_a_removed_job_frees_its_shard_and_stale_files_go(tmp_path: Path) -> None:
    out = tmp_path / "out"
    spec = _spec(tmp_path / "jobs.yaml", [_job("a"), _job("b"), _job("c")])
    assert run_cli(["render", "-o", str(out), "--shard-size", "8", str(spec)]).exit_code == 0
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["shard-0001", "shard-0002", "shard-0003"]
    _spec(spec, [_job("a"), _job("c")])
    result = run_cli(["render", "-o", str(out), "--shard-size", "8", str(spec)])
    assert result.exit_code == 0 and "1 written, 18 unchanged, 9 removed" in result.stderr, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [".mxjob-render.index", "shard-0001", "shard-0003", RECORD]
    (out / "shard-0003" / "notes.md").write_text("mine", encoding="utf-8")
    _spec(spec, [_job("a"), _job("d")])  # d takes the lowest free number: 2
    assert run_cli(["render", "-o", str(out), "--shard-size", "8", str(spec)]).exit_code == 0
    assert sorted(p.name for p in (out / "shard-0003").iterdir()) == ["notes.md"]  # not ours: kept
    assert (out / "shard-0002" / "team.pod-d-worker-0.yaml").is_file()


def test_a_linked_shard_directory_is_never_written_through(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir()
    (out / "shard-0001").symlink_to(elsewhere)
    spec = _spec(tmp_path / "jobs.yaml", [_job("a")])
    result = run_cli(["render", "-o", str(out), "--shard-size", "8", str(spec)])
    assert result.exit_code == 2 and "not a directory" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_validate_reads_a_sharded_directory_as_one_rendering(tmp_path: Path) -> None:
    """The record is not an object; the shards of DIR are one committed rendering, checked on its own beside the
    specs (no MXJ210 duplicate), as an unsharded -o DIR is."""
    spec = _spec(tmp_path / "jobs.yaml", [_job("a"), _job("b")])
    out = tmp_path / "out"
    assert run_cli(["render", "-o", str(out), "--shard-size", "8", str(spec)]).exit_code == 0
    alone = run_cli(["validate", str(out)])
    assert alone.exit_code == 0 and "16 valid" in alone.stdout, alone.stdout + alone.stderr
    both = run_cli(["validate", str(spec), str(out)])
    assert both.exit_code == 0 and "checked on its own" in both.stderr, both.stderr
    _spec(spec, [_job("a", workers=2), _job("b")])
    stale = run_cli(["validate", str(spec), str(out)])
    assert stale.exit_code == 1 and "stale" in stale.stdout + stale.stderr


@pytest.mark.parametrize("parts", [False, True], ids=["one process", "in parts"])
def test_an_unchanged_sharded_rerender_reads_no_file_and_a_move_is_not_vouched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parts: bool
) -> None:
    """The stat record covers the shards' files (in parts: each part vouches for a recorded unit's files under
    its shard's name); a moved job's files are written anew in their new shard, never vouched for in the old."""
    from mxjob_gitops.compiler.compile import stream
    from mxjob_gitops.compiler.io import statcache

    if parts:
        monkeypatch.setenv("MXJOB_JOBS", "8")
        monkeypatch.setattr(stream, "FANOUT_MIN_BYTES", 0)
    spec = _spec(tmp_path / "jobs.yaml", [_job(name) for name in "abcd"])
    out = tmp_path / "out"
    render = ["render", "-o", str(out), "--shard-size", "16", str(spec)]
    assert run_cli(render).exit_code == 0
    time.sleep(0.05)
    (tmp_path / "tick").write_bytes(b"")  # the file system's clock passes the files' ctime
    assert "0 written" in run_cli(render).stderr  # reads every file once, and records it
    opened: list[str] = []
    real = statcache.read_regular

    def watched(dir_fd: int, name: str, limit: int) -> bytes | None:
        opened.append(name)
        return real(dir_fd, name, limit)

    monkeypatch.setattr(statcache, "read_regular", watched)
    assert " 0 written" in run_cli(render).stderr and opened == []
    before = _tree(out)
    moved = run_cli([*render[:-1], "--move-job", "team/b", str(spec)])
    assert moved.exit_code == 0 and "moved MXJob team/b from shard-0001 to shard-0003: it restarts" in moved.stderr
    after = _tree(out)
    assert {k for k in after if "-b-" in k} == {k.replace("shard-0001", "shard-0003") for k in before if "-b-" in k}
    assert all(after[k] == before[k.replace("shard-0003", "shard-0001")] for k in after if "pod-b-" in k)
