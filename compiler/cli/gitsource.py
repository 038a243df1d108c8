"""Read input files as they are in a Git revision, straight from the object store (no checkout, tree untouched)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from compiler.cli.inputs import InputError, Inputs, is_manifest_path
from compiler.source import parse_text


def _git(args: Sequence[str], stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], input=stdin, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise InputError("git is not installed") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {args[0]}: {message[-1] if message else 'failed'}")
    return done.stdout


def read_revision(revision: str, paths: Sequence[str]) -> Inputs:
    """Every manifest file under PATHS at REVISION, parsed; files are named `REVISION:path`."""
    _git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"])
    top = Path(_git(["rev-parse", "--show-toplevel"]).decode().strip())
    listing = _git(["ls-tree", "-r", "-z", "--full-name", "--name-only", revision, "--", *paths])
    names = [n for n in listing.decode("utf-8", "surrogateescape").split("\0") if n]
    wanted = [n for n in names if is_manifest_path(PurePosixPath(n).parts)]
    inputs = Inputs()
    if not wanted:
        return inputs
    request = "".join(f"{revision}:{name}\n" for name in wanted).encode("utf-8", "surrogateescape")
    blobs = _split_batch(_git(["cat-file", "--batch"], stdin=request))
    for name, blob in zip(wanted, blobs, strict=True):
        label = f"{revision}:{os.path.relpath(top / name)}"
        try:
            text = blob.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(f"{label}: not UTF-8 text") from None
        parsed = parse_text(text, label)
        inputs.files.append(label)
        inputs.documents.extend(parsed.documents)
        inputs.diagnostics.extend(parsed.diagnostics)
    return inputs


def _split_batch(output: bytes) -> list[bytes]:
    """Split `git cat-file --batch` output: `<sha> <type> <size>\\n<content>\\n` per object."""
    blobs: list[bytes] = []
    position = 0
    while position < len(output):
        header_end = output.index(b"\n", position)
        header = output[position:header_end].split()
        if len(header) < 3:
            raise InputError(f"git cat-file: {output[position:header_end].decode(errors='replace')}")
        size = int(header[2])
        start = header_end + 1
        blobs.append(output[start:start + size])
        position = start + size + 1
    return blobs
