"""The units `mxjob validate` checks on their own: each `render -o` output directory among the inputs, and the
rest. A repository that commits its rendering beside its specs (docs/flux.md) holds every object twice; checked
as one input, each would be a duplicate (MXJ210) of itself. Every file is still read and checked: a unit only
bounds the check across objects, so an index file cannot hide anything from the check of its own objects; and an
object both the specs and a committed rendering hold must be the same in both (`stale_renderings`)."""

from __future__ import annotations

from pathlib import Path

import click

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, Location, Severity
from mxjob_gitops.compiler.compile.documents import Manifest, Plan
from mxjob_gitops.compiler.io.inputs import Inputs


def split_rendered(inputs: Inputs) -> list[Inputs]:
    """INPUTS as units: first what lies outside any `render -o` directory, then one unit per such directory (a
    directory holding render -o's index file), in the order first read; one unit when there is nothing to split."""
    from mxjob_gitops.compiler.base.escape import terminal
    from mxjob_gitops.compiler.io.output_dir import INDEX
    from mxjob_gitops.compiler.io.verbosity import quiet

    homes: dict[str, str] = {}  # file label -> its render -o directory, or "" for none
    for label in inputs.files:
        homes[label] = "" if label.startswith("<") else _rendered_home(Path(label).parent, INDEX)
    directories = list(dict.fromkeys(home for home in homes.values() if home))
    if not directories or (len(directories) == 1 and all(homes.values())):
        return [inputs]
    units = {home: Inputs() for home in ["", *directories]}
    for label in inputs.files:
        units[homes[label]].files.append(label)
    for document in inputs.documents:
        units[homes.get(document.file, "")].documents.append(document)
    for diagnostic in inputs.diagnostics:
        where = diagnostic.location.file if diagnostic.location is not None else ""
        units[homes.get(where, "")].diagnostics.append(diagnostic)
    if not quiet():
        for directory in directories:
            click.echo(
                f"mxjob: note: {terminal(directory)} holds the output of an earlier `mxjob render -o`: it is checked "
                "on its own, as what a GitOps tool applies from it",
                err=True,
            )
    return [unit for unit in units.values() if unit.files or unit.diagnostics]


def _rendered_home(parent: Path, index: str) -> str:
    """The `render -o` directory a file's folder belongs to: the folder itself, or the directory above a shard
    directory (`render -o DIR --shard-size`, docs/shards.md); "" for none."""
    from mxjob_gitops.compiler.compile.shards import shard_number

    if (parent / index).is_file():
        return parent.as_posix()
    if shard_number(parent.name) is not None and (parent.parent / index).is_file():
        return parent.parent.as_posix()
    return ""


def stale_renderings(plans: list[Plan]) -> list[Diagnostic]:
    """An error for each object a committed rendering (a unit after the first) holds that the specs (the first
    unit) render differently: the rendering is stale. One both render alike is the same object, not a duplicate."""
    from mxjob_gitops.compiler.compile.documents import identity

    if len(plans) < 2:
        return []
    fresh = {identity(m): m for m in plans[0].manifests()}
    found: list[Diagnostic] = []
    for plan in plans[1:]:
        for item, (document, prefix) in zip(plan.items, plan.origins, strict=True):
            for manifest in plan.item_manifests(item):
                expected = fresh.get(identity(manifest))
                if expected is not None and expected != manifest:
                    found.append(_stale(manifest, document.locate(prefix)))
    return found


def _stale(manifest: Manifest, where: Location) -> Diagnostic:
    kind, name = manifest.get("kind"), (manifest.get("metadata") or {}).get("name")
    return Diagnostic(
        Code.DUPLICATE_OBJECT,
        Severity.ERROR,
        f"{kind} {name} differs from what the specs render: this committed rendering is stale",
        location=where,
        hint=f"run `mxjob render -o {Path(where.file).parent.as_posix()}` on the specs again and commit the result",
    )
