"""The GitOps targets `--target` offers; what each adds lives in compiler.decorations (argocd, flux)."""

from __future__ import annotations

import enum


class Target(enum.StrEnum):
    PLAIN = "plain"
    ARGOCD = "argocd"
    FLUX = "flux"
