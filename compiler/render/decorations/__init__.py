"""Decorations: small pure filters over one job's manifests, each chosen from the render options.

Modelled on kustomize's api/filters (one filter per concern, each a function from nodes to nodes). A
decoration module offers `select(context) -> Filter | None`; compiler.decorations.registry lists them in
the order they apply. A filter may replace a manifest's dicts with new ones and set keys on a Pod's own
metadata, labels and spec dicts (fresh per pod); every other sub-tree is shared with the job's templates
and must not be changed in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from mxjob_gitops.compiler.render.gang.plan import Gang
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.model import MXJob

Manifest = dict[str, Any]
Filter = Callable[[Iterable[Manifest]], Iterator[Manifest]]


@dataclass(frozen=True, slots=True)
class JobContext:
    """What a decoration may look at to decide whether and how it applies to one job."""

    job: MXJob
    options: RenderOptions
    gang: Gang | None


class Decoration(Protocol):
    """A decoration module's `select`: the filter for this job, or None when it does not apply."""

    def __call__(self, context: JobContext, /) -> Filter | None: ...


def annotate(manifest: Manifest, extra: dict[str, str]) -> None:
    """Add annotations with a new dict (the old one may be shared with a template)."""
    metadata = manifest["metadata"]
    metadata["annotations"] = {**(metadata.get("annotations") or {}), **extra}
