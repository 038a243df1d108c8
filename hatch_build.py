"""Build hook: a wheel built from a Git checkout records the commit it was built from (and whether the tree had
uncommitted changes) in mxjob_gitops/_build.json, which `mxjob --version` prints (compiler/io/version.py)."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUILD_FILE = "mxjob_gitops/_build.json"


def git_state(root: str) -> dict[str, Any] | None:
    """{"commit": SHA, "dirty": bool} of the checkout at `root`, or None outside Git (an sdist, no git)."""
    try:
        commit = subprocess.run(
            ["git", "-C", root, "rev-parse", "--verify", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        changes = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return {"commit": commit, "dirty": bool(changes.strip())}


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]  # hatchling's generic base
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":  # an editable install reads the checkout itself, whatever is checked out later
            return
        state = git_state(self.root)
        if state is None:
            return
        folder = Path(tempfile.mkdtemp(prefix="mxjob-build-"))
        (folder / "_build.json").write_text(json.dumps(state) + "\n", encoding="utf-8")
        build_data["force_include"][str(folder / "_build.json")] = BUILD_FILE
