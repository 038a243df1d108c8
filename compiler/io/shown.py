"""How a file is named in messages and findings: relative to the working directory when below it, else absolute
(io.gitsource, io.revisiontree and io.origins name the files they read alike)."""

from __future__ import annotations

import os
from pathlib import Path


def shown(path: Path) -> str:
    """Relative to the current directory when below it (as the working-tree side names files), else absolute."""
    relative = os.path.relpath(path)
    return path.as_posix() if relative.startswith("..") else Path(relative).as_posix()
