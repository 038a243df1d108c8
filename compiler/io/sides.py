"""One side of `mxjob diff` read into what can be compared (cli.diff calls it): the specs compiled, each committed
`render -o` directory among the inputs checked on its own and merged once (io.units, the rule render and validate
follow), and, when a side is invalid, what of both sides can still be compared: every object but those of the files
with errors, on either side, which the report names."""

from __future__ import annotations

from dataclasses import dataclass, field

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity, has_errors
from mxjob_gitops.compiler.compile.documents import Manifest, Plan, compile_documents, identity
from mxjob_gitops.compiler.compile.jobcache import CompileCache
from mxjob_gitops.compiler.io.inputs import Inputs
from mxjob_gitops.compiler.io.units import merge_renderings, rendered_identities, split_rendered
from mxjob_gitops.compiler.render.options import RenderOptions


@dataclass(slots=True)
class Side:
    """The specs' plan, the objects only a committed rendering holds, every diagnostic, and the files read."""

    plan: Plan
    extra: list[Manifest] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    prefix: str = ""  # what a file's label starts with on this side (`REV:`, or the OLD/NEW path), for matching

    @property
    def broken(self) -> set[str]:
        """The files (named without the side's prefix) with an error; "*" when an error names no file."""
        return {
            self.name(d.location.file) if d.location is not None and d.location.file else "*"
            for d in self.diagnostics
            if d.severity is Severity.ERROR
        }

    def name(self, label: str) -> str:
        return label[len(self.prefix) :].lstrip("/") if self.prefix and label.startswith(self.prefix) else label


def compile_side(
    inputs: Inputs, options: RenderOptions, cache: CompileCache | None, prefix: str = "", note: bool = True
) -> Side:
    """INPUTS compiled as one side: the specs (with CACHE), each committed rendering on its own and merged once."""
    units = split_rendered(inputs, note)
    plan = compile_documents(units[0].documents, options, cache=cache)
    others = [compile_documents(unit.documents, options) for unit in units[1:]]
    found = [*inputs.diagnostics, *plan.diagnostics, *(d for other in others for d in other.diagnostics)]
    side = Side(plan, [], found, list(inputs.files), prefix)
    if others:  # the valid items of each: a stale rendering is reported only when nothing else is wrong
        wanted = rendered_identities(others)
        fresh = {identity(m): m for item in plan.items for m in plan.item_manifests(item) if identity(m) in wanted}
        side.extra, stale = merge_renderings(fresh, others)
        side.diagnostics.extend(stale if not has_errors(found) else [])
    return side


def comparable(old: Side, new: Side) -> tuple[Plan, Plan, tuple[str, ...]]:
    """Both sides' plans less the items of files with an error on either side (matched by name), and those files;
    all of both when neither side has an error. An error that names no file leaves nothing to compare."""
    broken = old.broken | new.broken
    if not broken:
        return old.plan, new.plan, ()
    if "*" in broken:
        return (
            Plan(old.plan.options),
            Plan(new.plan.options),
            tuple(sorted({*map(old.name, old.files), *map(new.name, new.files)})),
        )
    return _without(old, broken), _without(new, broken), tuple(sorted(broken))


def _without(side: Side, broken: set[str]) -> Plan:
    kept = [
        (item, origin)
        for item, origin in zip(side.plan.items, side.plan.origins, strict=True)
        if side.name(origin[0].file) not in broken
    ]
    return Plan(side.plan.options, [item for item, _ in kept], [], [origin for _, origin in kept])
