"""The parts of a markdown diff too long for one pull-request comment, written to `mxjob diff --split DIR`."""

from __future__ import annotations

from pathlib import Path


def write_parts(directory: Path, parts: list[str]) -> str:
    """part-N-of-M.md for each part (earlier parts removed first); returns the directory's name for the note."""
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("part-*-of-*.md"):
        stale.unlink()
    for number, part in enumerate(parts, start=1):
        (directory / f"part-{number}-of-{len(parts)}.md").write_text(part, encoding="utf-8")
    return str(directory)
