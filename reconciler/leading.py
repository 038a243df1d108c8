"""`mxjob reconcile --once` under leader election (called by the CLI): the pass runs only while this process holds
the Lease, renewed in the background, and gives it up at the end — so a cron `--once` never acts beside a
running reconciler, and a running reconciler waits while the pass acts (reconciler.leader has the fencing)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from mxjob_gitops.reconciler.leader import LEASE_NAME, LeaderElector

if TYPE_CHECKING:
    from mxjob_gitops.reconciler.runner import Reconciler


class LeaseHeld(Exception):
    """Another holder kept renewing the Lease for a whole lease duration: the pass did not run."""


@contextmanager
def holding(elector: LeaderElector | None, reconciler: Reconciler) -> Iterator[None]:
    """Hold the Lease for the block (nothing to hold without leader election). Waits up to one lease duration
    and two retry periods: an expired or released lease is taken in that time, a renewed one never is."""
    if elector is None:
        yield
        return
    stop = threading.Event()
    renewing = threading.Thread(target=elector.run, args=(stop,), name="leader", daemon=True)
    renewing.start()
    deadline = time.monotonic() + elector.lease_seconds + 2 * elector.retry_period
    try:
        while not elector.may_act():
            if time.monotonic() > deadline or not renewing.is_alive():
                raise LeaseHeld(
                    f"another reconciler holds the Lease {elector.namespace}/{LEASE_NAME}; not acting beside it "
                    "(stop it, or run --once with --no-leader-election if it acts elsewhere)"
                )
            time.sleep(0.05)
        reconciler.fence_with(elector.may_act)
        yield
    finally:
        stop.set()
        renewing.join(timeout=10)
        elector.release()
