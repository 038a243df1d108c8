"""An MXTune startup script: read MX_CONFIG and start the TVM RPC tracker, an RPC server, or a tuner client."""

# The role of the mxnet-operator's examples/tune/start-job.py, written for this tier: the tracker listens on its own
# mxjob-port from MX_CONFIG; servers register with the tracker under labels["tunerserver"] (the TunerServer
# template's tuner-server-key annotation); the tuner asks the tracker for a server with that key and uses it.
# Runs with the TVM venv's python (tvm.exec.rpc_tracker / tvm.exec.rpc_server, TVM 0.27).

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

TIMEOUT = 90.0


def tvm_module(module: str, *args: str) -> None:
    """Replace this process with `python -m module args` (what a startup script would exec)."""
    argv = [sys.executable, "-m", module, *args]
    print("EXEC " + " ".join(argv), flush=True)
    os.execv(sys.executable, argv)


def tuner(tracker: dict[str, Any], key: str) -> int:
    """Reach a server with `key` through the tracker and round-trip a file through it."""
    from tvm import rpc  # type: ignore[import-not-found]

    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            client = rpc.connect_tracker(tracker["url"], tracker["port"])
            break
        except (OSError, RuntimeError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    session = client.request(key, priority=1, session_timeout=60)
    session.upload(bytearray(b"mxtune"), "probe.bin")
    echoed = bytes(session.download("probe.bin"))
    summary = client.summary()
    result = {
        "key": key,
        "tracker": f"{tracker['url']}:{tracker['port']}",
        "echo": echoed.decode(),
        "servers": summary["server_info"],
    }
    print("E2E-RESULT " + json.dumps(result, sort_keys=True), flush=True)
    return 0 if echoed == b"mxtune" else 1


def main() -> int:
    config = json.loads(os.environ["MX_CONFIG"])
    task, cluster, labels = config["task"], config["cluster"], config["labels"]
    tracker, key = cluster["tunertracker"][0], labels["tunerserver"]
    own = cluster[task["type"]][task["index"]]
    # TVM binds the first free port in [--port, --port-end), and --port-end defaults to 9199: give the one port.
    ports = ["--port", str(own["port"]), "--port-end", str(own["port"] + 1)]
    if task["type"] == "tunertracker":
        tvm_module("tvm.exec.rpc_tracker", "--host", "0.0.0.0", *ports)
    if task["type"] == "tunerserver":
        tvm_module(
            "tvm.exec.rpc_server",
            "--host",
            "0.0.0.0",
            *ports,
            "--tracker",
            f"{tracker['url']}:{tracker['port']}",
            "--key",
            key,
        )
    if task["type"] == "tuner":
        return tuner(tracker, key)
    print(f"unknown task type {task['type']!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
