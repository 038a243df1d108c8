"""Inputs as a repository holds them: an earlier render's output directory among the specs is skipped."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import EXAMPLES, run_cli


def test_render_skips_its_own_earlier_output_directory(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    shutil.copytree(EXAMPLES / "train", jobs)
    first = run_cli(["render", "-o", str(jobs / "rendered"), str(jobs)])
    assert first.exit_code == 0, first.stderr
    again = run_cli(["render", "-o", str(tmp_path / "elsewhere"), str(jobs)])
    assert again.exit_code == 0, again.stderr
    assert "MXJ210" not in again.stderr
    assert f"mxjob: note: {(jobs / 'rendered').as_posix()}: skipped, it is the output of an earlier" in again.stderr
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == sorted(
        p.name for p in (jobs / "rendered").iterdir()
    )
    quiet = run_cli(["validate", "-q", str(jobs)])
    assert quiet.exit_code == 0 and "note" not in quiet.stderr
