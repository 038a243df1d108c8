"""The two sides of `mxjob diff`: read each (paths, Git revisions, or the cluster), compile it with the command's
compiler (cli/diff.py passes one that reports and stops on errors), and keep what differs; then the report of
what changes between them (changed).

Both return `Sides`: the old side's and the new side's manifests, their labels, and the updates the API server
would refuse. A side that cannot be read as asked is a CommandError (exit 2)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.compile.documents import Manifest, Plan
from mxjob_gitops.compiler.compile.jobcache import CompileCache
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.inputs import Inputs
from mxjob_gitops.compiler.io.live import LiveCluster, live_plugin
from mxjob_gitops.compiler.render.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.diff.changes import ObjectChange
    from mxjob_gitops.compiler.diff.diffview import ViewOptions
    from mxjob_gitops.compiler.diff.restarts import JobRestart

Sides = tuple[list[Manifest], list[Manifest], str, str, list[Diagnostic]]
# The command's compiler: inputs (and the diff's compile memo, or None) -> their plan.
Compile = Callable[[Inputs, CompileCache | None], Plan]


def sides(paths: tuple[str, ...], base: str | None, head: str | None, compiled: Compile) -> Sides:
    """Both sides' manifests, less those of jobs and objects the two sides share (equal, so no difference).

    Each side is read and compiled in turn (the old side's errors stop the command before the new side is
    read, as before); a file with the same bytes on both sides is parsed once, an MXJob found on both sides
    is compiled once (compiler.jobcache), and an item both sides share is not rendered at all."""
    from mxjob_gitops.compiler.base.exact import exact
    from mxjob_gitops.compiler.diff.changes import differing_manifests
    from mxjob_gitops.compiler.diff.jobset_refusals import refused_jobset_updates
    from mxjob_gitops.compiler.diff.updates import old_side_jobs, refused_updates
    from mxjob_gitops.compiler.io.gitsource import read_revision
    from mxjob_gitops.compiler.io.inputs import SharedParses, read_inputs
    from mxjob_gitops.compiler.read.source import parse_text

    parse, cache = (parse_text, None) if exact("shared") else (SharedParses(), CompileCache())
    blobs: dict[str, str] = {}  # Git object id -> text: a blob in both revisions is read once

    def compared(old: Plan, new: Plan, base_label: str, head_label: str) -> Sides:
        before, after = differing_manifests(old, new)
        refused = refused_updates(old_side_jobs(old), new) + refused_jobset_updates(before, after, new)
        return before, after, base_label, head_label, refused

    if base is None:
        if head is not None or len(paths) != 2:
            raise CommandError("give --base REF [--head REF] PATH..., or exactly two paths OLD NEW")
        old = compiled(read_inputs([paths[0]], parse=parse), cache)
        return compared(old, compiled(read_inputs([paths[1]], parse=parse), cache), paths[0], paths[1])
    if not paths:
        raise CommandError("--base needs the PATH... to render on both sides")
    old = compiled(read_revision(base, paths, parse, blobs), cache)
    if head is None:
        present = [p for p in paths if p == "-" or Path(p).exists()]
        new = compiled(read_inputs(present, allow_empty=True, parse=parse) if present else Inputs(), cache)
        return compared(old, new, base, "working tree")
    return compared(old, compiled(read_revision(head, paths, parse, blobs), cache), base, head)


def live_sides(
    paths: tuple[str, ...],
    base: str | None,
    head: str | None,
    cluster: LiveCluster,
    options: RenderOptions,
    compiled: Callable[[Inputs, RenderOptions], Plan],
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
    plan = compiled(read_revision(head, paths) if head else read_inputs(paths), options)
    new = list(plan.manifests())
    try:
        live = fetch(new, cluster.kubeconfig, cluster.context, cluster.prune_scope)
    except Exception as exc:
        raise CommandError(f"--live: {exc}") from None
    desired = {identity(obj): obj for obj in new}
    old = [live_view(obj, desired[identity(obj)]) if identity(obj) in desired else obj for obj in live]
    # The MXJobs as the cluster stores them (what the server's transition rules compare against).
    refused = refused_updates(stored_jobs(live), plan) + refused_jobset_updates(old, new, plan)
    return old, new, "cluster", head or "working tree", refused


def changed(
    sides: Sides, view: ViewOptions, ignore_kinds: frozenset[str], cluster: LiveCluster | None
) -> tuple[list[ObjectChange], list[JobRestart], tuple[Diagnostic, ...]]:
    """What changes from the old side to the new, the jobs it restarts (with `cluster`: which of their pods run,
    since when) and the updates the API server would refuse, at their source files and lines."""
    import time

    from mxjob_gitops.compiler.compile.documents import sort_diagnostics
    from mxjob_gitops.compiler.diff.changes import DiffOptions, diff_manifests
    from mxjob_gitops.compiler.diff.restarts import plan_restarts
    from mxjob_gitops.compiler.io.origins import relocated
    from mxjob_gitops.compiler.io.running import observed_restarts
    from mxjob_gitops.compiler.io.startup import import_paused

    old, new, _base_label, _head_label, refused = sides
    if old or new:
        # compiler.changes compares differing objects with DeepDiff. Its import also imports pydantic when
        # installed (deepdiff/helper.py, to tell pydantic models apart), half of its 0.09 s; objects here
        # are JSON values, never models.
        import_paused("deepdiff", hidden=("pydantic",))
    changes = diff_manifests(old, new, DiffOptions(view, ignore_kinds))
    restarts = plan_restarts(changes)
    if cluster is not None:  # which of the pods concerned run, since when
        restarts = observed_restarts(restarts, cluster.kubeconfig, cluster.context, time.time())
    return changes, restarts, tuple(sort_diagnostics(relocated(refused)))  # a kustomize build's at their source
