"""A pre-imported, single-threaded process that forks `mxjob render` runs on request (crash and race trials).

One JSON line in: a list of runs `{"argv": [...], "kill_at": N | null, "log": path}`, started at once (each in
its own forked child, so two runs race for real). One JSON line out: per run, its wait status and the number
of filesystem steps it took. A step is a call that changes the file system (open for writing, replace,
rename, unlink, mkdir, rmdir); with `kill_at` N the child SIGKILLs itself just before its Nth step, the
moment a crash or power cut could come between two of them.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import signal
import sys
from typing import Any


def _install_steps(kill_at: int | None) -> list[int]:
    count = [0]

    def step() -> None:
        count[0] += 1
        if kill_at is not None and count[0] >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def counted(function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            step()
            return function(*args, **kwargs)

        return wrapper

    for name in ("replace", "rename", "unlink", "mkdir", "rmdir"):
        real = getattr(os, name)
        setattr(os, name, counted(real))
        for supports in (os.supports_dir_fd, os.supports_follow_symlinks, os.supports_fd):
            if real in supports:  # shutil.rmtree and others ask these sets before passing dir_fd
                supports.add(getattr(os, name))
    real_os_open = os.open
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        writing = bool(flags & write_flags)
        if writing:
            step()
        fd = real_os_open(path, flags, *args, **kwargs)
        if writing:
            step()  # the file exists now, still empty
        return fd

    os.open = os_open
    for supports in (os.supports_dir_fd, os.supports_follow_symlinks, os.supports_fd):
        if real_os_open in supports:
            supports.add(os_open)
    real_open = io.open

    def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        writing = any(flag in mode for flag in "wax+")
        if writing:
            step()
        handle = real_open(file, mode, *args, **kwargs)
        if writing:
            step()  # the file exists now, still empty
        return handle

    io.open = builtins.open = open_
    return count


def _child(run: dict[str, Any]) -> None:
    log = os.open(run["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    count = _install_steps(run["kill_at"])
    code = 3
    try:
        from mxjob_gitops.compiler.cli.main import main

        main(run["argv"])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.write(2, f"\n@@steps {count[0]}\n".encode())
        os._exit(code)


def main() -> None:
    from mxjob_gitops.compiler import RenderOptions, compile_documents, parse_text

    # Warm what every child would build again: the schema validators behind compile_documents.
    container = {"name": "mxnet", "image": "mxnet:1.9"}
    warm = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MXJob",
        "metadata": {"name": "warm"},
        "spec": {
            "jobMode": "MXTrain",
            "mxReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {"containers": [container]}}}},
        },
    }
    plan = compile_documents(parse_text(json.dumps(warm), "warm.json").documents, RenderOptions())
    assert plan.ok, plan.diagnostics
    list(plan.manifests())
    print("ready", flush=True)
    for line in sys.stdin:
        runs = json.loads(line)
        pids = []
        for run in runs:
            pid = os.fork()
            if pid == 0:
                _child(run)
            pids.append(pid)
        statuses = [os.waitpid(pid, 0)[1] for pid in pids]
        steps = []
        for run in runs:
            with open(run["log"], encoding="utf-8", errors="replace") as handle:
                tail = handle.read().rpartition("@@steps ")[2].strip()
            steps.append(int(tail) if tail.isdigit() else -1)
        print(json.dumps([{"status": s, "steps": n} for s, n in zip(statuses, steps, strict=True)]), flush=True)


if __name__ == "__main__":
    main()
