"""`render -o DIR` under SIGKILL at 20 points of a large render and 40 pairs of renders racing into one DIR.

After every trial DIR holds exactly one complete rendering (the old, the new, or a committed journal that the
next run finishes), and the next render succeeds and leaves exactly its own files: no staging leftovers, no
journal, no strays. The children are forked from tests/render_forkserver.py, which counts every file-system
change a render makes and can SIGKILL it just before any of them.
"""

from __future__ import annotations

import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mxjob_gitops.compiler.io.rendernames import JOURNAL, STAGING
from tests.conftest import REPO
from tests.helpers import container, job, replica


class RenderServer:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.render_forkserver"],
            cwd=REPO,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        assert self.lines.get(timeout=60) == "ready"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def run(self, *runs: dict[str, Any]) -> list[dict[str, int]]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(list(runs)) + "\n")
        self.process.stdin.flush()
        answer: list[dict[str, int]] = json.loads(self.lines.get(timeout=120))
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.reader.join(timeout=30)
        self.process.stdout.close()


@pytest.fixture(scope="module")
def server() -> Iterator[RenderServer]:
    started = RenderServer()
    yield started
    started.close()


def _inputs(directory: Path, scale: int) -> dict[str, Path]:
    """Three renderings of one job and its companions that differ in files, contents and count."""
    found = {}
    for label, workers, image in (
        ("a", 6 * scale, "mxnet:1.9"),
        ("b", 4 * scale, "mxnet:2.0"),
        ("c", 5 * scale, "mxnet:2.1"),
    ):
        spec = job(
            name="big",
            Scheduler=replica(1),
            Server=replica(2),
            Worker=replica(workers, containers=[container(image=image)]),
        )
        others = [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"cm-{label}-{i % 7}-{i}"},
                "data": {"v": label * 2000},
            }
            for i in range(10)
        ]
        path = directory / f"{label}.json"
        path.write_text("\n---\n".join(json.dumps(d) for d in [spec, *others]), encoding="utf-8")
        found[label] = path
    return found


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(directory.rglob("*"))
    }


def _render(
    server: RenderServer,
    tmp_path: Path,
    out: Path,
    source: Path,
    kill_at: int | None = None,
    log: str = "log",
    layout: tuple[str, ...] = (),
) -> dict[str, int]:
    [result] = server.run(
        {
            "argv": ["render", "-q", *layout, "-o", str(out), str(source)],
            "kill_at": kill_at,
            "log": str(tmp_path / log),
        }
    )
    return result


Renderings = tuple[dict[str, Path], dict[str, dict[str, bytes]]]


def _renderings(server: RenderServer, tmp_path: Path, scale: int, layout: tuple[str, ...] = ()) -> Renderings:
    inputs = _inputs(tmp_path, scale)
    expected = {}
    for label, source in inputs.items():
        assert _render(server, tmp_path, tmp_path / f"ref-{label}", source, layout=layout)["status"] == 0
        expected[label] = _snapshot(tmp_path / f"ref-{label}")
    assert len({json.dumps(sorted(s)) for s in expected.values()}) == 3  # three different sets of files
    return inputs, expected


@pytest.mark.parametrize("layout", [(), ("--shard-size", "40")], ids=["flat", "sharded"])
def test_sigkill_at_20_points_leaves_one_rendering_or_a_journal_the_next_run_finishes(
    server: RenderServer, tmp_path: Path, layout: tuple[str, ...]
) -> None:
    """Sharded (docs/shards.md): the ConfigMaps fill shard-0001 and the job is alone in shard-0002, whichever
    input came before, so each input has one expected tree."""
    inputs, expected = _renderings(server, tmp_path, scale=10, layout=layout)  # 62 to 42 pods: about 150 files
    assert bool(layout) == ("shard-0002/kustomization.yaml" in expected["a"])
    work = tmp_path / "work"
    shutil.copytree(tmp_path / "ref-a", work)
    counted = _render(server, tmp_path, work, inputs["b"], layout=layout)
    assert counted["status"] == 0 and _snapshot(work) == expected["b"]
    points = sorted(random.Random(20).sample(range(1, counted["steps"] + 1), 20))
    names = {*expected["a"], *expected["b"]}
    for trial, point in enumerate(points):
        shutil.rmtree(work)
        shutil.copytree(tmp_path / "ref-a", work)
        killed = _render(server, tmp_path, work, inputs["b"], kill_at=point, layout=layout)
        assert os.WIFSIGNALED(killed["status"]) and os.WTERMSIG(killed["status"]) == signal.SIGKILL
        state = {n: data for n, data in _snapshot(work).items() if not n.startswith(STAGING)}  # the next run
        assert state in (expected["a"], expected["b"]) or JOURNAL in state, f"step {point}: a mixed directory"
        strays = [n for n in state if n not in names and n != JOURNAL]
        assert not strays, (point, strays)
        again = "b" if trial % 2 else "a"  # the next render either finishes the change or renders the old input
        assert _render(server, tmp_path, work, inputs[again], layout=layout)["status"] == 0
        assert _snapshot(work) == expected[again], f"step {point}: the next render left extra or missing files"


def test_40_pairs_of_concurrent_renders_leave_one_rendering(server: RenderServer, tmp_path: Path) -> None:
    inputs, expected = _renderings(server, tmp_path, scale=1)
    work = tmp_path / "work"
    shutil.copytree(tmp_path / "ref-a", work)
    for pair in range(40):
        first, second = ("b", "c") if pair % 2 else ("c", "b")
        results = server.run(
            *(
                {
                    "argv": ["render", "-q", "-o", str(work), str(inputs[label])],
                    "kill_at": None,
                    "log": str(tmp_path / f"log-{label}"),
                }
                for label in (first, second)
            )
        )
        assert [r["status"] for r in results] == [0, 0], [(tmp_path / f"log-{x}").read_text() for x in "bc"]
        assert _snapshot(work) in (expected["b"], expected["c"]), f"pair {pair}: a mixed directory"
