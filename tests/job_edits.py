"""Job-level edits of the examples for issue "what gets applied is what gets judged": each is a spec edit and the
render modes (engine, target, gang scheduler, Kubernetes version) it is rendered in, with the verdict the API
server's rules give the objects `render` would write (True: refused). tests/test_judge.py holds `render` and
`validate` to these verdicts offline; tests/test_judge_differential.py has the real servers judge the same objects.
"""

from __future__ import annotations

import copy
import pathlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

REPO = pathlib.Path(__file__).resolve().parent.parent
SINGLE = REPO / "examples" / "single" / "mx_job_single_worker.yaml"
TUNE = REPO / "examples" / "tune" / "mx_job_tune_gpu.yaml"
Job = dict[str, Any]
ANNOTATIONS = 256 * 1024


@dataclass(frozen=True)
class Edit:
    name: str
    change: Callable[[Job], None]
    args: tuple[str, ...]  # render options
    refused: bool
    at: str = ""  # where the finding is located (a path prefix of the spec), when refused
    base: pathlib.Path = SINGLE

    def job(self) -> Job:
        job: Job = yaml.safe_load(self.base.read_text(encoding="utf-8"))
        job = copy.deepcopy(job)
        self.change(job)
        return job


def _worker(job: Job) -> Job:
    template: Job = job["spec"]["mxReplicaSpecs"]["Worker"]["template"]
    return template


def _policy(job: Job, **values: Any) -> None:
    job["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = values


def _label(job: Job, key: str, value: str) -> None:
    job["metadata"].setdefault("labels", {})[key] = value


def _template_annotation(size: int) -> Callable[[Job], None]:
    """One template annotation whose key and value take `size` bytes."""

    def change(job: Job) -> None:
        _worker(job).setdefault("metadata", {})["annotations"] = {"big": "x" * (size - 3)}

    return change


def _job_annotation(size: int, dollar: bool) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        text = "${x}" if dollar else "x"
        job["metadata"]["annotations"] = {"big": text + "x" * (size - 3 - len(text))}

    return change


def _resize(policy: str) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        replica = job["spec"]["mxReplicaSpecs"]["Worker"]
        replica["restartPolicy"] = policy
        container = replica["template"]["spec"]["containers"][0]
        container["resizePolicy"] = [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]

    return change


def _host_sidecar(port: int) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        spec = _worker(job)["spec"]
        spec["hostNetwork"] = True
        spec["containers"].append({"name": "side", "image": "busybox", "ports": [{"containerPort": port}]})

    return change


def _finalizer(job: Job) -> None:
    _worker(job).setdefault("metadata", {})["finalizers"] = ["keep"]


def _owned_label(value: str) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        _worker(job).setdefault("metadata", {})["labels"] = {"training.kubeflow.org/replica-index": value}

    return change


def _duplicate_env(job: Job) -> None:
    _worker(job)["spec"]["containers"][0]["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]


def _tuner_key(size: int) -> Callable[[Job], None]:
    """A long tuner-server-key of `<`, which Go's encoding/json writes as the six bytes `\\u003c` (compiler.cluster
    writes MX_CONFIG as the operator did)."""

    def change(job: Job) -> None:
        template = job["spec"]["mxReplicaSpecs"]["TunerServer"]["template"]
        template["metadata"]["annotations"]["tuner-server-key"] = "<" * size

    return change


def _unnamed_ports(job: Job) -> None:
    _worker(job)["spec"]["containers"][0]["ports"] = [{"containerPort": 8000}, {"containerPort": 8001}]


def _ephemeral_volume(job: Job) -> None:
    claim = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    _worker(job)["spec"]["volumes"] = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": claim}}]


KUEUE = ("--gang-scheduler", "kueue")
JOBSET = ("--engine", "jobset")
V136 = ("--kubernetes-version", "1.36")
POLICY = "spec.runPolicy.schedulingPolicy.queue"
WORKER = "spec.mxReplicaSpecs.Worker.template"

EDITS = (
    Edit("queue-space-kueue", lambda j: _policy(j, queue="team a"), KUEUE, True, POLICY),
    Edit("queue-space-kueue-jobset", lambda j: _policy(j, queue="team a"), (*KUEUE, *JOBSET), True, POLICY),
    Edit("queue-space-plain", lambda j: _policy(j, queue="team a"), (), False),
    Edit("queue-64-kueue", lambda j: _policy(j, queue="q" * 64), KUEUE, True, POLICY),
    Edit("queue-63-kueue", lambda j: _policy(j, queue="q" * 63), KUEUE, False),
    Edit("queue-label-64", lambda j: _label(j, "kueue.x-k8s.io/queue-name", "q" * 64), (), True, "metadata.labels"),
    Edit("annotations-at-limit-plain", _template_annotation(ANNOTATIONS), (), False),
    Edit("annotations-at-limit-kueue", _template_annotation(ANNOTATIONS), KUEUE, True, f"{WORKER}.metadata"),
    Edit("annotations-at-limit-argocd", _template_annotation(ANNOTATIONS), ("--target", "argocd"), True, WORKER),
    Edit("annotations-at-limit-volcano", _template_annotation(ANNOTATIONS), ("--gang-scheduler", "volcano"), True),
    Edit("annotations-at-limit-jobset", _template_annotation(ANNOTATIONS), JOBSET, True, WORKER),
    Edit("annotations-under-limit-kueue", _template_annotation(ANNOTATIONS - 100), KUEUE, False),
    Edit("job-annotations-flux", _job_annotation(ANNOTATIONS, True), ("--target", "flux"), True, "metadata"),
    Edit("job-annotations-flux-no-dollar", _job_annotation(ANNOTATIONS, False), ("--target", "flux"), False),
    Edit("resize-exitcode-136", _resize("ExitCode"), V136, True, WORKER),
    Edit("resize-exitcode-136-jobset", _resize("ExitCode"), (*V136, *JOBSET), True, WORKER),
    Edit("resize-onfailure-136", _resize("OnFailure"), V136, False),
    Edit("resize-exitcode-132", _resize("ExitCode"), ("--kubernetes-version", "1.32"), False),
    Edit("hostnet-sidecar-9091", _host_sidecar(9091), (), True, WORKER),
    Edit("hostnet-sidecar-9092", _host_sidecar(9092), (), False),
    Edit("template-finalizer", _finalizer, (), True, f"{WORKER}.metadata.finalizers"),
    Edit("template-finalizer-jobset", _finalizer, JOBSET, True, f"{WORKER}.metadata.finalizers"),
    Edit("owned-label-pods", _owned_label("bad value"), (), False),
    Edit("owned-label-jobset", _owned_label("bad value"), JOBSET, True, f"{WORKER}.metadata.labels"),
    Edit("duplicate-env-pods", _duplicate_env, (), True, f"{WORKER}.spec.containers[0].env[1]"),
    Edit("duplicate-env-no-job", _duplicate_env, ("--no-job",), False),
    Edit("tuner-key-config-map", _tuner_key(180_000), (), True, "spec.mxReplicaSpecs.TunerServer", TUNE),
    Edit("tuner-key-jobset", _tuner_key(180_000), JOBSET, True, "spec.mxReplicaSpecs.TunerServer", TUNE),
    Edit("tuner-key-short", _tuner_key(1_000), JOBSET, False, base=TUNE),
    Edit("unnamed-ports-pods", _unnamed_ports, (), True, f"{WORKER}.spec.containers[0].ports"),
    Edit("unnamed-ports-jobset", _unnamed_ports, JOBSET, False),
    Edit("ephemeral-volume-120", _ephemeral_volume, ("--kubernetes-version", "1.20"), True, f"{WORKER}.spec.volumes"),
    Edit("ephemeral-volume-136", _ephemeral_volume, V136, False),
)
