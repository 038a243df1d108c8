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
    admission: bool = False  # only a server that runs admission plugins refuses it (not core-validate)

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


def _template_label(key: str, value: str) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        _worker(job).setdefault("metadata", {}).setdefault("labels", {})[key] = value

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


def _annotation(key: str, value: str) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        _worker(job).setdefault("metadata", {}).setdefault("annotations", {})[key] = value

    return change


def _volume(volume: dict[str, Any], mount: dict[str, Any] | None = None) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        spec = _worker(job)["spec"]
        spec.setdefault("volumes", []).append(volume)
        if mount is not None:
            spec["containers"][0]["volumeMounts"] = [mount]

    return change


def _pod_field(key: str, value: Any, context: bool = False) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        spec = _worker(job)["spec"]
        (spec.setdefault("securityContext", {}) if context else spec)[key] = value

    return change


SECCOMP = "seccomp.security.alpha.kubernetes.io/pod"
APPARMOR = "container.apparmor.security.beta.kubernetes.io/"
TOKEN = {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "..token"}}]}}
BLOCK = {"name": "blk", "persistentVolumeClaim": {"claimName": "c"}}
TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def _device_at_token_path(automount: bool) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        spec = _worker(job)["spec"]
        spec["volumes"] = [BLOCK]
        spec["containers"][0]["volumeDevices"] = [{"name": "blk", "devicePath": TOKEN_PATH}]
        if not automount:
            spec["automountServiceAccountToken"] = False

    return change


def _claims(pod_claims: list[dict[str, Any]], container_claims: list[dict[str, Any]]) -> Callable[[Job], None]:
    def change(job: Job) -> None:
        spec = _worker(job)["spec"]
        if pod_claims:
            spec["resourceClaims"] = pod_claims
        if container_claims:
            spec["containers"][0].setdefault("resources", {})["claims"] = container_claims

    return change


def _image_volume(source: dict[str, Any], mounted: bool = True) -> Callable[[Job], None]:
    mount = {"name": "model", "mountPath": "/model", "readOnly": True} if mounted else None
    return _volume({"name": "model", "image": source}, mount)


def _pod_affinity(term: dict[str, Any], kind: str = "podAffinity") -> Callable[[Job], None]:
    term = {"topologyKey": "topology.kubernetes.io/zone", **term}
    return _pod_field("affinity", {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}})


def _long_name(length: int, workers: int) -> Callable[[Job], None]:
    """A job name of `length` characters with `workers` workers."""

    def change(job: Job) -> None:
        job["metadata"]["name"] = "n" * length
        job["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = workers

    return change


CLAIM = {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}
GPU_CLAIM = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
SELECTOR = {"matchLabels": {"app": "mnist"}}
DIST = REPO / "examples" / "train" / "mx_job_dist_gpu.yaml"
SPREAD = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": ["app"]}]
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
    Edit("duplicate-env-jobset", _duplicate_env, JOBSET, True, f"{WORKER}.spec.containers[0].env[1]"),
    Edit("tuner-key-config-map", _tuner_key(180_000), (), True, "spec.mxReplicaSpecs.TunerServer", TUNE),
    Edit("tuner-key-jobset", _tuner_key(180_000), JOBSET, True, "spec.mxReplicaSpecs.TunerServer", TUNE),
    Edit("tuner-key-short", _tuner_key(1_000), JOBSET, False, base=TUNE),
    Edit("unnamed-ports-pods", _unnamed_ports, (), True, f"{WORKER}.spec.containers[0].ports"),
    Edit("unnamed-ports-jobset", _unnamed_ports, JOBSET, False),
    Edit("ephemeral-volume-120", _ephemeral_volume, ("--kubernetes-version", "1.20"), True, f"{WORKER}.spec.volumes"),
    Edit("ephemeral-volume-136", _ephemeral_volume, V136, False),
    Edit("seccomp-annotation-bad", _annotation(SECCOMP, "bogus"), (), True, f"{WORKER}.metadata.annotations"),
    Edit("seccomp-annotation-bad-jobset", _annotation(SECCOMP, "bogus"), JOBSET, True, f"{WORKER}.metadata"),
    Edit("seccomp-annotation-ok", _annotation(SECCOMP, "runtime/default"), (), False),
    Edit("apparmor-annotation-no-container", _annotation(APPARMOR + "nope", "runtime/default"), (), True, WORKER),
    Edit("apparmor-annotation-bad-profile", _annotation(APPARMOR + "mxnet", "bogus"), (), True, WORKER),
    Edit("apparmor-annotation-ok", _annotation(APPARMOR + "mxnet", "localhost/prof"), (), False),
    Edit(
        "csi-secret-no-name",
        _volume({"name": "c", "csi": {"driver": "d.example.com", "nodePublishSecretRef": {}}}),
        (),
        True,
        f"{WORKER}.spec.volumes",
    ),
    Edit("token-path-dots-120", _volume(TOKEN), ("--kubernetes-version", "1.20"), False),
    Edit("token-path-dots-136", _volume(TOKEN), V136, True, f"{WORKER}.spec.volumes"),
    Edit(
        "ephemeral-no-access-modes-136",
        _volume({"name": "e", "ephemeral": {"volumeClaimTemplate": CLAIM}}),
        V136,
        True,
        f"{WORKER}.spec.volumes",
    ),
    Edit("pod-apparmor-bad-136", _pod_field("appArmorProfile", {"type": "Bogus"}, True), V136, True, WORKER),
    Edit("selinux-change-bad-136", _pod_field("seLinuxChangePolicy", "Bogus", True), V136, True, WORKER),
    Edit("supplemental-groups-bad-136", _pod_field("supplementalGroupsPolicy", "Bogus", True), V136, True, WORKER),
    Edit("supplemental-groups-ok-136", _pod_field("supplementalGroupsPolicy", "Strict", True), V136, False),
    Edit(
        "recursive-read-only-136",
        _volume({"name": "v", "emptyDir": {}}, {"name": "v", "mountPath": "/v", "recursiveReadOnly": "Enabled"}),
        V136,
        True,
        WORKER,
    ),
    Edit("token-path-device", _device_at_token_path(True), (), True, WORKER, admission=True),
    Edit("token-path-device-no-automount", _device_at_token_path(False), (), False),
    Edit("match-label-keys-alone-136", _pod_field("topologySpreadConstraints", SPREAD), V136, True, WORKER),
    # Resource claims (dynamic resource allocation, on by default from 1.34).
    Edit("claims-ok-136", _claims(GPU_CLAIM, [{"name": "gpu"}]), V136, False),
    Edit("claims-ok-136-jobset", _claims(GPU_CLAIM, [{"name": "gpu"}]), (*V136, *JOBSET), False),
    Edit("claims-undeclared-136", _claims([], [{"name": "gpu"}]), V136, True, f"{WORKER}.spec.containers[0]"),
    Edit(
        "claims-undeclared-136-jobset",
        _claims([], [{"name": "gpu"}]),
        (*V136, *JOBSET),
        True,
        f"{WORKER}.spec.containers[0]",
    ),
    Edit(
        "claims-both-sources-136",
        _claims([{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "t"}], []),
        V136,
        True,
        f"{WORKER}.spec.resourceClaims[0]",
    ),
    Edit("claims-no-source-136", _claims([{"name": "gpu"}], []), V136, True, f"{WORKER}.spec.resourceClaims[0]"),
    Edit(
        "claims-bad-name-136",
        _claims([{"name": "GPU", "resourceClaimName": "a"}], [{"name": "GPU"}]),
        V136,
        True,
        f"{WORKER}.spec.resourceClaims[0].name",
    ),
    Edit(
        "claims-whole-then-request-136",
        _claims(GPU_CLAIM, [{"name": "gpu"}, {"name": "gpu", "request": "big"}]),
        V136,
        True,
        f"{WORKER}.spec.containers[0].resources.claims[1]",
    ),
    Edit(  # the MXJob CRD keys a container's claims by name alone: only without the MXJob may two requests share one
        "claims-two-requests-136-no-job",
        _claims(GPU_CLAIM, [{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "b"}]),
        ("--no-job", *V136),
        False,
    ),
    Edit(
        "claims-two-requests-136",
        _claims(GPU_CLAIM, [{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "b"}]),
        V136,
        True,
        f"{WORKER}.spec.containers[0].resources.claims[1]",
    ),
    Edit(
        "claims-bad-request-136",
        _claims(GPU_CLAIM, [{"name": "gpu", "request": "Big_One"}]),
        V136,
        True,
        f"{WORKER}.spec.containers[0].resources.claims[0].request",
    ),
    Edit("claims-undeclared-132", _claims([], [{"name": "gpu"}]), ("--kubernetes-version", "1.32"), False),
    # Image volumes (ImageVolume on by default from 1.35).
    Edit("image-volume-ok-136", _image_volume({"reference": "registry.example.com/model:v1"}), V136, False),
    Edit(
        "image-volume-ok-136-jobset",
        _image_volume({"reference": "registry.example.com/model:v1"}),
        (*V136, *JOBSET),
        False,
    ),
    Edit(
        "image-volume-no-reference-136",
        _image_volume({"pullPolicy": "IfNotPresent"}),
        V136,
        True,
        f"{WORKER}.spec.volumes[0].image",
    ),
    Edit(
        "image-volume-bad-pull-136",
        _image_volume({"reference": "model:v1", "pullPolicy": "Sometimes"}),
        V136,
        True,
        f"{WORKER}.spec.volumes[0].image.pullPolicy",
    ),
    Edit(
        "image-volume-bad-pull-136-jobset",
        _image_volume({"reference": "model:v1", "pullPolicy": "Sometimes"}),
        (*V136, *JOBSET),
        True,
        f"{WORKER}.spec.volumes[0].image.pullPolicy",
    ),
    Edit("image-volume-no-reference-134", _image_volume({}), ("--kubernetes-version", "1.34"), False),
    # Pod (anti-)affinity matchLabelKeys / mismatchLabelKeys (on by default from 1.31).
    Edit(
        "affinity-match-keys-ok-136", _pod_affinity({"labelSelector": SELECTOR, "matchLabelKeys": ["app"]}), V136, False
    ),
    Edit(
        "affinity-empty-selector-136", _pod_affinity({"labelSelector": {}, "mismatchLabelKeys": ["team"]}), V136, False
    ),
    Edit(
        "affinity-match-keys-no-selector-136",
        _pod_affinity({"matchLabelKeys": ["app"]}),
        V136,
        True,
        f"{WORKER}.spec.affinity",
    ),
    Edit(
        "anti-affinity-mismatch-keys-no-selector-136-jobset",
        _pod_affinity({"mismatchLabelKeys": ["app"]}, "podAntiAffinity"),
        (*V136, *JOBSET),
        True,
        f"{WORKER}.spec.affinity",
    ),
    Edit(
        "affinity-key-in-both-136",
        _pod_affinity({"labelSelector": SELECTOR, "matchLabelKeys": ["team"], "mismatchLabelKeys": ["team"]}),
        V136,
        True,
        f"{WORKER}.spec.affinity",
    ),
    Edit(
        "anti-affinity-bad-key-136",
        _pod_affinity({"labelSelector": SELECTOR, "matchLabelKeys": ["not a key"]}, "podAntiAffinity"),
        V136,
        True,
        f"{WORKER}.spec.affinity",
    ),
    Edit(
        "affinity-match-keys-no-selector-130",
        _pod_affinity({"matchLabelKeys": ["app"]}),
        ("--kubernetes-version", "1.30"),
        False,
    ),
    # What Kueue copies into the Workload it creates for the pods or the JobSet.
    Edit("queue-not-a-localqueue-kueue", lambda j: _policy(j, queue="Team_A"), KUEUE, True, POLICY),
    Edit("queue-not-a-localqueue-kueue-jobset", lambda j: _policy(j, queue="Team_A"), (*KUEUE, *JOBSET), True, POLICY),
    Edit("queue-not-a-localqueue-plain", lambda j: _policy(j, queue="Team_A"), (), False),
    Edit("queue-dotted-kueue", lambda j: _policy(j, queue="team.a"), KUEUE, False),
    Edit(
        "duplicate-env-no-job-kueue",
        _duplicate_env,
        ("--no-job", *KUEUE),
        True,
        f"{WORKER}.spec.containers[0].env[1]",
    ),
    Edit(
        "workload-priority-label-kueue", _template_label("kueue.x-k8s.io/priority-class", "Low_Priority"), KUEUE, True
    ),
    Edit("workload-priority-label-plain", _template_label("kueue.x-k8s.io/priority-class", "Low_Priority"), (), False),
    Edit("workload-priority-label-ok-kueue", _template_label("kueue.x-k8s.io/priority-class", "low"), KUEUE, False),
    Edit("duplicate-env-no-job-volcano", _duplicate_env, ("--no-job", "--gang-scheduler", "volcano"), False),
    # Names: every name rule is a length limit, binding first on the longest name (the highest index of a type;
    # here the scheduler's, longer than any worker's below index 1000). The servers judge every object.
    Edit("long-name-fits-11-workers", _long_name(51, 11), (), False, base=DIST),
    Edit("long-name-over-11-workers", _long_name(52, 11), (), True, "metadata.name", base=DIST),
    Edit("long-name-fits-11-workers-jobset", _long_name(49, 11), JOBSET, False, base=DIST),
    Edit("long-name-over-11-workers-jobset", _long_name(50, 11), JOBSET, True, "metadata.name", base=DIST),
)
