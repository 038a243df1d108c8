"""Leader election with a coordination.k8s.io/v1 Lease: of several replicas exactly one acts."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from reconciler.kube import Cluster, ClusterError, Conflict, Writer
from reconciler.state import parse_time

log = logging.getLogger("mxjob.reconcile")
LEASE_NAME = "mxjob-reconciler"


def micro_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaderElector:
    def __init__(self, cluster: Cluster, namespace: str, identity: str, clock: Callable[[], datetime],
                 lease_seconds: int = 15, renew_seconds: float = 5.0,
                 on_change: Callable[[bool], None] = lambda leader: None) -> None:
        self.cluster = cluster
        self.writer = Writer(cluster)
        self.namespace = namespace
        self.identity = identity
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.renew_seconds = renew_seconds
        self.on_change = on_change
        self.leader = False

    def _set(self, leader: bool) -> None:
        if leader != self.leader:
            self.leader = leader
            log.info(f"{'became' if leader else 'is no longer'} the leader ({self.identity})")
            self.on_change(leader)

    def try_acquire(self) -> bool:
        now = self.clock()
        lease = self.cluster.get("coordination.k8s.io/v1", "Lease", self.namespace, LEASE_NAME)
        spec = {"holderIdentity": self.identity, "leaseDurationSeconds": self.lease_seconds,
                "renewTime": micro_time(now)}
        try:
            if lease is None:
                spec["acquireTime"] = micro_time(now)
                self.writer.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                    "metadata": {"name": LEASE_NAME, "namespace": self.namespace}, "spec": spec})
                return True
            current = lease.get("spec") or {}
            holder = current.get("holderIdentity")
            renewed = parse_time(current.get("renewTime"))
            duration = int(current.get("leaseDurationSeconds") or self.lease_seconds)
            expired = renewed is None or renewed + timedelta(seconds=duration) < now
            if holder and holder != self.identity and not expired:
                return False
            if holder != self.identity:
                spec["acquireTime"] = micro_time(now)
                spec["leaseTransitions"] = int(current.get("leaseTransitions") or 0) + 1
            self.writer.replace({**lease, "spec": {**current, **spec}})
            return True
        except (Conflict, ClusterError) as exc:
            log.info(f"lease not taken this round: {exc}")
            return False

    def release(self) -> None:
        """On shutdown: give the lease up at once instead of letting it expire (only if we hold it)."""
        lease = self.cluster.get("coordination.k8s.io/v1", "Lease", self.namespace, LEASE_NAME)
        if lease is not None and (lease.get("spec") or {}).get("holderIdentity") == self.identity:
            spec = {**lease["spec"], "holderIdentity": "", "leaseDurationSeconds": 1}
            try:
                self.writer.replace({**lease, "spec": spec})
            except ClusterError as exc:
                log.warning(f"could not release the lease: {exc}")
        self._set(False)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self._set(self.try_acquire())
            except ClusterError as exc:
                log.warning(f"leader election: {exc}")
                self._set(False)
            stop.wait(self.renew_seconds)
