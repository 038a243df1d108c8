"""Check a pod's env against what BytePS's launcher (`bpslaunch`) needs, in place of starting BytePS itself."""

# BytePS is on PyPI only as a CUDA-only source package, so its launcher cannot run here. What it requires was read
# from bytedance/byteps launcher/launch.py (commit f5df52fe, functions check_env and launch_bps); this is our own
# check of the same rules, plus what a cluster needs beyond one pod (the scheduler's name must resolve).
#   * DMLC_ROLE must be worker, server or scheduler; the worker branch compares it case-sensitively with "worker".
#   * Every role needs DMLC_NUM_WORKER, DMLC_NUM_SERVER, DMLC_PS_ROOT_URI and DMLC_PS_ROOT_PORT, except a worker of a
#     one-worker job, which needs only DMLC_WORKER_ID; every worker needs DMLC_WORKER_ID.
#   * A missing variable makes the launcher print a line and exit with status 0, so a pod would look Succeeded.
#   * A server or scheduler starts byteps.server only when DMLC_NUM_WORKER > 1 or BYTEPS_FORCE_DISTRIBUTED=1;
#     otherwise it exits 0 at once.
#   * A worker starts one process per entry of NVIDIA_VISIBLE_DEVICES (one when it is unset).

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Mapping

COMMON = ("DMLC_ROLE", "DMLC_NUM_WORKER", "DMLC_NUM_SERVER", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT")


def problems(env: Mapping[str, str]) -> list[str]:
    """What would make bpslaunch refuse (or silently skip) this env; empty when it would start."""
    role = env.get("DMLC_ROLE", "")
    if role.lower() not in ("worker", "server", "scheduler"):
        return [f"DMLC_ROLE {role!r} is not worker, server or scheduler"]
    found = []
    required = list(COMMON)
    if role == "worker":
        workers = env.get("DMLC_NUM_WORKER", "")
        if not workers.isdigit() or int(workers) < 1:
            return [f"DMLC_NUM_WORKER {workers!r} is not a count of at least 1"]
        required = ["DMLC_WORKER_ID"] if int(workers) == 1 else [*COMMON, "DMLC_WORKER_ID"]
        worker_id = env.get("DMLC_WORKER_ID", "")
        if worker_id and not (worker_id.isdigit() and int(worker_id) < int(workers)):
            found.append(f"DMLC_WORKER_ID {worker_id!r} is not in 0..{int(workers) - 1}")
    elif role != role.lower():
        found.append(f"DMLC_ROLE {role!r} is not lower case")
    elif env.get("BYTEPS_FORCE_DISTRIBUTED") != "1" and int(env.get("DMLC_NUM_WORKER") or "1") <= 1:
        found.append(f"a {role} with DMLC_NUM_WORKER <= 1 exits without serving (no BYTEPS_FORCE_DISTRIBUTED=1)")
    found.extend(f"{name} is missing" for name in required if name not in env)
    return found


def main() -> int:
    env = dict(os.environ)
    found = problems(env)
    uri = env.get("DMLC_PS_ROOT_URI", "")
    try:
        root_ip = socket.gethostbyname(uri) if uri else None
    except OSError as exc:
        root_ip = None
        found.append(f"DMLC_PS_ROOT_URI {uri!r} does not resolve: {exc}")
    devices = env.get("NVIDIA_VISIBLE_DEVICES")
    result = {
        "role": env.get("DMLC_ROLE"),
        "worker_id": env.get("DMLC_WORKER_ID"),
        "root_ip": root_ip,
        "local_size": len(devices.split(",")) if devices else 1,
        "command": sys.argv[1:],
        "problems": found,
    }
    print("E2E-RESULT " + json.dumps(result, sort_keys=True), flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
