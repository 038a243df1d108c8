"""Optional dependency sets (extras): what each needs, and the error that names the extra to install."""

from __future__ import annotations

import importlib.util
from importlib.metadata import PackageNotFoundError, version

from mxjob_gitops.compiler.io.errors import CommandError

DISTRIBUTION = "mxjob-gitops"
# extra → the import names it provides; the base install has none of them.
EXTRAS = {
    "cluster": ("kubernetes", "prometheus_client"),
    "schemas": ("kubernetes_validate",),
}


def missing(extra: str) -> list[str]:
    """The modules of an extra that cannot be imported (a module set to None in sys.modules counts as missing)."""
    return [module for module in EXTRAS[extra] if importlib.util.find_spec(module) is None]


def install_hint(extra: str) -> str:
    """How to add an extra, from the same pinned source as the base install (never a bare public name)."""
    try:
        wheel = f"mxjob_gitops-{version(DISTRIBUTION)}-py3-none-any.whl"
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        wheel = "mxjob_gitops-<version>-py3-none-any.whl"
    return (
        f"install the [{extra}] extra from the source you installed mxjob from, e.g. "
        f"pip install './dist/{wheel}[{extra}]' or "
        f"pip install 'mxjob-gitops[{extra}] @ git+https://<your-git-host>/<your-fork>.git@<commit>'"
    )


def require(extra: str, what: str) -> None:
    """Stop with exit 2 and a message naming the extra when `what` (a command or flag) cannot run without it."""
    absent = missing(extra)
    if absent:
        modules = ", ".join(absent)
        raise CommandError(f"{what} needs {modules}, which the base install leaves out; {install_hint(extra)}")
