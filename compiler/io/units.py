"""The units every command reads its inputs in: the specs, and each committed `render -o` directory among the inputs
(one that holds render -o's index file). A repository that commits its rendering beside its specs (docs/flux.md)
holds every object twice; read as one stream, each would be a duplicate (MXJ210) of itself.

One rule for render, validate and diff (and so for pre-commit, CI and the PR comment): each committed rendering is
checked on its own, as what a GitOps tool applies from it; an object it shares with the specs must be the specs'
rendering of it, or the rendering is stale (MXJ210, with the `render -o` to run), and it is then counted once; its
other objects are read like any other input. Every file is read and checked: an index file committed beside a spec
cannot hide it. When every input lies in rendering directories, they are one unit, read as any input is.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, Location, Severity
from mxjob_gitops.compiler.compile.documents import Identity, Manifest, Plan
from mxjob_gitops.compiler.io.inputs import Inputs, Unread, rendering_dir

NOTE = (
    "holds the output of an earlier `mxjob render -o`: it is checked on its own, as what a GitOps tool applies "
    "from it; what it shares with the specs must be their rendering and is counted once"
)


def rendering_home(label: str, inputs: Inputs) -> str:
    """The `render -o` directory (as labelled) that holds the file LABEL, directly or in a shard directory, or ""
    for none (inputs.renderings: what the channel that read them found)."""
    if label.startswith("<"):
        return ""
    return rendering_dir(Path(label).parent, lambda directory: directory.as_posix() in inputs.renderings)


def split_rendered(inputs: Inputs, note: bool = True) -> list[Inputs]:
    """INPUTS as units: first the specs (what lies outside any `render -o` directory), then one unit per such
    directory, in the order first read; one unit when there are no specs or no such directory."""
    from mxjob_gitops.compiler.base.escape import terminal
    from mxjob_gitops.compiler.io.verbosity import quiet

    homes = {label: rendering_home(label, inputs) for label in inputs.files}
    directories = list(dict.fromkeys(home for home in homes.values() if home))
    if not directories or all(homes.values()):
        return [inputs]
    if note and not quiet():
        for directory in directories:
            click.echo(f"mxjob: note: {terminal(directory)} {NOTE}", err=True)
    return grouped(inputs, homes, ["", *directories])


def grouped(inputs: Inputs, homes: dict[str, str], order: list[str]) -> list[Inputs]:
    """INPUTS cut by the unit each file belongs to (HOMES: file label -> unit key, ORDER: the keys), empty units
    left out; a document or diagnostic of no known file goes to the first unit."""
    units = {home: Inputs() for home in order}
    first = order[0]
    for label in inputs.files:
        units[homes[label]].files.append(label)
    for document in inputs.documents:
        units[homes.get(document.file, first)].documents.append(document)
    for diagnostic in inputs.diagnostics:
        where = diagnostic.location.file if diagnostic.location is not None else ""
        units[homes.get(where, first)].diagnostics.append(diagnostic)
    return [unit for unit in units.values() if unit.files or unit.diagnostics]


def rendering_units(texts: list[tuple[str, str | Unread]]) -> tuple[list[tuple[str, str | Unread]], list[Inputs]]:
    """The work-tree texts of the specs, to be rendered, and the committed renderings among them, parsed, one unit
    per directory (none when there are no specs: then every text is the specs')."""
    from mxjob_gitops.compiler.base.escape import terminal
    from mxjob_gitops.compiler.io.inputs import parsed_inputs, renderings_of
    from mxjob_gitops.compiler.io.verbosity import quiet
    from mxjob_gitops.compiler.read.source import parse_text

    found = renderings_of(label for label, _ in texts)
    homes = {
        label: rendering_dir(Path(label).parent, lambda directory: directory.as_posix() in found) for label, _ in texts
    }
    held = [(label, text) for label, text in texts if homes[label]]
    if not held or len(held) == len(texts):
        return texts, []
    directories = list(dict.fromkeys(homes[label] for label, _ in held))
    if not quiet():
        for directory in directories:
            click.echo(f"mxjob: note: {terminal(directory)} {NOTE}", err=True)
    inputs = parsed_inputs(held, parse_text)
    return [(label, text) for label, text in texts if not homes[label]], grouped(inputs, homes, directories)


def rendered_identities(plans: Iterable[Plan]) -> set[Identity]:
    """The identity of every object the valid items of PLANS render."""
    from mxjob_gitops.compiler.compile.documents import identity

    return {identity(m) for plan in plans for item in plan.items for m in plan.item_manifests(item)}


def merge_renderings(fresh: dict[Identity, Manifest], plans: list[Plan]) -> tuple[list[Manifest], list[Diagnostic]]:
    """The objects of the committed renderings PLANS that the specs do not render (FRESH: the specs' objects, by
    identity, at least those the renderings hold), each once, and an error for each object a rendering holds
    otherwise than the specs (or an earlier rendering) render it: the rendering is stale."""
    from mxjob_gitops.compiler.compile.documents import identity

    known = dict(fresh)
    extra: list[Manifest] = []
    found: list[Diagnostic] = []
    for plan in plans:
        for item, (document, prefix) in zip(plan.items, plan.origins, strict=True):
            for manifest in plan.item_manifests(item):
                key = identity(manifest)
                expected = known.setdefault(key, manifest)
                if expected is manifest:
                    extra.append(manifest)
                elif expected != manifest:
                    found.append(_stale(manifest, document.locate(prefix)))
    return extra, found


def stale_renderings(plans: list[Plan]) -> list[Diagnostic]:
    """merge_renderings' errors for the units PLANS (the specs first), as `mxjob validate` reports them."""
    if len(plans) < 2:
        return []
    fresh = {key: m for key, m in _by_identity(plans[0])}
    return merge_renderings(fresh, plans[1:])[1]


def _by_identity(plan: Plan) -> list[tuple[Identity, Manifest]]:
    from mxjob_gitops.compiler.compile.documents import identity

    return [(identity(m), m) for item in plan.items for m in plan.item_manifests(item)]


def _stale(manifest: Manifest, where: Location) -> Diagnostic:
    kind, name = manifest.get("kind"), (manifest.get("metadata") or {}).get("name")
    return Diagnostic(
        Code.DUPLICATE_OBJECT,
        Severity.ERROR,
        f"{kind} {name} differs from what the specs render: this committed rendering is stale",
        location=where,
        hint=f"run `mxjob render -o {Path(where.file).parent.as_posix()}` on the specs again and commit the result",
    )
