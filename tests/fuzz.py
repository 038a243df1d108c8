"""The fuzz suite at full size: `python -m tests.fuzz [EXAMPLES]` (random seed; 10,000 inputs unless told)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    examples = argv[0] if argv else "10000"
    env = {**os.environ, "MXJOB_FUZZ_PROFILE": "long", "MXJOB_FUZZ_EXAMPLES": examples}
    test = Path(__file__).with_name("test_fuzz.py")
    return subprocess.call(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-x",
            "--hypothesis-show-statistics",
            str(test),
        ],
        env=env,
        cwd=test.parent.parent,
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
