"""Every rendering the tiers check: each job example rendered, and each golden case whose output is a render."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import JOB_EXAMPLE_FILES, REPO, run_cli

GOLDEN = REPO / "tests" / "golden"


def _golden_renders() -> list[Path]:
    """Cases run as the default `render input.yaml` that exit 0: their expected.out is a rendering."""
    return sorted(
        case
        for case in GOLDEN.iterdir()
        if (case / "input.yaml").exists()
        and not (case / "args").exists()
        and (case / "expected.exit").read_text(encoding="utf-8").strip() == "0"
    )


RENDERING_IDS = [f"example:{p.parent.name}/{p.name}" for p in JOB_EXAMPLE_FILES] + [
    f"golden:{case.name}" for case in _golden_renders()
]


@cache
def rendering_text(ident: str) -> str:
    kind, name = ident.split(":", 1)
    if kind == "golden":
        return (GOLDEN / name / "expected.out").read_text(encoding="utf-8")
    result = run_cli(["render", str(REPO / "examples" / name)])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def rendering(ident: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(rendering_text(ident)) if doc]
