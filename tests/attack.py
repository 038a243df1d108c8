"""Run one hostile input through the real CLI in a child process and measure how it is refused."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO

# The child imports the compiler before starting the clock: the limit is on the work an input causes. The clock
# is the process's CPU time, so a busy machine does not make a quick refusal look slow.
_CHILD = """
import sys, time
import mxjob_gitops.compiler.cli.group
import mxjob_gitops.compiler.compile.documents
import mxjob_gitops.compiler.compile.job
import mxjob_gitops.compiler.read.source
import mxjob_gitops.compiler.render.emit
import mxjob_gitops.compiler.rules.schema
start = time.process_time()
try:
    mxjob_gitops.compiler.cli.group.cli.main(args=sys.argv[1:], prog_name="mxjob")
    code = 0
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
seconds = time.process_time() - start
# VmHWM is this process's own peak (ru_maxrss would carry over the peak of the pytest process it was forked from)
peak_kb = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
sys.stderr.write(f"\\n@@ {code} {seconds} {peak_kb}\\n")
"""
_ADDRESS_SPACE = 2 * 1024**3  # a runaway child fails fast instead of taking the machine with it


@dataclass(frozen=True)
class Refusal:
    exit_code: int
    seconds: float
    peak_mb: float
    stdout: bytes
    stderr: str


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_ADDRESS_SPACE, _ADDRESS_SPACE))


def run_child(args: Sequence[str], cwd: Path, stdin: bytes = b"") -> Refusal:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        preexec_fn=_limit,
        timeout=120,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    head, _, tail = stderr.rpartition("\n@@ ")
    assert tail, f"the child died: {done.returncode} {stderr[-2000:]}"
    code, seconds, peak_kb = tail.split()
    return Refusal(int(code), float(seconds), int(peak_kb) / 1024, done.stdout, head)
