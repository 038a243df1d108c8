"""Same input, same bytes: across runs, input key order, PYTHONHASHSEED and targets."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.render.emit import to_json
from tests.conftest import JOB_EXAMPLE_FILES, REPO, run_cli

EXAMPLE_FILES = [str(p) for p in JOB_EXAMPLE_FILES]


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def test_two_runs_give_identical_bytes() -> None:
    first = run_cli(["render", "--target", "argocd", *EXAMPLE_FILES])
    second = run_cli(["render", "--target", "argocd", *EXAMPLE_FILES])
    assert first.exit_code == 0
    assert first.stdout == second.stdout


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_key_order_of_the_input_does_not_matter(rng: random.Random) -> None:
    import yaml

    for path in EXAMPLE_FILES:
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
        baseline = run_cli(["render", "-"], stdin=to_json(document))
        shuffled = run_cli(["render", "-"], stdin=to_json(_shuffled(document, rng)).replace("\n", " "))
        assert baseline.exit_code == 0
        assert shuffled.stdout == baseline.stdout


def test_hash_seed_does_not_matter() -> None:
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "mxjob_gitops", "render", "--target", "flux", *EXAMPLE_FILES],
            cwd=REPO,
            env=env,
            capture_output=True,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
