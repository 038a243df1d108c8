"""A tiny MXNet job: every worker pushes known values through a kvstore and checks the pulled aggregate is exact."""

# Run by the e2e tier with the cached MXNet venv's python as the `mxnet` container's command, so it sees exactly a
# rendered pod's env. For the scheduler and server roles `import mxnet` itself runs ps-lite's node and exits
# (mxnet/kvstore/kvstore_server.py, _init_kvstore_server_module); only workers reach main().

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from pathlib import Path

import mxnet as mx  # type: ignore[import-not-found]

SMALL = (2, 3)
# Larger than MXNET_KVSTORE_BIGARRAY_BOUND (10**6 elements), so ps-lite splits this key over every server.
BIG = (1_100_000,)


def hold(path: str, timeout: float) -> None:
    """Wait until `path` exists (the test's go signal), bounded by `timeout`."""
    print("HOLDING", flush=True)
    deadline = time.monotonic() + timeout
    while not Path(path).exists():
        if time.monotonic() > deadline:
            sys.exit(f"no go signal at {path} within {timeout:.0f}s")
        time.sleep(0.05)


def exchange(kv: object, rank: int, workers: int, step: int) -> list[float]:
    """Push (rank+1)*step on both keys, pull them back; returns the distinct values seen and their expected sum."""
    results = []
    for key, shape in ((3, SMALL), (9, BIG)):
        kv.push(key, mx.nd.ones(shape) * (rank + 1) * step)  # type: ignore[attr-defined]
        out = mx.nd.zeros(shape)
        kv.pull(key, out=out)  # type: ignore[attr-defined]
        results.extend(sorted(set(out.asnumpy().ravel().tolist())))
    return results


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kv-store", default="dist_sync")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hold-after-first", help="after round 1, wait until this file exists")
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    config = json.loads(os.environ["MX_CONFIG"])
    task = config["task"]
    kv = mx.kv.create(args.kv_store)
    rank, workers = kv.rank, kv.num_workers
    print(f"JOINED rank={rank} of {workers}", flush=True)
    for key, shape in ((3, SMALL), (9, BIG)):
        kv.init(key, mx.nd.zeros(shape))
    ok = True
    rounds = []
    for step in range(1, args.rounds + 1):
        seen = exchange(kv, rank, workers, step)
        expected = float(workers * (workers + 1) // 2 * step)
        ok = ok and seen == [expected, expected]
        rounds.append({"step": step, "seen": seen, "expected": expected})
        print(f"ROUND {step} seen={seen} expected={expected}", flush=True)
        if step == 1 and args.hold_after_first:
            hold(args.hold_after_first, 120)
    result = {
        "rank": rank,
        "num_workers": workers,
        "kvstore": kv.type,
        "hostname": socket.gethostname(),
        "task": task,
        "own_url": config["cluster"][task["type"]][task["index"]]["url"],
        "worker_id": os.environ.get("DMLC_WORKER_ID"),
        "tag": args.tag,
        "rounds": rounds,
        "ok": ok,
    }
    print("E2E-RESULT " + json.dumps(result, sort_keys=True), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
