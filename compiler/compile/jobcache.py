"""Compile each distinct MXJob once across the two sides of `mxjob diff`: a memo of compile_object, exact by key.

compile_object(obj, options, defaults, priorities, sources) is a pure function: it never writes into `obj`
(compiler.convert.writable_v1 copies what it changes) and reads nothing else. Its only inputs from other
documents are the PriorityClass values and their source descriptions, which it reads by name only (see
compiler.gang._first_members). So an entry is reused when
  * the object is the same Python object (a file with the same bytes on both sides is parsed once, see
    cli.inputs.SharedParses), or its JSON text is the same: `json.dumps` keeps key order and tells 1, 1.0
    and true apart, which `==` on dicts does not (and order or type can change a rendering);
  * options and `defaults` are equal;
  * every PriorityClass name the first compile looked up has the same value, of the same type, and the same
    source description on this side (any other use of the two maps, such as iterating them, asks for the
    whole maps to be equal).
The same holds for every other object: checker.Checker's checks of one (is it an object, its kind, its
names) read that object and the Service name rule of the Kubernetes version alone, so an object that passed
them is known by identity (`passed`) and only its place in the input is checked again.
Diagnostics are kept unlocated: the caller locates them in its own document, so file names, lines and
columns are exactly those of an uncached compile. Everything else a job's place in the input decides (an
"also produced by" duplicate, the output-size estimate, a job passed through because its ConfigMap is in
the input) stays with checker.Checker, which runs on every object as before.

`compile_ahead` fills the memo before a Checker asks: the jobs it will compile that are not known yet are cut
into contiguous parts, one per compiler.fanout worker, each compiled where the runner puts it (a forked child
sends back the results, with what each compile read of the two mappings). The Checker then finds every job in
the memo, in its own order, and locates and counts it as before; a job whose compile failed or could not be
sent is not entered, and the Checker compiles it itself. `estimates` keeps each compiled job's share of the
output-size estimate (checker.job_output_estimate, a function of the job alone) for the Checkers of both
sides; a job compiled ahead brings its own from its child.
"""

from __future__ import annotations

import enum
import functools
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.compile.checker import JobEstimates, PassedObjects, job_output_estimate
from mxjob_gitops.compiler.compile.job import compile_object
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.render.options import RenderOptions

V = TypeVar("V")
Compiled = tuple[CompiledJob | None, list[Diagnostic]]
# Below this many jobs for each worker, compile_ahead leaves the jobs to the Checker: a forked child costs more
# than compiling a few jobs (see docs/performance.md, "The two sides of a diff").
AHEAD_MIN_JOBS: Final = 100


class _Absent(enum.Enum):
    """No such key: an enum member, so that a compile's reads sent from a child still say it (pickle keeps it)."""

    TOKEN = 0


_ABSENT: Final = _Absent.TOKEN


class _Watched(Mapping[str, V], Generic[V]):
    """A read-only view of a mapping that records every key looked up and whether the whole was read."""

    def __init__(self, data: Mapping[str, V]) -> None:
        self.data = data
        self.looked_up: dict[str, tuple[type, object]] = {}
        self.whole = False

    def _record(self, key: object) -> object:
        value = self.data.get(key, _ABSENT) if isinstance(key, str) else _ABSENT
        if isinstance(key, str):
            self.looked_up[key] = (type(value), value)
        else:
            self.whole = True
        return value

    def __getitem__(self, key: str) -> V:
        if self._record(key) is _ABSENT:
            raise KeyError(key)
        return self.data[key]

    def __contains__(self, key: object) -> bool:
        return self._record(key) is not _ABSENT

    def __iter__(self) -> Iterator[str]:
        self.whole = True
        return iter(self.data)

    def __len__(self) -> int:
        self.whole = True
        return len(self.data)


@dataclass(frozen=True, slots=True)
class _Reads:
    """What one compile read of a mapping: the keys looked up with their values, or the whole mapping."""

    looked_up: dict[str, tuple[type, object]]
    whole: dict[str, Any] | None

    @staticmethod
    def of(watched: _Watched[Any]) -> _Reads:
        return _Reads(dict(watched.looked_up), dict(watched.data) if watched.whole else None)

    def same_in(self, data: Mapping[str, Any]) -> bool:
        if self.whole is not None:
            return _typed(self.whole) == _typed(data)
        for key, (kind, value) in self.looked_up.items():
            now = data.get(key, _ABSENT)
            if type(now) is not kind or now != value:
                return False
        return True


def _typed(data: Mapping[str, Any]) -> dict[str, tuple[type, Any]]:
    return {key: (type(value), value) for key, value in data.items()}


@dataclass(frozen=True, slots=True)
class _Entry:
    obj: Any  # kept alive, so that id(obj) stays this object's while the entry exists
    options: RenderOptions
    defaults: bool
    priorities: _Reads
    sources: _Reads
    result: Compiled

    def fits(
        self, options: RenderOptions, defaults: bool, priorities: Mapping[str, int], sources: Mapping[str, str]
    ) -> bool:
        return (
            self.defaults == defaults
            and self.options == options
            and self.priorities.same_in(priorities)
            and self.sources.same_in(sources)
        )


def _fitting(
    entries: Iterable[_Entry],
    options: RenderOptions,
    defaults: bool,
    priorities: Mapping[str, int],
    sources: Mapping[str, str],
) -> _Entry | None:
    """The first of the entries whose compile had these arguments (as far as it read them)."""
    return next((entry for entry in entries if entry.fits(options, defaults, priorities, sources)), None)


class CompileCache:
    """compile_object, remembered by object identity and by JSON text (see the module docstring)."""

    def __init__(self) -> None:
        self._by_object: dict[int, list[_Entry]] = {}
        self._by_text: dict[str, list[_Entry]] = {}
        self.passed: PassedObjects = {}  # objects other than MXJobs that passed checker.Checker's checks
        self.estimates: JobEstimates = {}  # the output estimate of each compiled job, for checker.Checker
        self.compiled = 0  # how many objects were compiled, not found: for tests
        self.reused = 0
        self._ahead: set[int] = set()  # id() of the entries compile_ahead made that no lookup has found yet

    def compile(
        self,
        obj: dict[str, Any],
        options: RenderOptions,
        defaults: bool,
        priorities: Mapping[str, int],
        sources: Mapping[str, str],
    ) -> Compiled:
        """compile_object's result for these arguments; the diagnostics are shared, never change them."""
        entry = self._by_identity(obj, options, defaults, priorities, sources)
        if entry is not None:
            self._found(entry)
            return entry.result
        text = _text(obj)
        if text is None:  # not plain JSON data: compiled every time
            return compile_object(obj, options, defaults, priorities, sources)
        entry = self._by_text_found(text, options, defaults, priorities, sources)
        if entry is not None:
            self._by_object.setdefault(id(obj), []).append(_Entry(obj, *_fields(entry)))
            self._found(entry)
            return entry.result
        result, read_priorities, read_sources = _compiled(obj, options, defaults, priorities, sources)
        self._enter(_Entry(obj, options, defaults, read_priorities, read_sources, result), text)
        return result

    def compile_ahead(
        self,
        objects: Sequence[dict[str, Any]],
        options: RenderOptions,
        defaults: bool,
        priorities: Mapping[str, int],
        sources: Mapping[str, str],
        run: Run | None = None,
    ) -> None:
        """Compile the jobs among `objects` that `compile` would not find, over the workers of `run` (None: the
        installed run; see the module docstring); nothing when there are fewer than AHEAD_MIN_JOBS for each of two
        workers or more."""
        run = run if run is not None else current_run()
        arguments = (options, defaults, priorities, sources)
        waiting: dict[str, dict[str, Any]] = {}  # JSON text -> the first object with it, not known yet
        for obj in objects:
            if self._by_identity(obj, *arguments) is None:
                text = _text(obj)
                if text is not None and text not in waiting and self._by_text_found(text, *arguments) is None:
                    waiting[text] = obj
        count = min(run.workers, len(waiting) // AHEAD_MIN_JOBS)
        if count < 2:
            return
        texts = list(waiting)
        cuts = [len(texts) * i // count for i in range(count + 1)]
        parts = [[waiting[text] for text in texts[start:end]] for start, end in itertools.pairwise(cuts)]
        task = functools.partial(_compile_part, options, defaults, priorities, sources)
        for part, results in zip(itertools.pairwise(cuts), run.runner(task, parts), strict=True):
            for text, sent in zip(texts[slice(*part)], results, strict=True):
                if sent is not None:
                    (result, read_priorities, read_sources), size = sent
                    entry = _Entry(waiting[text], options, defaults, read_priorities, read_sources, result)
                    self._enter(entry, text)
                    self._ahead.add(id(entry))
                    job = result[0].job if result[0] is not None else None
                    if job is not None and size is not None:
                        self.estimates[id(job)] = (job, size)

    def _by_identity(
        self,
        obj: object,
        options: RenderOptions,
        defaults: bool,
        priorities: Mapping[str, int],
        sources: Mapping[str, str],
    ) -> _Entry | None:
        entries = (entry for entry in self._by_object.get(id(obj), ()) if entry.obj is obj)
        return _fitting(entries, options, defaults, priorities, sources)

    def _by_text_found(
        self,
        text: str,
        options: RenderOptions,
        defaults: bool,
        priorities: Mapping[str, int],
        sources: Mapping[str, str],
    ) -> _Entry | None:
        return _fitting(self._by_text.get(text, ()), options, defaults, priorities, sources)

    def _enter(self, entry: _Entry, text: str) -> None:
        self._by_object.setdefault(id(entry.obj), []).append(entry)
        self._by_text.setdefault(text, []).append(entry)
        self.compiled += 1

    def _found(self, entry: _Entry) -> None:
        """Count a lookup answered from the memo (an entry compile_ahead made counts once it is first found)."""
        if id(entry) in self._ahead:
            self._ahead.discard(id(entry))
        else:
            self.reused += 1


Reads = tuple[Compiled, "_Reads", "_Reads"]
Sent = tuple[Reads, int | None]  # and the job's output estimate (checker.job_output_estimate)


def _compiled(
    obj: dict[str, Any],
    options: RenderOptions,
    defaults: bool,
    priorities: Mapping[str, int],
    sources: Mapping[str, str],
) -> Reads:
    """compile_object's result, with what it read of the two mappings."""
    watched_priorities, watched_sources = _Watched(priorities), _Watched(sources)
    result = compile_object(obj, options, defaults, watched_priorities, watched_sources)
    return result, _Reads.of(watched_priorities), _Reads.of(watched_sources)


def _compile_part(
    options: RenderOptions,
    defaults: bool,
    priorities: Mapping[str, int],
    sources: Mapping[str, str],
    part: list[dict[str, Any]],
    _here: bool,
) -> list[Sent | None]:
    """compile_ahead's task: each job's compile and output estimate, or None where either raised (the Checker
    then meets that itself)."""
    results: list[Sent | None] = []
    for obj in part:
        try:
            reads = _compiled(obj, options, defaults, priorities, sources)
            job = reads[0][0].job if reads[0][0] is not None else None
            results.append((reads, job_output_estimate(job) if job is not None else None))
        except Exception:
            results.append(None)
    return results


def _text(obj: dict[str, Any]) -> str | None:
    """The object's JSON text (the memo's key), or None when it is not plain JSON data."""
    try:
        return json.dumps(obj)
    except (TypeError, ValueError, RecursionError):
        return None


def _fields(entry: _Entry) -> tuple[RenderOptions, bool, _Reads, _Reads, Compiled]:
    return entry.options, entry.defaults, entry.priorities, entry.sources, entry.result
