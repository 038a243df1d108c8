"""The sides of `mxjob diff` (cli.diff calls sides and live_sides): paths, Git revisions or the cluster, each read
into what can be compared: the specs compiled, each committed `render -o` directory among the inputs checked on its
own and merged once (io.units, the rule render and validate follow), and, when a side is invalid, what of both sides
can still be compared: every object but those of the files with errors, on either side, which the report names.
A side that cannot be read as asked is a CommandError (exit 2)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity, has_errors
from mxjob_gitops.compiler.base.exact import exact
from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.compile.documents import Manifest, Plan, compile_documents, identity
from mxjob_gitops.compiler.compile.jobcache import CompileCache
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.inputs import Inputs, Parser
from mxjob_gitops.compiler.io.live import LiveCluster, live_plugin
from mxjob_gitops.compiler.io.units import merge_renderings, rendered_identities, split_rendered
from mxjob_gitops.compiler.render.options import RenderOptions

# The command's printer of diagnostics (a side's errors go to stderr before the report; cli.common.report, quiet).
Report = Callable[[Sequence[Diagnostic]], None]


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
    inputs: Inputs,
    options: RenderOptions,
    cache: CompileCache | None,
    prefix: str = "",
    note: bool = True,
    run: Run | None = None,
) -> Side:
    """INPUTS compiled as one side: the specs (with CACHE), each committed rendering on its own and merged once."""
    units = split_rendered(inputs, note)
    plan = compile_documents(units[0].documents, options, cache=cache, run=run)
    others = [compile_documents(unit.documents, options, run=run) for unit in units[1:]]
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


# old and new objects, their labels, refused updates, the sides' errors, the files not compared
Sides = tuple[list[Manifest], list[Manifest], str, str, list[Diagnostic], list[Diagnostic], tuple[str, ...]]


def sides(
    paths: tuple[str, ...],
    base: str | None,
    head: str | None,
    options: RenderOptions,
    report: Report,
    *,
    run: Run | None = None,
) -> Sides:
    """Both sides' manifests, less those of jobs and objects the two sides share (equal, so no difference).

    Each side is read and compiled in turn; a file with the same bytes on both sides is parsed once, an MXJob
    found on both sides is compiled once (compiler.jobcache), and an item both sides share is not rendered at
    all. A committed `render -o` directory counts as render and validate count it (io.units); the objects of a
    file with an error on either side are not compared, and the report names the file (io.sides). `run`: the run
    both sides are read and compiled under (None: the installed run; a revision's files are read under the
    installed run)."""
    from mxjob_gitops.compiler.compile.jobcache import CompileCache
    from mxjob_gitops.compiler.io.gitsource import read_revision
    from mxjob_gitops.compiler.io.inputs import SharedParses, read_inputs
    from mxjob_gitops.compiler.read.source import parse_text

    run = run if run is not None else current_run()
    parse: Parser
    if exact("shared", run):
        parse, cache = functools.partial(parse_text, run=run), None
    else:
        parse, cache = SharedParses(run), CompileCache()
    blobs: dict[str, str] = {}  # Git object id -> text: a blob in both revisions is read once
    side = functools.partial(compile_side, options=options, cache=cache, run=run)
    if base is None:
        if head is not None or len(paths) != 2:
            raise CommandError("give --base REF [--head REF] PATH..., or exactly two paths OLD NEW")
        old = side(read_inputs([paths[0]], parse=parse, run=run), prefix=paths[0], note=False)
        new = side(read_inputs([paths[1]], parse=parse, run=run), prefix=paths[1])
        return _compared(report, old, new, paths[0], paths[1])
    if not paths:
        raise CommandError("--base needs the PATH... to render on both sides")
    old = side(read_revision(base, paths, parse, blobs), prefix=f"{base}:", note=False)
    if head is None:
        present = [p for p in paths if p == "-" or Path(p).exists()]
        new = side(read_inputs(present, allow_empty=True, parse=parse, run=run) if present else Inputs())
        return _compared(report, old, new, base, "working tree")
    return _compared(report, old, side(read_revision(head, paths, parse, blobs), prefix=f"{head}:"), base, head)


def _compared(report: Report, old: Side, new: Side, base_label: str, head_label: str) -> Sides:
    """What of both sides can be compared, each side's errors on stderr (then exit 2, the report printed first)."""
    from mxjob_gitops.compiler.diff.changes import differing_manifests
    from mxjob_gitops.compiler.diff.jobset_refusals import refused_jobset_updates
    from mxjob_gitops.compiler.diff.updates import old_side_jobs, refused_updates

    report([*old.diagnostics, *new.diagnostics])
    old_plan, new_plan, uncompared = comparable(old, new)
    before, after = differing_manifests(old_plan, new_plan)
    refused = refused_updates(old_side_jobs(old_plan), new_plan) + refused_jobset_updates(before, after, new_plan)
    extra = ([], []) if uncompared else (old.extra, new.extra)
    invalid = [d for d in (*old.diagnostics, *new.diagnostics) if d.severity is Severity.ERROR]
    return [*before, *extra[0]], [*after, *extra[1]], base_label, head_label, refused, invalid, uncompared


def live_sides(
    paths: tuple[str, ...],
    base: str | None,
    head: str | None,
    cluster: LiveCluster,
    options: RenderOptions,
    compile_inputs: Callable[[Inputs, RenderOptions], Plan],
    *,
    run: Run | None = None,
) -> Sides:
    """The cluster against the rendered PATH... (or --head REF); jobs without a namespace go to the one kubectl
    would use (the kubeconfig context's), so an identical deployment shows no difference."""
    from mxjob_gitops.compiler.compile.documents import identity
    from mxjob_gitops.compiler.diff.diffview import live_view
    from mxjob_gitops.compiler.diff.jobset_refusals import refused_jobset_updates
    from mxjob_gitops.compiler.diff.updates import refused_updates, stored_jobs
    from mxjob_gitops.compiler.io.gitsource import read_revision
    from mxjob_gitops.compiler.io.inputs import read_inputs

    if base is not None or not paths:
        raise CommandError("--live compares the cluster with PATH... (optionally at --head REF); --base does not apply")
    fetch = live_plugin("fetch")
    if options.namespace is None:
        options = dataclasses.replace(options, namespace=live_plugin("namespace")(cluster.kubeconfig, cluster.context))
    plan = compile_inputs(read_revision(head, paths) if head else read_inputs(paths, run=run), options)
    new = list(plan.manifests())
    try:
        live = fetch(new, cluster.kubeconfig, cluster.context, cluster.prune_scope)
    except Exception as exc:
        raise CommandError(f"--live: {exc}") from None
    desired = {identity(obj): obj for obj in new}
    old = [live_view(obj, desired[identity(obj)]) if identity(obj) in desired else obj for obj in live]
    # The MXJobs as the cluster stores them (what the server's transition rules compare against).
    refused = refused_updates(stored_jobs(live), plan) + refused_jobset_updates(old, new, plan)
    return old, new, "cluster", head or "working tree", refused, [], ()
