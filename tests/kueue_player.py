"""Play Kueue's plain-pod group integration against the fake API: its webhook, admission, finalizer and stop rules.

Each rule restates kubernetes-sigs/kueue (pkg/controller/jobs/pod/; KEP-976 "Tracking admitted and finished
Pods", "Retrying Failed Pods"), in our words:
* webhook (`PodWebhook.Default`): a pod with a queue gets the finalizer kueue.x-k8s.io/managed, the scheduling
  gate kueue.x-k8s.io/admission and the label kueue.x-k8s.io/managed=true;
* admission (`Pod.Run`): once the group's Workload is admitted, every gated pod of the group is ungated;
* replacement (`FindMatchingWorkloads` → `finalizePods`): a Failed pod loses the finalizer only when the group
  has more pods of its role than the Workload counts, i.e. once a replacement pod of that role exists;
* finish (`Pod.Finished` → `Finalize`): when every pod succeeded, or no pod is running or pending and one carries
  kueue.x-k8s.io/retriable-in-group: "false", the Workload is finished and every pod's finalizer removed;
* stop (`Pod.Stop`): on preemption or eviction every pod gets the condition TerminationTarget and is deleted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.fakeapi import FakeServer

# Kueue's own names, written out here rather than imported from the code under test, so that a wrong name there
# shows up as a failing test (pkg/controller/constants, pkg/controller/jobs/pod/constants/constants.go).
FINALIZER = "kueue.x-k8s.io/managed"
GATE = "kueue.x-k8s.io/admission"
GROUP = "kueue.x-k8s.io/pod-group-name"
QUEUE = "kueue.x-k8s.io/queue-name"
TOTAL = "kueue.x-k8s.io/pod-group-total-count"
ROLE = "training.kubeflow.org/replica-type"  # all pods of one replica type have the same role hash


class KueuePlayer:
    def __init__(self, server: FakeServer, namespace: str = "ml") -> None:
        self.server = server
        self.state = server.state
        self.namespace = namespace
        self.admitted = False
        self.finished = False
        self.finalized_by_kueue: list[str] = []  # pod uids Kueue itself released
        self.counts: dict[str, int] = {}  # the Workload's pod sets: pods per role when it was created
        self.state.admit = self._webhook

    def _webhook(self, _gv: str, plural: str, body: dict[str, Any]) -> None:
        labels = (body.get("metadata") or {}).get("labels") or {}
        if plural != "pods" or not labels.get(QUEUE):
            return
        metadata = body["metadata"]
        metadata["labels"] = {**labels, "kueue.x-k8s.io/managed": "true"}
        metadata["finalizers"] = [*(metadata.get("finalizers") or []), FINALIZER]
        spec = body.setdefault("spec", {})
        spec["schedulingGates"] = [*(spec.get("schedulingGates") or []), {"name": GATE}]

    def pods(self) -> dict[tuple[str, str, str, str], dict[str, Any]]:
        with self.state.lock:
            return {
                k: v
                for k, v in self.state.objects.items()
                if k[1] == "pods" and GROUP in ((v.get("metadata") or {}).get("labels") or {})
            }

    def _write(self, key: tuple[str, str, str, str], pod: dict[str, Any]) -> None:
        code, body = self.state.update(key, pod, status_only=False, check_version=False)
        assert code == 200, body

    def admit(self) -> None:
        """The group's Workload (its pod sets counted per role, `constructGroupPodSets`) is admitted: ungate."""
        if not self.counts:
            self.counts = dict(Counter(p["metadata"]["labels"][ROLE] for p in self.pods().values() if not _inactive(p)))
        self.admitted = True
        self.step()

    def step(self) -> None:
        """One pass of Kueue's pod-group reconciler over the group."""
        pods = self.pods()
        if not pods or self.finished:
            return
        total = int(next(iter(pods.values()))["metadata"]["annotations"][TOTAL])
        if self._finish(pods, total):
            return
        active = [p for p in pods.values() if not _inactive(p)]
        if self.admitted and len(active) >= total:
            for key, pod in pods.items():
                gates = pod["spec"].get("schedulingGates") or []
                if any(g["name"] == GATE for g in gates):
                    self._write(
                        key,
                        {**pod, "spec": {**pod["spec"], "schedulingGates": [g for g in gates if g["name"] != GATE]}},
                    )
        for key, pod in pods.items():
            role = pod["metadata"]["labels"][ROLE]
            mine = [p for p in pods.values() if p["metadata"]["labels"][ROLE] == role]
            if (
                _inactive(pod)
                and FINALIZER in pod["metadata"].get("finalizers", [])
                and len(mine) > self.counts.get(role, len(mine))
            ):
                self._release(key, pod)

    def _finish(self, pods: dict[tuple[str, str, str, str], dict[str, Any]], total: int) -> bool:
        phases = [(p.get("status") or {}).get("phase") for p in pods.values()]
        unretriable = any(
            (p["metadata"].get("annotations") or {}).get("kueue.x-k8s.io/retriable-in-group") == "false"
            for p in pods.values()
        )
        running = any(phase in (None, "Pending", "Running") for phase in phases)
        if phases.count("Succeeded") != total and (running or not unretriable):
            return False
        self.finished = True
        for key, pod in pods.items():
            if FINALIZER in pod["metadata"].get("finalizers", []):
                self._release(key, pod)
        return True

    def _release(self, key: tuple[str, str, str, str], pod: dict[str, Any]) -> None:
        self.finalized_by_kueue.append(pod["metadata"]["uid"])
        finalizers = [f for f in pod["metadata"]["finalizers"] if f != FINALIZER]
        self._write(key, {**pod, "metadata": {**pod["metadata"], "finalizers": finalizers}})

    def preempt(self) -> None:
        """Stop the group: mark every pod a termination target and delete it; the Workload is queued again."""
        self.admitted = False
        for key, pod in self.pods().items():
            conditions = [
                *(pod.get("status") or {}).get("conditions", []),
                {"type": "TerminationTarget", "status": "True", "reason": "WorkloadEvicted"},
            ]
            code, body = self.state.update(
                key,
                {**pod, "status": {**(pod.get("status") or {}), "conditions": conditions}},
                status_only=True,
                check_version=False,
            )
            assert code == 200, body
            code, body = self.state.delete(key)
            assert code == 200, body


def _inactive(pod: dict[str, Any]) -> bool:
    """`isPodRunnableOrSucceeded` negated: Failed, or deleted before it ran."""
    phase = (pod.get("status") or {}).get("phase")
    return phase == "Failed" or (bool(pod["metadata"].get("deletionTimestamp")) and phase in (None, "Pending"))
