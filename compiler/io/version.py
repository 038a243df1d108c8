"""`mxjob --version`: the version, and the Git commit the install came from (recorded in the wheel by
hatch_build.py, or read from the checkout an editable install runs from). Imported only for --version."""

from __future__ import annotations

import json
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import mxjob_gitops

BUILD_FILE = "_build.json"


def describe() -> str:
    """`mxjob 0.1.0`, then `(commit SHA)` or `(commit SHA, dirty: uncommitted changes)` when it is known."""
    try:
        number = version("mxjob-gitops")
    except PackageNotFoundError:
        number = "unknown"
    state = built_state(package_folder()) or checkout_state(package_folder().parent)
    if state is None:
        return f"mxjob {number}"
    dirty = ", dirty: uncommitted changes" if state.get("dirty") else ""
    return f"mxjob {number} (commit {state['commit']}{dirty})"


def package_folder() -> Path:
    return Path(mxjob_gitops.__file__).resolve().parent


def built_state(folder: Path) -> dict[str, Any] | None:
    """What the wheel's build recorded, if it was built from a Git checkout."""
    try:
        state = json.loads((folder / BUILD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and isinstance(state.get("commit"), str) else None


def checkout_state(root: Path) -> dict[str, Any] | None:
    """The commit checked out at `root` and whether tracked files changed, when the package runs from there
    (an editable install, `python -m` in a clone); None elsewhere or without git."""
    if not (root / ".git").exists() or not (root / "pyproject.toml").is_file():
        return None
    try:
        commit = _git(root, "rev-parse", "--verify", "HEAD")
        changes = _git(root, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return None
    return {"commit": commit, "dirty": bool(changes)}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True, timeout=10)
    return done.stdout.strip()
