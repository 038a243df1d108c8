"""Run git for the readers of revisions (io.gitsource reads blobs, io.checkout writes a revision's tree): its
output, or an InputError that names the command and git's last line."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path


def git(args: Sequence[str], repository: Path, stdin: bytes | None = None, *, index: Path | None = None) -> bytes:
    """`git -C REPOSITORY ARGS`'s standard output; `index` is a temporary index file to use (GIT_INDEX_FILE)."""
    from mxjob_gitops.compiler.io.inputs import InputError

    environment = None if index is None else {**os.environ, "GIT_INDEX_FILE": str(index)}
    try:
        done = subprocess.run(
            ["git", "-C", str(repository), *args], input=stdin, env=environment, capture_output=True, check=False
        )
    except FileNotFoundError as exc:
        raise InputError("git is not installed (--base and --head read files from Git)") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {args[0]} in {repository}: {message[-1] if message else 'failed'}")
    return done.stdout
