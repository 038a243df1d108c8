"""Stable shards for `render -o DIR --shard-size N`: which shard holds each unit (a job with all its objects, or one
pass-through object), read from and written to the record DIR/shards.yaml, and the assignment that never moves a
recorded unit. Pure: io.shards reads and writes the files.

The rule (docs/shards.md): a unit in the record stays in its shard, whatever its size now; a unit new to the
record (or one named by --move-job) goes to the lowest-numbered shard with room for it (at most N objects in
all), else to a new shard under the lowest free number; a unit larger than N is alone in a shard of its own.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mxjob_gitops.compiler.base.limits import MAX_SHARD_SIZE
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.rules.objectcheck import identity

RECORD = "shards.yaml"
_SHARD = re.compile(r"shard-([0-9]{4,9})")
_UNIT = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62} (?:[a-z0-9][a-z0-9.-]{0,252}/)?[A-Za-z0-9][A-Za-z0-9.:_@-]{0,252}")
_HEADER = (
    "# Written by `mxjob render -o DIR --shard-size N`: which shard (a directory of DIR) holds each job and each\n"
    "# other object, and how many objects it had. Commit it with the shards. A re-render never moves a job listed\n"
    "# here; `--move-job NAMESPACE/NAME` moves one, and that restarts it (docs/shards.md).\n"
)


def shard_name(number: int) -> str:
    """`shard-0001`: the directory of shard `number` (from 1), zero-padded to four digits."""
    return f"shard-{number:04d}"


def shard_number(name: str) -> int | None:
    """The number of a shard directory name as shard_name writes it, else None."""
    found = _SHARD.fullmatch(name)
    if found is None or shard_name(int(found.group(1))) != name or int(found.group(1)) < 1:
        return None
    return int(found.group(1))


def unit_of(item: CompiledJob | dict[str, Any]) -> str:
    """The unit key of a rendered item: `MXJob NAMESPACE/NAME` for a job, `KIND NAMESPACE/NAME` for another object
    (without `NAMESPACE/` when it has none)."""
    if isinstance(item, CompiledJob):
        job = item.job
        if job is not None:
            return unit_key("MXJob", job.namespace or "", job.name)
        item = item.conversion.data
    _api, kind, namespace, name = identity(item)
    return unit_key(kind, namespace, name)


def unit_key(kind: str, namespace: str, name: str) -> str:
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def job_unit(reference: str) -> str | None:
    """The unit of `--move-job NAMESPACE/NAME` (or NAME for a job without a namespace), None if malformed."""
    unit = f"MXJob {reference}"
    return unit if _UNIT.fullmatch(unit) and reference.count("/") <= 1 else None


@dataclass(frozen=True, slots=True)
class ShardRecord:
    """DIR/shards.yaml: the shard size it was written with, and each shard's units with their object counts."""

    size: int
    shards: dict[str, dict[str, int]] = field(default_factory=dict)

    def shard_names(self) -> list[str]:
        """The shards, by number."""
        return sorted(self.shards, key=lambda name: shard_number(name) or 0)

    def shard_of(self) -> dict[str, str]:
        """Each unit's shard."""
        return {unit: shard for shard, units in self.shards.items() for unit in units}

    def load(self, shard: str) -> int:
        return sum(self.shards.get(shard, {}).values())


def record_text(record: ShardRecord) -> str:
    """The record as committed: shards by number, units sorted, no time stamps (the same record, the same bytes)."""
    lines = [_HEADER.rstrip("\n"), f"shardSize: {record.size}", "shards:" if record.shards else "shards: {}"]
    for shard in record.shard_names():
        lines.append(f"  {shard}:")
        lines.extend(f"    {unit}: {count}" for unit, count in sorted(record.shards[shard].items()))
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> ShardRecord:
    """A record read back (ValueError saying what is wrong when it is not one record_text could have written)."""
    import yaml

    try:
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"not YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or set(data) != {"shardSize", "shards"}:
        raise ValueError("expected exactly the keys shardSize and shards")
    size, shards = data["shardSize"], data["shards"]
    if not _count(size) or not 1 <= size <= MAX_SHARD_SIZE or not isinstance(shards, dict):
        raise ValueError(f"shardSize must be a number from 1 to {MAX_SHARD_SIZE}, shards a mapping")
    seen: set[str] = set()
    parsed: dict[str, dict[str, int]] = {}
    for shard, units in shards.items():
        if not isinstance(shard, str) or shard_number(shard) is None:
            raise ValueError(f"{str(shard)[:80]!r} is not a shard name (shard-0001, shard-0002, ...)")
        if not isinstance(units, dict) or not units:
            raise ValueError(f"{shard}: expected a mapping of units to object counts")
        for unit, count in units.items():
            if not isinstance(unit, str) or not _UNIT.fullmatch(unit) or not _count(count):
                raise ValueError(f"{shard}: {str(unit)[:80]!r}: expected `KIND NAMESPACE/NAME: OBJECTS`")
            if unit in seen:
                raise ValueError(f"{unit} is in two shards")
            seen.add(unit)
        parsed[shard] = dict(units)
    return ShardRecord(size, parsed)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class Placement:
    """What assign() decided: the new record, the moves asked for (unit, from, to), and the shards left over
    their size by units that grew, each with a sentence saying so and how to move one."""

    record: ShardRecord
    moved: list[tuple[str, str, str]]
    warnings: list[str]


def assign(previous: ShardRecord | None, units: Mapping[str, int], size: int, moves: Collection[str] = ()) -> Placement:
    """Place every unit of `units` (unit -> its objects now) in a shard of at most `size` objects, keeping every
    unit of `previous` where it is unless it is in `moves` (ValueError for a move of a unit not recorded or not
    rendered now). The same arguments give the same placement."""
    if not 1 <= size <= MAX_SHARD_SIZE:
        raise ValueError(f"the shard size must be from 1 to {MAX_SHARD_SIZE}")
    was = previous.shard_of() if previous is not None else {}
    for unit in moves:
        if unit not in was or unit not in units:
            raise ValueError(f"{unit} cannot be moved: it is not {'rendered now' if unit in was else 'in the record'}")
    shards: dict[int, dict[str, int]] = {}
    for unit, count in units.items():
        if unit in was and unit not in moves:
            shards.setdefault(shard_number(was[unit]) or 0, {})[unit] = count
    moved: list[tuple[str, str, str]] = []
    loads = {number: sum(held.values()) for number, held in shards.items()}
    placed = {unit for held in shards.values() for unit in held}
    for unit in sorted(unit for unit in units if unit not in placed):
        away = shard_number(was[unit]) if unit in moves else None
        number = _room_for(loads, units[unit], size, away)
        shards.setdefault(number, {})[unit] = units[unit]
        loads[number] = loads.get(number, 0) + units[unit]
        if away is not None:
            moved.append((unit, was[unit], shard_name(number)))
    record = ShardRecord(size, {shard_name(n): shards[n] for n in sorted(shards)})
    return Placement(record, moved, _overfull(previous, record))


def _room_for(loads: Mapping[int, int], count: int, size: int, away: int | None) -> int:
    """The lowest-numbered shard (not `away`) with room for `count` more objects, else the lowest free number."""
    if count <= size:
        for number in sorted(loads):
            if number != away and loads[number] + count <= size:
                return number
    number = 1
    while number in loads or number == away:
        number += 1
    return number


def _overfull(previous: ShardRecord | None, record: ShardRecord) -> list[str]:
    """A sentence for each shard of more than one unit over the size: which units grew, and how to move one."""
    before = previous.shard_of() if previous is not None else {}
    counts = {unit: count for units in (previous.shards.values() if previous else ()) for unit, count in units.items()}
    warnings = []
    for shard in record.shard_names():
        units = record.shards[shard]
        load = sum(units.values())
        if load <= record.size or len(units) == 1:
            continue
        grown = [u for u in sorted(units) if before.get(u) == shard and units[u] > counts.get(u, 0)]
        if grown:
            why = "; ".join(f"{u} grew from {counts[u]} to {units[u]} objects" for u in grown)
        elif previous is not None and previous.size == record.size:
            why = "a job in it grew at an earlier render"
        else:
            why = f"the shard size is now {record.size}"
        jobs = [u for u in (*grown, *sorted(units)) if u.startswith("MXJob ")]
        how = (
            f"To move one anyway, render again with --move-job {jobs[0].partition(' ')[2]}: its pods are then "
            "pruned by this shard's unit and re-created by the new shard's"
            if jobs
            else "--move-job moves a job only"
        )
        warnings.append(
            f"{shard} holds {load} objects, more than --shard-size {record.size} ({why}); its jobs stay where they "
            f"are, because moving a job restarts it. {how}"
        )
    return warnings


def placement_units(groups: Iterable[tuple[str, int]]) -> dict[str, int]:
    """unit -> objects, in the order given (a unit given twice counts all its objects)."""
    units: dict[str, int] = {}
    for unit, count in groups:
        units[unit] = units.get(unit, 0) + count
    return units
