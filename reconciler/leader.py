"""Leader election with a coordination.k8s.io/v1 Lease: of several replicas exactly one acts, and only
while it knows it holds the lease (fencing).

Timing follows client-go's leaderelection (LeaseDuration 15 s > RenewDeadline 10 s > RetryPeriod 2 s,
`tools/leaderelection/leaderelection.go`): the leader acts only within `renew_deadline` of its last
successful renewal, measured on the monotonic clock from *before* that renewal was sent. A process frozen
(SIGSTOP, a long GC pause, a partition) for longer wakes up past its deadline and writes nothing until a
renewal succeeds — which it cannot once another replica holds the lease.

Whether another holder's lease has expired is judged, as client-go does (`tryAcquireOrRenew` and
`isLeaseValid` in the same file), by when *this* process first saw the current record, on its own monotonic
clock, never by comparing the holder's `renewTime` with the local wall clock: replicas on nodes whose clocks
disagree must not take a lease that is still being renewed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime

from mxjob_gitops.reconciler.kube import Cluster, ClusterError, Conflict, Writer

log = logging.getLogger("mxjob.reconcile")
LEASE_NAME = "mxjob-reconciler"


def micro_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaderElector:
    def __init__(
        self,
        cluster: Cluster,
        namespace: str,
        identity: str,
        clock: Callable[[], datetime],
        lease_seconds: int = 15,
        renew_deadline: float = 10.0,
        retry_period: float = 2.0,
        on_change: Callable[[bool], None] = lambda leader: None,
    ) -> None:
        if not 0 < retry_period < renew_deadline < lease_seconds:
            raise ValueError("leader election needs retry period < renew deadline < lease duration")
        self.cluster = cluster
        self.writer = Writer(cluster)
        self.namespace = namespace
        self.identity = identity
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self.on_change = on_change
        self.leader = False
        self._valid_until = 0.0  # monotonic: acting is allowed before this instant only
        self._observed: tuple[object, ...] = ()  # the other holder's record as last read
        self._observed_at = 0.0  # monotonic: when that record was first seen

    def may_act(self) -> bool:
        """True only while the lease is known to be held: renewed less than renew_deadline ago."""
        return self.leader and time.monotonic() < self._valid_until

    def _set(self, leader: bool) -> None:
        if leader != self.leader:
            self.leader = leader
            log.info(f"{'became' if leader else 'is no longer'} the leader ({self.identity})")
            self.on_change(leader)

    def try_acquire(self) -> bool:
        """One attempt to take or renew the lease; on success acting is allowed for renew_deadline from the
        moment the attempt started."""
        started = time.monotonic()
        if self._try_acquire():
            self._valid_until = started + self.renew_deadline
            return True
        return False

    def _try_acquire(self) -> bool:
        now = self.clock()
        lease = self.cluster.get("coordination.k8s.io/v1", "Lease", self.namespace, LEASE_NAME)
        spec = {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": self.lease_seconds,
            "renewTime": micro_time(now),
        }
        try:
            if lease is None:
                spec["acquireTime"] = micro_time(now)
                self.writer.create(
                    {
                        "apiVersion": "coordination.k8s.io/v1",
                        "kind": "Lease",
                        "metadata": {"name": LEASE_NAME, "namespace": self.namespace},
                        "spec": spec,
                    }
                )
                return True
            current = lease.get("spec") or {}
            holder = current.get("holderIdentity")
            if holder and holder != self.identity and not self._expired(current):
                return False
            if holder != self.identity:
                spec["acquireTime"] = micro_time(now)
                spec["leaseTransitions"] = int(current.get("leaseTransitions") or 0) + 1
            self.writer.replace({**lease, "spec": {**current, **spec}})
            return True
        except (Conflict, ClusterError) as exc:
            log.info(f"lease not taken this round: {exc}")
            return False

    def _expired(self, spec: dict[str, object]) -> bool:
        """Another holder's lease counts as expired once its record has stayed unchanged for its duration, timed
        from when this process first read it (a renewal changes renewTime, and so restarts the wait)."""
        record = (spec.get("holderIdentity"), spec.get("renewTime"), spec.get("leaseDurationSeconds"))
        moment = time.monotonic()
        if record != self._observed:
            self._observed, self._observed_at = record, moment
        raw = spec.get("leaseDurationSeconds")
        duration = raw if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0 else self.lease_seconds
        return moment > self._observed_at + duration

    def release(self) -> None:
        """On shutdown: give the lease up at once instead of letting it expire (only if we hold it)."""
        self._valid_until = 0.0
        lease = self.cluster.get("coordination.k8s.io/v1", "Lease", self.namespace, LEASE_NAME)
        if lease is not None and (lease.get("spec") or {}).get("holderIdentity") == self.identity:
            spec = {**lease["spec"], "holderIdentity": "", "leaseDurationSeconds": 1}
            try:
                self.writer.replace({**lease, "spec": spec})
            except ClusterError as exc:
                log.warning(f"could not release the lease: {exc}")
        self._valid_until = 0.0
        self._set(False)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                acquired = self.try_acquire()
            except ClusterError as exc:
                log.warning(f"leader election: {exc}")
                acquired = False
            # A failed renewal keeps the leader until its deadline passes (client-go's RenewDeadline).
            self._set(acquired or self.may_act())
            stop.wait(self.retry_period)
