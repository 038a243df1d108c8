"""Flux decoration: pods are force-replaced, and objects holding `${` opt out of post-build substitution."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from mxjob_gitops.compiler.render.decorations import Filter, JobContext, Manifest, annotate
from mxjob_gitops.compiler.spec.targets import Target

FLUX_FORCE = "kustomize.toolkit.fluxcd.io/force"
FLUX_SUBSTITUTE = "kustomize.toolkit.fluxcd.io/substitute"


def select(context: JobContext) -> Filter | None:
    if context.options.target is not Target.FLUX:
        return None
    # Only a job whose spec holds `${` can render objects that do; the others skip the per-object check.
    check = "${" in json.dumps(context.job.document, ensure_ascii=False)

    def decorate(manifests: Iterable[Manifest]) -> Iterator[Manifest]:
        for manifest in manifests:
            extra: dict[str, str] = {}
            if manifest["kind"] == "Pod":
                extra[FLUX_FORCE] = "Enabled"
            if check and "${" in json.dumps(manifest, ensure_ascii=False):
                extra[FLUX_SUBSTITUTE] = "disabled"
            if extra:
                annotate(manifest, extra)
            yield manifest

    return decorate
