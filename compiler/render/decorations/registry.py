"""Every decoration, in the order they apply: adding one is a module plus one line here.

Gang schedulers have their own registry, render/gang/registry.py.
"""

from __future__ import annotations

from mxjob_gitops.compiler.render.decorations import Decoration, argocd, flux, gang

# Gang membership first: the Flux substitution check sees the finished pod.
DECORATIONS: tuple[Decoration, ...] = (
    gang.select,
    argocd.select,
    flux.select,
)
