"""An independent catalog of single edits to rendered objects, judged by real API servers (never by this file).

Each case names a base object (what `mxjob render` writes for the examples: a worker Pod of examples/single,
train, byteps or tune, the Service and ConfigMap of examples/single, or its MXJob) and one edit to it. The expected
verdict is not written here: tests/realapi/test_hidden_catalog_120.py asks a real kube-apiserver v1.20.2
(`dryRun=All`) and core-validate 1.36, and compares `mxjob validate` with them.

An edit is a list of steps on dotted paths (`spec.containers.0.ports.0.name`; "add" appends to a list; a missing
map on the way is created; after a map of arbitrary keys such as `labels` or `limits` the rest is one key). Pod
edits of the spec, labels or annotations are also made to the pod template of the MXJob, and `mxjob render` must
refuse them when the server refuses the pod, and otherwise write only objects the server accepts.

Flags: `http_only` marks a verdict only the HTTP path gives: admission plugins, the server's --allow-privileged,
generateName, the ServiceAccount admission gives a pod, and strict JSON decoding of the request body (core-validate
reads its input through sigs.k8s.io/yaml, which turns `9091.0` into `9091` as kubectl does for YAML files). A rule
that changed between 1.20 and 1.36 needs no flag: v1.20.2 is compared with `--kubernetes-version 1.20`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from tests.conftest import EXAMPLES, run_cli

Step = tuple[str, str, Any]  # (op, path, value): op is "set", "del" or "add" (append)


@dataclass(frozen=True)
class Case:
    name: str
    base: str  # "pod" (examples/single), "gpu-pod", "byteps-pod", "tune-pod", "service", "configmap", "mxjob"
    steps: tuple[Step, ...]
    http_only: bool = False
    extra: tuple[str, ...] = field(default=())


def _walk(obj: Any, parts: list[str]) -> Any:
    for part in parts:
        obj = obj[int(part)] if isinstance(obj, list) else obj.setdefault(part, {})
    return obj


# Maps whose keys may hold dots or slashes: the rest of a path after one of these names is a single key.
KEYED = frozenset({"labels", "annotations", "nodeSelector", "selector", "data", "binaryData", "requests", "limits"})


def _parts(path: str) -> list[str]:
    parts = path.split(".")
    for index, part in enumerate(parts[:-1]):
        if part in KEYED:
            return [*parts[: index + 1], ".".join(parts[index + 1 :])]
    return parts


def apply(obj: dict[str, Any], steps: tuple[Step, ...]) -> dict[str, Any]:
    """Apply the steps to `obj` in place and return it."""
    for op, path, value in steps:
        parts = _parts(path)
        parent = _walk(obj, parts[:-1])
        last = parts[-1]
        if op == "del":
            if isinstance(parent, list):
                del parent[int(last)]
            else:
                parent.pop(last, None)
        elif op == "add":
            target = parent.setdefault(last, []) if isinstance(parent, dict) else parent[int(last)]
            target.append(value)
        elif isinstance(parent, list):
            parent[int(last)] = value
        else:
            parent[last] = value
    return obj


# Base objects: what `mxjob render` writes for the examples. A pod base names the MXJob and replica type whose
# template it comes from (for the render check).
EXAMPLE_PODS = {
    "pod": ("single/mx_job_single_worker.yaml", "mnist-single-worker-0", "Worker"),
    "gpu-pod": ("train/mx_job_dist_gpu.yaml", "mxnet-job-worker-0", "Worker"),
    "byteps-pod": ("byteps/byteps_job.yaml", "byteps-mxnet-job-worker-0", "Worker"),
    "tune-pod": ("tune/mx_job_tune_gpu.yaml", "auto-tuning-job-tunerserver-0", "TunerServer"),
}


def _render(example: str) -> list[dict[str, Any]]:
    result = run_cli(["render", str(EXAMPLES / example)])
    assert result.exit_code == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    for doc in docs:
        doc["metadata"].pop("namespace", None)
    return docs


def render_bases() -> dict[str, dict[str, Any]]:
    """Every base a case can name: each pod base, its MXJob as `<base>:job`, and the other kinds examples/single
    renders by their lower-cased kind (`service`, `configmap`, `mxjob`)."""
    found: dict[str, dict[str, Any]] = {}
    for base, (example, pod_name, _) in EXAMPLE_PODS.items():
        docs = _render(example)
        found[base] = next(d for d in docs if d["kind"] == "Pod" and d["metadata"]["name"] == pod_name)
        found[f"{base}:job"] = next(d for d in docs if d["kind"] == "MXJob")
        if base == "pod":
            for doc in docs:
                found.setdefault(doc["kind"].lower(), doc)
    return found


def mutated_objects(bases: dict[str, dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every edit of both catalogs (tests/kube_mutations.py's, then this one's) made to a copy of its base, from
    render_bases: (the base's name, the edited object). The kube catalog's bases are named by lower-cased kind."""
    from tests.kube_mutations import apply as apply_edits
    from tests.kube_mutations import catalog, version_gated

    for _name, kind, edits in [*catalog(), *version_gated()]:
        yield kind.lower(), apply_edits(bases[kind.lower()], edits)
    for case in CASES:
        yield case.base, apply(copy.deepcopy(bases[case.base]), case.steps)


CASES: list[Case] = []


def case(name: str, base: str, *steps: Step, http_only: bool = False) -> None:
    CASES.append(Case(name, base, tuple(steps), http_only))


def pod(name: str, *steps: Step, **flags: bool) -> None:
    case(name, "pod", *steps, **flags)


def sset(path: str, value: Any) -> Step:
    return ("set", path, value)


def sdel(path: str) -> Step:
    return ("del", path, None)


def sadd(path: str, value: Any) -> Step:
    return ("add", path, value)


C0 = "spec.containers.0"
SIDE = {"name": "side", "image": "busybox:1.36"}
EMPTY = {"name": "data", "emptyDir": {}}


def _c(**extra: Any) -> dict[str, Any]:
    return {"name": "side", "image": "busybox:1.36", **extra}


def _register_all(*groups: Callable[[], None]) -> None:
    for group in groups:
        group()


def metadata_cases() -> None:
    pod("meta.name-uppercase", sset("metadata.name", "Worker-0"))
    pod("meta.name-253", sset("metadata.name", ".".join(["a" * 63] * 4)[:253].rstrip(".")))
    pod("meta.name-254", sset("metadata.name", "a" * 254))
    pod("meta.name-dots", sset("metadata.name", "a.b.c"))
    pod("meta.name-underscore", sset("metadata.name", "a_b"))
    pod("meta.name-trailing-dash", sset("metadata.name", "worker-"))
    pod("meta.name-double-dot", sset("metadata.name", "a..b"))
    pod("meta.generate-name", sdel("metadata.name"), sset("metadata.generateName", "gen-"), http_only=True)
    pod("meta.generate-name-bad", sdel("metadata.name"), sset("metadata.generateName", "Gen_"), http_only=True)
    pod(
        "meta.generate-name-trailing-dash-ok",
        sdel("metadata.name"),
        sset("metadata.generateName", "a-b-"),
        http_only=True,
    )
    pod("meta.no-name", sdel("metadata.name"))
    pod("meta.label-prefixed", sset("metadata.labels.example.com/key", "v"))
    pod("meta.label-key-prefix-upper", sset("metadata.labels.Example.com/key", "v"))
    pod("meta.label-key-63", sset("metadata.labels." + "k" * 63, "v"))
    pod("meta.label-key-64", sset("metadata.labels." + "k" * 64, "v"))
    pod("meta.label-value-63", sset("metadata.labels.k", "v" * 63))
    pod("meta.label-value-64", sset("metadata.labels.k", "v" * 64))
    pod("meta.label-value-empty", sset("metadata.labels.k", ""))
    pod("meta.label-value-quote", sset("metadata.labels.k", 'a"b'))
    pod("meta.label-value-leading-dash", sset("metadata.labels.k", "-a"))
    pod("meta.label-value-mixed-ok", sset("metadata.labels.k", "A.b_c-9"))
    pod("meta.label-key-empty-name", sset("metadata.labels.example.com/", "v"))
    pod("meta.label-key-two-slashes", sset("metadata.labels.a/b/c", "v"))
    pod("meta.label-key-prefix-254", sset("metadata.labels." + "a" * 254 + "/k", "v"))
    pod("meta.label-key-prefix-253", sset("metadata.labels." + ("a" * 63 + ".") * 3 + "a" * 61 + "/k", "v"))
    pod("meta.label-key-underscore-start", sset("metadata.labels._k", "v"))
    pod("meta.annotation-key-space", sset("metadata.annotations.bad key", "v"))
    pod("meta.annotation-value-anything", sset("metadata.annotations.k", "multi\nline \u2603 'quotes' \"x\""))
    pod("meta.annotation-key-uppercase-ok", sset("metadata.annotations.Example-Key", "v"))
    # TotalAnnotationSizeLimitB is 256 KiB of keys plus values; the base pod has no annotations.
    pod("meta.annotations-at-limit", sset("metadata.annotations.k", "v" * (262144 - 1)))
    pod("meta.annotations-over-limit", sset("metadata.annotations.k", "v" * 262144))
    pod(
        "meta.annotations-over-limit-split",
        sset("metadata.annotations.a", "v" * 131072),
        sset("metadata.annotations.b", "v" * 131072),
    )
    pod("meta.finalizer-qualified", sset("metadata.finalizers", ["example.com/cleanup"]))
    pod("meta.finalizer-unqualified", sset("metadata.finalizers", ["cleanup"]))
    pod("meta.finalizer-standard", sset("metadata.finalizers", ["kubernetes"]))
    pod("meta.finalizer-foreground", sset("metadata.finalizers", ["foregroundDeletion"]))
    pod("meta.finalizer-bad", sset("metadata.finalizers", ["example.com/bad name"]))
    pod("meta.finalizer-duplicate", sset("metadata.finalizers", ["example.com/a", "example.com/a"]))
    owner = {"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "name": "j", "uid": "0b6a3f5e-1"}
    pod("meta.owner-ok", sset("metadata.ownerReferences", [{**owner, "controller": True, "blockOwnerDeletion": True}]))
    pod("meta.owner-no-uid", sset("metadata.ownerReferences", [{k: v for k, v in owner.items() if k != "uid"}]))
    pod("meta.owner-no-api-version", sset("metadata.ownerReferences", [{**owner, "apiVersion": ""}]))
    pod("meta.owner-no-kind", sset("metadata.ownerReferences", [{**owner, "kind": ""}]))
    pod("meta.owner-no-name", sset("metadata.ownerReferences", [{**owner, "name": ""}]))
    pod(
        "meta.owner-two-controllers",
        sset(
            "metadata.ownerReferences",
            [{**owner, "controller": True}, {**owner, "name": "k", "uid": "2", "controller": True}],
        ),
    )
    pod(
        "meta.owner-two-plain",
        sset("metadata.ownerReferences", [owner, {**owner, "name": "k", "uid": "2"}]),
    )
    pod("meta.owner-kind-list", sset("metadata.ownerReferences", [{**owner, "kind": "List", "apiVersion": "v1"}]))
    pod("meta.resource-version-set", sset("metadata.resourceVersion", "12"))
    pod("meta.uid-set", sset("metadata.uid", "5c2f9a1e-0000-0000-0000-000000000000"))
    pod("meta.creation-timestamp-set", sset("metadata.creationTimestamp", "2020-01-01T00:00:00Z"))
    case("svc.label-value-bad", "service", sset("metadata.labels.k", "a b"))
    case("cm.annotation-over-limit", "configmap", sset("metadata.annotations.k", "v" * 262144))
    case("cm.generate-name", "configmap", sdel("metadata.name"), sset("metadata.generateName", "cfg-"), http_only=True)
    case("mxjob.name-uppercase", "mxjob", sset("metadata.name", "Mnist"))
    case("mxjob.label-value-bad", "mxjob", sset("metadata.labels.team", "a/b"))
    case("mxjob.annotation-over-limit", "mxjob", sset("metadata.annotations.k", "v" * 262144))
    case("mxjob.finalizer-ok", "mxjob", sset("metadata.finalizers", ["kubeflow.org/cleanup"]))
    case("mxjob.finalizer-bad", "mxjob", sset("metadata.finalizers", ["kubeflow.org/a b"]))


def container_cases() -> None:
    pod("ctr.name-uppercase", sset(f"{C0}.name", "MXNet"))
    pod("ctr.name-63", sset(f"{C0}.name", "c" * 63))
    pod("ctr.name-64", sset(f"{C0}.name", "c" * 64))
    pod("ctr.name-dot", sset(f"{C0}.name", "mx.net"))
    pod("ctr.name-empty", sset(f"{C0}.name", ""))
    pod("ctr.duplicate-names", sadd("spec.containers", _c(name="mxnet")))
    pod("ctr.second-ok", sadd("spec.containers", _c()))
    pod("ctr.none", sset("spec.containers", []))
    pod("ctr.image-empty", sset(f"{C0}.image", ""))
    pod("ctr.image-missing", sdel(f"{C0}.image"))
    pod("ctr.image-leading-space", sset(f"{C0}.image", " mxjob/mxnet:cpu"))
    pod("ctr.image-odd-but-ok", sset(f"{C0}.image", "REGISTRY:5000/Some/Image@sha256:abc"))
    pod("ctr.pull-policy-bad", sset(f"{C0}.imagePullPolicy", "Sometimes"))
    pod("ctr.pull-policy-always", sset(f"{C0}.imagePullPolicy", "Always"))
    pod("ctr.command-empty-list", sset(f"{C0}.command", []))
    pod("ctr.working-dir-relative", sset(f"{C0}.workingDir", "relative/dir"))
    pod("ctr.termination-policy-bad", sset(f"{C0}.terminationMessagePolicy", "Bogus"))
    pod("ctr.termination-policy-fallback", sset(f"{C0}.terminationMessagePolicy", "FallbackToLogsOnError"))
    pod("ctr.stdin-tty", sset(f"{C0}.stdin", True), sset(f"{C0}.tty", True))
    pod("ctr.stdin-once-alone", sset(f"{C0}.stdinOnce", True))
    # ports
    p0 = f"{C0}.ports.0"
    pod("port.zero", sset(f"{p0}.containerPort", 0))
    pod("port.65535", sset(f"{p0}.containerPort", 65535))
    pod("port.65536", sset(f"{p0}.containerPort", 65536))
    pod("port.negative", sset(f"{p0}.containerPort", -80))
    pod("port.name-15", sset(f"{p0}.name", "abcdefghijklmno"))
    pod("port.name-16", sset(f"{p0}.name", "abcdefghijklmnop"))
    pod("port.name-digits", sset(f"{p0}.name", "8080"))
    pod("port.name-trailing-dash", sset(f"{p0}.name", "http-"))
    pod("port.name-double-dash", sset(f"{p0}.name", "a--b"))
    pod("port.name-uppercase", sset(f"{p0}.name", "HTTP"))
    pod("port.name-underscore", sset(f"{p0}.name", "my_port"))
    pod("port.name-one-letter-digits", sset(f"{p0}.name", "p8080"))
    pod("port.unnamed-ok", sdel(f"{p0}.name"))
    pod("port.duplicate-name", sadd(f"{C0}.ports", {"name": "mxjob-port", "containerPort": 9092}))
    pod("port.same-number-other-name", sadd(f"{C0}.ports", {"name": "other", "containerPort": 9091}))
    pod(
        "port.duplicate-name-across-containers",
        sadd("spec.containers", _c(ports=[{"name": "mxjob-port", "containerPort": 9092}])),
    )
    pod("port.protocol-http", sset(f"{p0}.protocol", "HTTP"))
    pod("port.protocol-sctp", sset(f"{p0}.protocol", "SCTP"))
    pod("port.protocol-lowercase", sset(f"{p0}.protocol", "udp"))
    pod("port.host-port", sset(f"{p0}.hostPort", 80))
    pod("port.host-port-70000", sset(f"{p0}.hostPort", 70000))
    pod("port.host-port-negative", sset(f"{p0}.hostPort", -1))
    pod("port.host-network-mismatch", sset("spec.hostNetwork", True), sset(f"{p0}.hostPort", 8080))
    pod("port.host-network-match", sset("spec.hostNetwork", True), sset(f"{p0}.hostPort", 9091))
    pod("port.host-network-no-host-port", sset("spec.hostNetwork", True))
    pod(
        "port.host-port-conflict",
        sset(f"{p0}.hostPort", 8080),
        sadd("spec.containers", _c(ports=[{"containerPort": 1, "hostPort": 8080}])),
    )
    pod(
        "port.host-port-other-protocol",
        sset(f"{p0}.hostPort", 8080),
        sadd("spec.containers", _c(ports=[{"containerPort": 1, "hostPort": 8080, "protocol": "UDP"}])),
    )
    pod("port.host-ip-bad", sset(f"{p0}.hostIP", "not-an-ip"), sset(f"{p0}.hostPort", 8080))
    pod("port.host-ip-ok", sset(f"{p0}.hostIP", "127.0.0.1"), sset(f"{p0}.hostPort", 8080))
    pod("port.missing-container-port", sdel(f"{p0}.containerPort"))


def env_cases() -> None:
    e = f"{C0}.env"
    pod("env.name-equals", sadd(e, {"name": "A=B", "value": "x"}))
    pod("env.name-leading-digit", sadd(e, {"name": "1ABC", "value": "x"}))
    pod("env.name-dots-dashes", sadd(e, {"name": "a.b-c", "value": "x"}))
    pod("env.name-empty", sadd(e, {"name": "", "value": "x"}))
    pod("env.name-space", sadd(e, {"name": "A B", "value": "x"}))
    pod("env.name-colon", sadd(e, {"name": "A:B", "value": "x"}))
    pod("env.duplicate-names", sadd(e, {"name": "DMLC_ROLE", "value": "x"}))
    pod("env.value-newline", sadd(e, {"name": "X", "value": "a\nb"}))
    pod(
        "env.value-and-from",
        sadd(e, {"name": "X", "value": "a", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}),
    )
    pod("env.from-empty", sadd(e, {"name": "X", "valueFrom": {}}))
    pod("env.field-name", sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}))
    pod("env.field-node-name", sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}))
    pod("env.field-status-pod-ip", sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}))
    pod("env.field-bad", sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "spec.foo"}}}))
    pod(
        "env.field-api-v2",
        sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"apiVersion": "v2", "fieldPath": "metadata.name"}}}),
    )
    pod(
        "env.field-label-subscript",
        sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}}),
    )
    pod(
        "env.field-label-subscript-bad-key",
        sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['a b']"}}}),
    )
    pod("env.field-labels-whole", sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels"}}}))
    pod(
        "env.resource-limits-cpu",
        sadd(e, {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}),
    )
    pod(
        "env.resource-bad",
        sadd(e, {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "limits.foo"}}}),
    )
    pod(
        "env.resource-divisor-1m",
        sadd(e, {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "requests.cpu", "divisor": "1m"}}}),
    )
    pod(
        "env.resource-divisor-3",
        sadd(e, {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "requests.cpu", "divisor": "3"}}}),
    )
    pod(
        "env.resource-divisor-memory-mi",
        sadd(e, {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}}),
    )
    pod(
        "env.resource-unknown-container",
        sadd(
            e,
            {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "containerName": "nope"}}},
        ),
    )
    pod(
        "env.resource-ephemeral-storage",
        sadd(e, {"name": "X", "valueFrom": {"resourceFieldRef": {"resource": "requests.ephemeral-storage"}}}),
    )
    pod(
        "env.configmap-key-bad",
        sadd(e, {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "bad key"}}}),
    )
    pod("env.configmap-key-ok", sadd(e, {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "a.b"}}}))
    pod(
        "env.configmap-no-name",
        sadd(e, {"name": "X", "valueFrom": {"configMapKeyRef": {"key": "a"}}}),
    )
    pod(
        "env.two-sources",
        sadd(
            e,
            {
                "name": "X",
                "valueFrom": {
                    "configMapKeyRef": {"name": "cm", "key": "a"},
                    "secretKeyRef": {"name": "s", "key": "a"},
                },
            },
        ),
    )
    pod(
        "env.secret-ok",
        sadd(e, {"name": "X", "valueFrom": {"secretKeyRef": {"name": "s", "key": "a", "optional": True}}}),
    )
    pod("env.secret-key-empty", sadd(e, {"name": "X", "valueFrom": {"secretKeyRef": {"name": "s", "key": ""}}}))
    ef = f"{C0}.envFrom"
    pod("envfrom.configmap-ok", sadd(ef, {"configMapRef": {"name": "cm"}}))
    pod("envfrom.prefix-ok", sadd(ef, {"prefix": "MY_", "configMapRef": {"name": "cm"}}))
    pod("envfrom.prefix-bad", sadd(ef, {"prefix": "MY=", "configMapRef": {"name": "cm"}}))
    pod("envfrom.prefix-digit", sadd(ef, {"prefix": "1_", "configMapRef": {"name": "cm"}}))
    pod("envfrom.empty", sadd(ef, {}))
    pod("envfrom.both", sadd(ef, {"configMapRef": {"name": "cm"}, "secretRef": {"name": "s"}}))
    pod("envfrom.name-bad", sadd(ef, {"configMapRef": {"name": "Bad_Name"}}))
    pod("envfrom.secret-name-empty", sadd(ef, {"secretRef": {"name": ""}}))


def resource_cases() -> None:
    r = f"{C0}.resources"
    pod("res.cpu-word", sset(f"{r}.requests.cpu", "two"))
    pod("res.memory-gb", sset(f"{r}.requests.memory", "4GB"))
    pod("res.placeholder", sset(f"{r}.limits.nvidia.com/gpu", "<GPU_LIMIT>"))
    pod("res.cpu-milli", sset(f"{r}.requests.cpu", "500m"))
    pod("res.cpu-decimal", sset(f"{r}.requests.cpu", "0.5"))
    pod("res.cpu-int", sset(f"{r}.requests.cpu", 2))
    pod("res.cpu-float", sset(f"{r}.requests.cpu", 1.5))
    pod("res.memory-exponent", sset(f"{r}.requests.memory", "1e9"))
    pod("res.memory-fraction-gi", sset(f"{r}.requests.memory", "1.5Gi"))
    pod("res.cpu-negative", sset(f"{r}.requests.cpu", "-1"))
    pod("res.cpu-plus", sset(f"{r}.requests.cpu", "+1"))
    pod("res.cpu-space", sset(f"{r}.requests.cpu", " 1"))
    pod("res.cpu-tiny", sset(f"{r}.requests.cpu", "0.0001"))
    pod("res.cpu-zero", sset(f"{r}.requests.cpu", "0"))
    pod("res.cpu-two-dots", sset(f"{r}.requests.cpu", "1.5.5"))
    pod("res.memory-bare-e", sset(f"{r}.requests.memory", "1e"))
    pod("res.memory-exa", sset(f"{r}.requests.memory", "1E"))
    pod("res.memory-lower-ki", sset(f"{r}.requests.memory", "1ki"))
    pod("res.memory-ki", sset(f"{r}.requests.memory", "1Ki"))
    pod("res.memory-kb-lower", sset(f"{r}.requests.memory", "1k"))
    pod("res.requests-over-limits", sset(f"{r}.limits.cpu", "1"))
    pod("res.requests-equal-limits", sset(f"{r}.limits.cpu", "2"), sset(f"{r}.limits.memory", "4Gi"))
    pod("res.limits-above", sset(f"{r}.limits.memory", "8Gi"))
    pod("res.limits-only", sdel(f"{r}.requests"), sset(f"{r}.limits.cpu", "1"))
    pod("res.memory-over-limit-units", sset(f"{r}.limits.memory", "4G"))
    pod("res.gpu-request-no-limit", sset(f"{r}.requests.nvidia.com/gpu", "1"))
    pod("res.gpu-limit", sset(f"{r}.limits.nvidia.com/gpu", "1"))
    pod(
        "res.gpu-request-below-limit",
        sset(f"{r}.requests.nvidia.com/gpu", "1"),
        sset(f"{r}.limits.nvidia.com/gpu", "2"),
    )
    pod("res.gpu-fraction", sset(f"{r}.limits.nvidia.com/gpu", "0.5"))
    pod("res.gpu-milli-whole", sset(f"{r}.limits.nvidia.com/gpu", "1000m"))
    pod("res.gpu-zero", sset(f"{r}.limits.nvidia.com/gpu", "0"))
    pod("res.hugepages-limit", sset(f"{r}.limits.hugepages-2Mi", "100Mi"))
    pod("res.hugepages-request-only", sset(f"{r}.requests.hugepages-2Mi", "100Mi"))
    pod("res.hugepages-odd-size", sset(f"{r}.limits.hugepages-3Mi", "3Mi"))
    pod("res.hugepages-not-multiple", sset(f"{r}.limits.hugepages-2Mi", "3Mi"))
    pod("res.hugepages-alone", sset(f"{r}", {"limits": {"hugepages-2Mi": "100Mi"}}))
    pod("res.hugepages-bad-suffix", sset(f"{r}.limits.hugepages-", "2Mi"))
    pod("res.name-unqualified", sset(f"{r}.limits.foo", "1"))
    pod("res.name-qualified", sset(f"{r}.limits.example.com/foo", "1"))
    pod("res.name-qualified-upper", sset(f"{r}.limits.example.com/Foo", "1"))
    pod("res.name-kubernetes-io", sset(f"{r}.limits.kubernetes.io/foo", "1"))
    pod("res.name-requests-prefix", sset(f"{r}.limits.requests.example.com/foo", "1"))
    pod("res.ephemeral-storage", sset(f"{r}.requests.ephemeral-storage", "1Gi"))
    pod("res.storage", sset(f"{r}.requests.storage", "1Gi"))
    pod("res.pods", sset(f"{r}.requests.pods", "1"))
    pod(
        "res.extended-request-equal-limit",
        sset(f"{r}.requests.example.com/foo", "2"),
        sset(f"{r}.limits.example.com/foo", "2"),
    )
    pod(
        "res.init-over-limit",
        sadd("spec.initContainers", _c(name="init", resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})),
    )


def probe_cases() -> None:
    lp, rp, sp = f"{C0}.livenessProbe", f"{C0}.readinessProbe", f"{C0}.startupProbe"
    ok = {"tcpSocket": {"port": 9091}}
    pod("probe.no-handler", sset(lp, {"periodSeconds": 5}))
    pod("probe.two-handlers", sset(lp, {"exec": {"command": ["true"]}, "tcpSocket": {"port": 9091}}))
    pod("probe.http-port-zero", sset(lp, {"httpGet": {"port": 0}}))
    pod("probe.http-port-name", sset(lp, {"httpGet": {"port": "mxjob-port", "path": "/healthz"}}))
    pod("probe.http-port-name-unknown", sset(lp, {"httpGet": {"port": "nope"}}))
    pod("probe.http-port-name-bad", sset(lp, {"httpGet": {"port": "Bad_Name"}}))
    pod("probe.http-port-name-long", sset(lp, {"httpGet": {"port": "abcdefghijklmnop"}}))
    pod("probe.tcp-port-70000", sset(lp, {"tcpSocket": {"port": 70000}}))
    pod("probe.period-zero", sset(lp, {**ok, "periodSeconds": 0}))
    pod("probe.period-negative", sset(lp, {**ok, "periodSeconds": -1}))
    pod("probe.timeout-negative", sset(lp, {**ok, "timeoutSeconds": -1}))
    pod("probe.initial-delay-negative", sset(lp, {**ok, "initialDelaySeconds": -5}))
    pod("probe.liveness-success-2", sset(lp, {**ok, "successThreshold": 2}))
    pod("probe.readiness-success-2", sset(rp, {**ok, "successThreshold": 2}))
    pod("probe.startup-success-2", sset(sp, {**ok, "successThreshold": 2}))
    pod("probe.startup-ok", sset(sp, {**ok, "failureThreshold": 30}))
    pod("probe.failure-negative", sset(rp, {**ok, "failureThreshold": -1}))
    pod("probe.http-scheme-ftp", sset(lp, {"httpGet": {"port": 80, "scheme": "FTP"}}))
    pod("probe.http-scheme-https", sset(lp, {"httpGet": {"port": 80, "scheme": "HTTPS"}}))
    pod("probe.http-path-relative", sset(lp, {"httpGet": {"port": 80, "path": "healthz"}}))
    pod(
        "probe.http-header-bad",
        sset(lp, {"httpGet": {"port": 80, "httpHeaders": [{"name": "Bad Header", "value": "x"}]}}),
    )
    pod("probe.http-header-ok", sset(lp, {"httpGet": {"port": 80, "httpHeaders": [{"name": "X-Custom", "value": ""}]}}))
    pod("probe.exec-empty-command", sset(lp, {"exec": {"command": []}}))
    pod("probe.exec-no-command", sset(lp, {"exec": {}}))
    pod("probe.tcp-host-ok", sset(rp, {"tcpSocket": {"port": 80, "host": "example.com"}}))
    lc = f"{C0}.lifecycle"
    pod("hook.post-start-no-handler", sset(f"{lc}.postStart", {}))
    pod("hook.pre-stop-exec", sset(f"{lc}.preStop", {"exec": {"command": ["sleep", "5"]}}))
    pod("hook.pre-stop-tcp", sset(f"{lc}.preStop", {"tcpSocket": {"port": 80}}))
    pod("hook.post-start-http-port-zero", sset(f"{lc}.postStart", {"httpGet": {"port": 0}}))
    pod("hook.two-handlers", sset(f"{lc}.preStop", {"exec": {"command": ["x"]}, "httpGet": {"port": 80}}))


def security_cases() -> None:
    sc, psc = f"{C0}.securityContext", "spec.securityContext"
    pod("sec.run-as-user-negative", sset(f"{sc}.runAsUser", -1))
    pod("sec.run-as-user-zero", sset(f"{sc}.runAsUser", 0))
    pod("sec.run-as-user-large", sset(f"{sc}.runAsUser", 2147483647))
    pod("sec.run-as-user-too-large", sset(f"{sc}.runAsUser", 2147483648))
    pod("sec.run-as-group-negative", sset(f"{sc}.runAsGroup", -1))
    pod("sec.privileged", sset(f"{sc}.privileged", True), http_only=True)
    pod("sec.no-escalation-privileged", sset(f"{sc}.privileged", True), sset(f"{sc}.allowPrivilegeEscalation", False))
    pod(
        "sec.no-escalation-sys-admin",
        sset(f"{sc}.capabilities", {"add": ["SYS_ADMIN"]}),
        sset(f"{sc}.allowPrivilegeEscalation", False),
    )
    pod("sec.cap-add", sset(f"{sc}.capabilities", {"add": ["NET_ADMIN"], "drop": ["ALL"]}))
    pod("sec.cap-lowercase", sset(f"{sc}.capabilities", {"add": ["net_admin"]}))
    pod("sec.non-root-with-root-uid", sset(f"{sc}.runAsNonRoot", True), sset(f"{sc}.runAsUser", 0))
    pod("sec.read-only-root", sset(f"{sc}.readOnlyRootFilesystem", True))
    pod("sec.seccomp-localhost-no-profile", sset(f"{sc}.seccompProfile", {"type": "Localhost"}))
    pod("sec.seccomp-localhost-ok", sset(f"{sc}.seccompProfile", {"type": "Localhost", "localhostProfile": "p.json"}))
    pod("sec.seccomp-runtime-default", sset(f"{sc}.seccompProfile", {"type": "RuntimeDefault"}))
    pod("sec.seccomp-bogus", sset(f"{sc}.seccompProfile", {"type": "Bogus"}))
    pod(
        "sec.seccomp-unconfined-with-profile",
        sset(f"{sc}.seccompProfile", {"type": "Unconfined", "localhostProfile": "p.json"}),
    )
    pod(
        "sec.seccomp-localhost-absolute",
        sset(f"{sc}.seccompProfile", {"type": "Localhost", "localhostProfile": "/etc/p.json"}),
    )
    pod(
        "sec.seccomp-localhost-dotdot",
        sset(f"{sc}.seccompProfile", {"type": "Localhost", "localhostProfile": "../p.json"}),
    )
    pod("sec.selinux-any", sset(f"{sc}.seLinuxOptions", {"level": "s0:c123,c456", "type": "spc_t"}))
    pod("sec.windows-gmsa-name-bad", sset(f"{sc}.windowsOptions", {"gmsaCredentialSpecName": "Bad_Name"}))
    pod("sec.windows-gmsa-name-ok", sset(f"{sc}.windowsOptions", {"gmsaCredentialSpecName": "gmsa-spec"}))
    pod("sec.windows-user-empty", sset(f"{sc}.windowsOptions", {"runAsUserName": ""}))
    pod("sec.windows-user-bad", sset(f"{sc}.windowsOptions", {"runAsUserName": 'dom\\us"er'}))
    pod("sec.windows-user-ok", sset(f"{sc}.windowsOptions", {"runAsUserName": "NT AUTHORITY\\NETWORK SERVICE"}))
    pod("sec.windows-user-long", sset(f"{sc}.windowsOptions", {"runAsUserName": "u" * 300}))
    pod("psec.run-as-user-negative", sset(f"{psc}.runAsUser", -1))
    pod("psec.fs-group-negative", sset(f"{psc}.fsGroup", -1))
    pod("psec.supplemental-negative", sset(f"{psc}.supplementalGroups", [-1]))
    pod("psec.supplemental-ok", sset(f"{psc}.supplementalGroups", [0, 1000]))
    pod("psec.sysctl-ok", sset(f"{psc}.sysctls", [{"name": "kernel.shm_rmid_forced", "value": "1"}]))
    pod("psec.sysctl-net-ok", sset(f"{psc}.sysctls", [{"name": "net.ipv4.ip_local_port_range", "value": "1024 65535"}]))
    pod("psec.sysctl-bad-name", sset(f"{psc}.sysctls", [{"name": "Bad Name", "value": "1"}]))
    pod("psec.sysctl-slash", sset(f"{psc}.sysctls", [{"name": "kernel/shm_rmid_forced", "value": "1"}]))
    pod("psec.sysctl-empty-value", sset(f"{psc}.sysctls", [{"name": "kernel.shm_rmid_forced", "value": ""}]))
    pod(
        "psec.sysctl-duplicate",
        sset(f"{psc}.sysctls", [{"name": "kernel.shm_rmid_forced", "value": "1"}] * 2),
    )
    pod("psec.fs-group-policy-ok", sset(f"{psc}.fsGroupChangePolicy", "OnRootMismatch"))
    pod("psec.fs-group-policy-bad", sset(f"{psc}.fsGroupChangePolicy", "Bogus"))
    pod("psec.seccomp-localhost-no-profile", sset(f"{psc}.seccompProfile", {"type": "Localhost"}))
    pod("psec.windows-gmsa-bad", sset(f"{psc}.windowsOptions", {"gmsaCredentialSpecName": "a..b"}))
    pod("psec.run-as-non-root", sset(f"{psc}.runAsNonRoot", True))


def pod_level_cases() -> None:
    pod("pod.restart-sometimes", sset("spec.restartPolicy", "Sometimes"))
    pod("pod.restart-always", sset("spec.restartPolicy", "Always"))
    pod("pod.dns-policy-bad", sset("spec.dnsPolicy", "Bogus"))
    pod("pod.dns-none-no-config", sset("spec.dnsPolicy", "None"))
    pod("pod.dns-none-ok", sset("spec.dnsPolicy", "None"), sset("spec.dnsConfig", {"nameservers": ["1.1.1.1"]}))
    pod("pod.dns-nameserver-bad", sset("spec.dnsConfig", {"nameservers": ["dns.example"]}))
    pod(
        "pod.dns-four-nameservers",
        sset("spec.dnsConfig", {"nameservers": ["1.1.1.1", "1.0.0.1", "8.8.8.8", "8.8.4.4"]}),
    )
    pod("pod.dns-searches-6", sset("spec.dnsConfig", {"searches": [f"s{i}.example" for i in range(6)]}))
    pod("pod.dns-searches-7", sset("spec.dnsConfig", {"searches": [f"s{i}.example" for i in range(7)]}))
    pod("pod.dns-searches-long", sset("spec.dnsConfig", {"searches": ["a" * 60 + f".x{i}" for i in range(5)]}))
    pod("pod.dns-search-bad", sset("spec.dnsConfig", {"searches": ["Bad_Domain"]}))
    pod("pod.dns-search-trailing-dot", sset("spec.dnsConfig", {"searches": ["example.com."]}))
    pod("pod.dns-option-no-name", sset("spec.dnsConfig", {"options": [{"value": "2"}]}))
    pod("pod.dns-option-ok", sset("spec.dnsConfig", {"options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]}))
    pod("pod.dns-host-network-ok", sset("spec.hostNetwork", True), sset("spec.dnsPolicy", "ClusterFirstWithHostNet"))
    pod("pod.host-alias-ip-bad", sset("spec.hostAliases", [{"ip": "999.1.1.1", "hostnames": ["a"]}]))
    pod("pod.host-alias-name-bad", sset("spec.hostAliases", [{"ip": "10.0.0.1", "hostnames": ["Bad_Host"]}]))
    pod("pod.host-alias-ok", sset("spec.hostAliases", [{"ip": "10.0.0.1", "hostnames": ["db", "db.local"]}]))
    pod("pod.host-alias-ipv6", sset("spec.hostAliases", [{"ip": "::1", "hostnames": ["l"]}]))
    pod("pod.host-alias-no-ip", sset("spec.hostAliases", [{"hostnames": ["a"]}]))
    pod(
        "pod.host-alias-host-network",
        sset("spec.hostNetwork", True),
        sset("spec.hostAliases", [{"ip": "10.0.0.1", "hostnames": ["a"]}]),
    )
    pod("pod.hostname-bad", sset("spec.hostname", "Bad_Host"))
    pod("pod.hostname-dots", sset("spec.hostname", "a.b"))
    pod("pod.hostname-ok", sset("spec.hostname", "worker-0"), sset("spec.subdomain", "mnist-single"))
    pod("pod.hostname-64", sset("spec.hostname", "h" * 64))
    pod("pod.subdomain-bad", sset("spec.subdomain", "a.b"))
    pod("pod.fqdn-hostname", sset("spec.setHostnameAsFQDN", True))
    pod("pod.node-name-ok", sset("spec.nodeName", "node-1.example"))
    pod("pod.node-name-bad", sset("spec.nodeName", "Bad_Node"))
    pod("pod.node-selector-key-bad", sset("spec.nodeSelector.bad key", "v"))
    pod("pod.node-selector-value-bad", sset("spec.nodeSelector.kubernetes.io/arch", "a b"))
    pod("pod.node-selector-ok", sset("spec.nodeSelector.kubernetes.io/arch", "amd64"))
    pod("pod.priority-set", sset("spec.priority", 1000), http_only=True)
    pod("pod.preemption-never", sset("spec.preemptionPolicy", "Never"), http_only=True)
    pod("pod.preemption-bad", sset("spec.preemptionPolicy", "Bogus"))
    pod("pod.readiness-gate-bad", sset("spec.readinessGates", [{"conditionType": "bad type!"}]))
    pod("pod.readiness-gate-ok", sset("spec.readinessGates", [{"conditionType": "example.com/ready"}]))
    pod("pod.overhead-without-class", sset("spec.overhead", {"cpu": "100m"}), http_only=True)
    pod("pod.runtime-class-bad", sset("spec.runtimeClassName", "Bad_Name"))
    pod("pod.deadline-zero", sset("spec.activeDeadlineSeconds", 0))
    pod("pod.deadline-negative", sset("spec.activeDeadlineSeconds", -1))
    pod("pod.deadline-one", sset("spec.activeDeadlineSeconds", 1))
    pod("pod.grace-negative", sset("spec.terminationGracePeriodSeconds", -1))
    pod("pod.grace-zero", sset("spec.terminationGracePeriodSeconds", 0))
    pod("pod.service-links-off", sset("spec.enableServiceLinks", False))
    pod("pod.share-pid-and-host-pid", sset("spec.shareProcessNamespace", True), sset("spec.hostPID", True))
    pod("pod.host-pid-ipc", sset("spec.hostPID", True), sset("spec.hostIPC", True))
    pod("pod.scheduler-name-odd", sset("spec.schedulerName", "Volcano_Scheduler"))
    pod("pod.scheduler-name-ok", sset("spec.schedulerName", "volcano"))
    pod("pod.sa-name-bad", sset("spec.serviceAccountName", "Bad_SA"))
    pod("pod.sa-default", sset("spec.serviceAccountName", "default"))
    pod("pod.sa-deprecated-field", sset("spec.serviceAccount", "default"))
    pod("pod.automount-off", sset("spec.automountServiceAccountToken", False))
    pod("pod.pull-secret-empty", sset("spec.imagePullSecrets", [{"name": ""}]))
    pod("pod.pull-secret-bad", sset("spec.imagePullSecrets", [{"name": "Bad_Name"}]))
    pod("pod.pull-secret-ok", sset("spec.imagePullSecrets", [{"name": "regcred"}]))


def scheduling_cases() -> None:
    t = "spec.tolerations"
    pod("tol.operator-bad", sset(t, [{"key": "k", "operator": "Bogus", "value": "v"}]))
    pod("tol.exists-with-value", sset(t, [{"key": "k", "operator": "Exists", "value": "v"}]))
    pod("tol.equal-no-key", sset(t, [{"operator": "Equal", "value": "v"}]))
    pod("tol.effect-bad", sset(t, [{"key": "k", "operator": "Exists", "effect": "Bogus"}]))
    pod(
        "tol.seconds-no-schedule",
        sset(t, [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]),
    )
    pod(
        "tol.seconds-no-execute",
        sset(t, [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}]),
    )
    pod("tol.key-bad", sset(t, [{"key": "bad key", "operator": "Exists"}]))
    pod("tol.exists-everything", sset(t, [{"operator": "Exists"}]))
    pod("tol.value-bad", sset(t, [{"key": "k", "value": "a b"}]))
    pod("tol.gpu-ok", sset(t, [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]))
    pod(
        "tol.seconds-negative",
        sset(t, [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5}]),
    )
    na = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

    def term(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> Step:
        t: dict[str, Any] = {"matchExpressions": list(exprs)}
        if fields is not None:
            t["matchFields"] = fields
        return sset(na, {"nodeSelectorTerms": [t]})

    pod("aff.node-terms-empty", sset(na, {"nodeSelectorTerms": []}))
    pod("aff.node-term-empty", sset(na, {"nodeSelectorTerms": [{}]}))
    pod("aff.node-operator-bad", term({"key": "k", "operator": "Bogus", "values": ["a"]}))
    pod("aff.node-in-no-values", term({"key": "k", "operator": "In", "values": []}))
    pod("aff.node-exists-with-values", term({"key": "k", "operator": "Exists", "values": ["a"]}))
    pod("aff.node-gt-two-values", term({"key": "k", "operator": "Gt", "values": ["1", "2"]}))
    pod("aff.node-gt-not-int", term({"key": "k", "operator": "Gt", "values": ["x"]}))
    pod("aff.node-gt-ok", term({"key": "k", "operator": "Gt", "values": ["5"]}))
    pod("aff.node-in-ok", term({"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1", "n2"]}))
    pod("aff.node-key-bad", term({"key": "bad key", "operator": "Exists"}))
    pod("aff.node-value-bad", term({"key": "k", "operator": "In", "values": ["a b"]}))
    pod("aff.node-field-ok", term(fields=[{"key": "metadata.name", "operator": "In", "values": ["n1"]}]))
    pod("aff.node-field-bad-key", term(fields=[{"key": "metadata.labels", "operator": "In", "values": ["n1"]}]))
    pod("aff.node-field-two-values", term(fields=[{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]))
    pn = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    pref = {"matchExpressions": [{"key": "k", "operator": "Exists"}]}
    pod("aff.pref-weight-0", sset(pn, [{"weight": 0, "preference": pref}]))
    pod("aff.pref-weight-100", sset(pn, [{"weight": 100, "preference": pref}]))
    pod("aff.pref-weight-101", sset(pn, [{"weight": 101, "preference": pref}]))
    pod("aff.pref-empty-preference", sset(pn, [{"weight": 1, "preference": {}}]))
    pa = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    sel = {"matchLabels": {"app": "mx"}}
    pod("aff.pod-topology-empty", sset(pa, [{"labelSelector": sel, "topologyKey": ""}]))
    pod("aff.pod-topology-bad", sset(pa, [{"labelSelector": sel, "topologyKey": "bad key"}]))
    pod("aff.pod-ok", sset(pa, [{"labelSelector": sel, "topologyKey": "kubernetes.io/hostname"}]))
    pod("aff.pod-no-selector", sset(pa, [{"topologyKey": "kubernetes.io/hostname"}]))
    pod(
        "aff.pod-selector-operator-bad",
        sset(
            pa,
            [
                {
                    "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Equals", "values": ["x"]}]},
                    "topologyKey": "z",
                }
            ],
        ),
    )
    pod(
        "aff.pod-selector-in-empty",
        sset(
            pa,
            [
                {
                    "labelSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
                    "topologyKey": "z",
                }
            ],
        ),
    )
    pod(
        "aff.pod-selector-value-bad",
        sset(pa, [{"labelSelector": {"matchLabels": {"a": "b c"}}, "topologyKey": "z"}]),
    )
    pod("aff.pod-namespace-bad", sset(pa, [{"labelSelector": sel, "topologyKey": "z", "namespaces": ["Bad_NS"]}]))
    paa = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    pod(
        "aff.anti-pref-weight-0",
        sset(paa, [{"weight": 0, "podAffinityTerm": {"labelSelector": sel, "topologyKey": "z"}}]),
    )
    pod("aff.anti-pref-ok", sset(paa, [{"weight": 50, "podAffinityTerm": {"labelSelector": sel, "topologyKey": "z"}}]))
    tsc = "spec.topologySpreadConstraints"
    ok = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": sel}
    pod("tsc.ok", sset(tsc, [ok]))
    pod("tsc.max-skew-zero", sset(tsc, [{**ok, "maxSkew": 0}]))
    pod("tsc.when-bad", sset(tsc, [{**ok, "whenUnsatisfiable": "Bogus"}]))
    pod("tsc.key-empty", sset(tsc, [{**ok, "topologyKey": ""}]))
    pod("tsc.duplicate", sset(tsc, [ok, {**ok, "maxSkew": 2}]))
    pod("tsc.same-key-other-when", sset(tsc, [ok, {**ok, "whenUnsatisfiable": "ScheduleAnyway"}]))
    pod("tsc.no-selector", sset(tsc, [{k: v for k, v in ok.items() if k != "labelSelector"}]))


def volume_cases() -> None:
    v, m = "spec.volumes", f"{C0}.volumeMounts"
    mount = {"name": "data", "mountPath": "/data"}

    def vol(name: str, volume: dict[str, Any], *more: Step, **flags: bool) -> None:
        pod(name, sadd(v, volume), *more, **flags)

    vol("vol.empty-dir-mounted", EMPTY, sadd(m, mount))
    vol("vol.name-uppercase", {"name": "Data", "emptyDir": {}})
    vol("vol.name-64", {"name": "v" * 64, "emptyDir": {}})
    vol("vol.name-dot", {"name": "a.b", "emptyDir": {}})
    vol("vol.duplicate", EMPTY, sadd(v, EMPTY))
    vol("vol.no-source", {"name": "data"})
    vol("vol.two-sources", {"name": "data", "emptyDir": {}, "hostPath": {"path": "/tmp"}})
    vol("vol.host-path-empty", {"name": "data", "hostPath": {"path": ""}})
    vol("vol.host-path-type-bad", {"name": "data", "hostPath": {"path": "/tmp", "type": "Bogus"}})
    vol("vol.host-path-dotdot", {"name": "data", "hostPath": {"path": "/tmp/../etc"}})
    vol("vol.host-path-relative", {"name": "data", "hostPath": {"path": "tmp"}})
    vol("vol.host-path-ok", {"name": "data", "hostPath": {"path": "/dev/shm", "type": "Directory"}})
    vol("vol.configmap-no-name", {"name": "data", "configMap": {}})
    vol("vol.configmap-ok", {"name": "data", "configMap": {"name": "cfg", "optional": True}})
    vol(
        "vol.configmap-item-key-bad",
        {"name": "data", "configMap": {"name": "cfg", "items": [{"key": "a b", "path": "p"}]}},
    )
    vol(
        "vol.configmap-item-path-absolute",
        {"name": "data", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "/p"}]}},
    )
    vol(
        "vol.configmap-item-path-dotdot",
        {"name": "data", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "../p"}]}},
    )
    vol(
        "vol.configmap-item-path-dots-ok",
        {"name": "data", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "..p/x"}]}},
    )
    vol(
        "vol.configmap-item-path-empty",
        {"name": "data", "configMap": {"name": "cfg", "items": [{"key": "a", "path": ""}]}},
    )
    vol("vol.configmap-mode-511", {"name": "data", "configMap": {"name": "cfg", "defaultMode": 511}})
    vol("vol.configmap-mode-512", {"name": "data", "configMap": {"name": "cfg", "defaultMode": 512}})
    vol(
        "vol.configmap-item-mode-negative",
        {"name": "data", "configMap": {"name": "cfg", "items": [{"key": "a", "path": "p", "mode": -1}]}},
    )
    vol("vol.secret-ok", {"name": "data", "secret": {"secretName": "s", "defaultMode": 256}})
    vol("vol.secret-no-name", {"name": "data", "secret": {}})
    vol("vol.empty-dir-size-ok", {"name": "data", "emptyDir": {"sizeLimit": "1Gi", "medium": "Memory"}})
    vol("vol.empty-dir-size-bad", {"name": "data", "emptyDir": {"sizeLimit": "1GB"}})
    vol("vol.empty-dir-medium-odd", {"name": "data", "emptyDir": {"medium": "Bogus"}})
    vol("vol.pvc-no-claim", {"name": "data", "persistentVolumeClaim": {"claimName": ""}})
    vol("vol.pvc-ok", {"name": "data", "persistentVolumeClaim": {"claimName": "data-0", "readOnly": True}})
    vol(
        "vol.downward-node-name",
        {"name": "data", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "spec.nodeName"}}]}},
    )
    vol(
        "vol.downward-labels",
        {"name": "data", "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
    )
    vol(
        "vol.downward-resource-no-container",
        {"name": "data", "downwardAPI": {"items": [{"path": "c", "resourceFieldRef": {"resource": "limits.cpu"}}]}},
    )
    vol(
        "vol.projected-token-short",
        {"name": "data", "projected": {"sources": [{"serviceAccountToken": {"path": "t", "expirationSeconds": 300}}]}},
        http_only=True,
    )
    vol(
        "vol.projected-token-ok",
        {"name": "data", "projected": {"sources": [{"serviceAccountToken": {"path": "t", "expirationSeconds": 3600}}]}},
        http_only=True,
    )
    vol(
        "vol.projected-two-in-one",
        {"name": "data", "projected": {"sources": [{"configMap": {"name": "a"}, "secret": {"name": "b"}}]}},
    )
    vol(
        "vol.projected-path-clash",
        {
            "name": "data",
            "projected": {
                "sources": [
                    {"configMap": {"name": "a", "items": [{"key": "k", "path": "p"}]}},
                    {"secret": {"name": "b", "items": [{"key": "k", "path": "p"}]}},
                ]
            },
        },
    )
    vol("vol.nfs-no-server", {"name": "data", "nfs": {"server": "", "path": "/x"}})
    vol("vol.nfs-ok", {"name": "data", "nfs": {"server": "nfs.example", "path": "/exports"}})
    vol("vol.nfs-relative-path", {"name": "data", "nfs": {"server": "nfs.example", "path": "exports"}})
    vol("vol.csi-no-driver", {"name": "data", "csi": {"driver": ""}})
    vol("vol.csi-ok", {"name": "data", "csi": {"driver": "secrets-store.csi.k8s.io", "readOnly": True}})
    vol("vol.csi-driver-bad", {"name": "data", "csi": {"driver": "Bad_Driver"}})
    vol("vol.git-repo-dotdot", {"name": "data", "gitRepo": {"repository": "https://x", "directory": "../x"}})
    vol("vol.git-repo-ok", {"name": "data", "gitRepo": {"repository": "https://x", "directory": "."}})
    vol("vol.iscsi-bad-iqn", {"name": "data", "iscsi": {"targetPortal": "1.2.3.4", "iqn": "bogus", "lun": 0}})
    # mounts
    pod("mount.unknown-volume", sadd(m, mount))
    vol("mount.path-empty", EMPTY, sadd(m, {"name": "data", "mountPath": ""}))
    vol("mount.same-path-twice", EMPTY, sadd(m, mount), sadd(m, mount))
    vol("mount.same-volume-two-paths", EMPTY, sadd(m, mount), sadd(m, {"name": "data", "mountPath": "/other"}))
    vol("mount.subpath-absolute", EMPTY, sadd(m, {**mount, "subPath": "/abs"}))
    vol("mount.subpath-dotdot", EMPTY, sadd(m, {**mount, "subPath": "a/../../b"}))
    vol("mount.subpath-nested-ok", EMPTY, sadd(m, {**mount, "subPath": "a/b"}))
    vol("mount.subpath-and-expr", EMPTY, sadd(m, {**mount, "subPath": "a", "subPathExpr": "$(X)"}))
    vol("mount.subpath-expr-ok", EMPTY, sadd(m, {**mount, "subPathExpr": "$(POD_NAME)"}))
    vol("mount.subpath-expr-absolute", EMPTY, sadd(m, {**mount, "subPathExpr": "/$(POD_NAME)"}))
    vol("mount.propagation-bidirectional", EMPTY, sadd(m, {**mount, "mountPropagation": "Bidirectional"}))
    vol(
        "mount.propagation-bidirectional-privileged",
        EMPTY,
        sadd(m, {**mount, "mountPropagation": "Bidirectional"}),
        sset(f"{C0}.securityContext.privileged", True),
        http_only=True,
    )
    vol("mount.propagation-host-to-container", EMPTY, sadd(m, {**mount, "mountPropagation": "HostToContainer"}))
    vol("mount.propagation-bad", EMPTY, sadd(m, {**mount, "mountPropagation": "Bogus"}))
    vol("mount.relative-path", EMPTY, sadd(m, {"name": "data", "mountPath": "data"}))
    vol("mount.path-with-colon", EMPTY, sadd(m, {"name": "data", "mountPath": "/a:b"}))
    vol("mount.device-on-emptydir", EMPTY, sadd(f"{C0}.volumeDevices", {"name": "data", "devicePath": "/dev/x"}))
    vol(
        "mount.device-and-mount-same-path",
        {"name": "blk", "persistentVolumeClaim": {"claimName": "c"}},
        sadd(f"{C0}.volumeDevices", {"name": "blk", "devicePath": "/data"}),
        sadd(m, {"name": "blk", "mountPath": "/data"}),
    )
    vol(
        "mount.device-ok",
        {"name": "blk", "persistentVolumeClaim": {"claimName": "c"}},
        sadd(f"{C0}.volumeDevices", {"name": "blk", "devicePath": "/dev/xvda"}),
    )


def init_container_cases() -> None:
    i = "spec.initContainers"
    pod("init.ok", sadd(i, _c(name="init", command=["true"])))
    pod("init.same-name-as-container", sadd(i, _c(name="mxnet")))
    pod("init.lifecycle", sadd(i, _c(name="init", lifecycle={"preStop": {"exec": {"command": ["x"]}}})))
    pod("init.readiness", sadd(i, _c(name="init", readinessProbe={"tcpSocket": {"port": 80}})))
    pod("init.liveness", sadd(i, _c(name="init", livenessProbe={"tcpSocket": {"port": 80}})))
    pod("init.startup", sadd(i, _c(name="init", startupProbe={"tcpSocket": {"port": 80}})))
    pod("init.name-bad", sadd(i, _c(name="Init")))
    pod("init.duplicate", sadd(i, _c(name="init")), sadd(i, _c(name="init")))
    pod("init.port-name-clash", sadd(i, _c(name="init", ports=[{"name": "mxjob-port", "containerPort": 1}])))
    pod("init.gpu", sadd(i, _c(name="init", resources={"limits": {"nvidia.com/gpu": "1"}})))
    pod("init.env-bad", sadd(i, _c(name="init", env=[{"name": "A=B"}])))
    pod("init.no-image", sadd(i, {"name": "init"}))


def service_cases() -> None:
    def svc(name: str, *steps: Step, **flags: bool) -> None:
        case(name, "service", *steps, **flags)

    p0 = "spec.ports.0"
    svc("svc.port-zero", sset(f"{p0}.port", 0))
    svc("svc.port-65536", sset(f"{p0}.port", 65536))
    svc("svc.target-zero", sset(f"{p0}.targetPort", 0))
    svc("svc.target-name-bad", sset(f"{p0}.targetPort", "Bad_Name"))
    svc("svc.target-name-ok", sset(f"{p0}.targetPort", "mxjob-port"))
    svc("svc.target-name-16", sset(f"{p0}.targetPort", "abcdefghijklmnop"))
    svc("svc.target-70000", sset(f"{p0}.targetPort", 70000))
    svc("svc.port-name-16-ok", sset(f"{p0}.name", "abcdefghijklmnop"))
    svc("svc.port-name-upper", sset(f"{p0}.name", "Port"))
    svc("svc.port-name-digits", sset(f"{p0}.name", "9091"))
    svc("svc.two-ports-same-name", sadd("spec.ports", {"name": "mxjob-port", "port": 9092}))
    svc("svc.two-ports-unnamed", sdel(f"{p0}.name"), sadd("spec.ports", {"port": 9092}))
    svc("svc.one-port-unnamed", sdel(f"{p0}.name"))
    svc("svc.duplicate-port", sadd("spec.ports", {"name": "other", "port": 9091}))
    svc("svc.same-port-udp", sadd("spec.ports", {"name": "other", "port": 9091, "protocol": "UDP"}))
    svc("svc.protocol-http", sset(f"{p0}.protocol", "HTTP"))
    svc("svc.protocol-sctp", sset(f"{p0}.protocol", "SCTP"))
    svc("svc.node-port-on-cluster-ip", sset(f"{p0}.nodePort", 30080))
    svc("svc.node-port-headless", sset("spec.type", "NodePort"))
    svc("svc.external-name-missing", sset("spec.type", "ExternalName"), sdel("spec.clusterIP"))
    svc(
        "svc.external-name-ok",
        sset("spec.type", "ExternalName"),
        sdel("spec.clusterIP"),
        sset("spec.externalName", "db.example.com"),
    )
    svc(
        "svc.external-name-bad",
        sset("spec.type", "ExternalName"),
        sdel("spec.clusterIP"),
        sset("spec.externalName", "Bad_Host"),
    )
    svc("svc.type-bad", sset("spec.type", "Bogus"))
    svc("svc.selector-value-bad", sset("spec.selector.k", "a b"))
    svc("svc.selector-key-bad", sset("spec.selector.bad key", "v"))
    svc("svc.selector-empty", sset("spec.selector", {}))
    svc("svc.not-ready", sset("spec.publishNotReadyAddresses", True))
    svc("svc.affinity-bad", sset("spec.sessionAffinity", "Bogus"))
    svc("svc.affinity-client-ip", sset("spec.sessionAffinity", "ClientIP"))
    svc(
        "svc.affinity-timeout-zero",
        sset("spec.sessionAffinity", "ClientIP"),
        sset("spec.sessionAffinityConfig", {"clientIP": {"timeoutSeconds": 0}}),
    )
    svc(
        "svc.affinity-timeout-max",
        sset("spec.sessionAffinity", "ClientIP"),
        sset("spec.sessionAffinityConfig", {"clientIP": {"timeoutSeconds": 86400}}),
    )
    svc(
        "svc.affinity-config-without-client-ip",
        sset("spec.sessionAffinityConfig", {"clientIP": {"timeoutSeconds": 10}}),
    )
    svc("svc.cluster-ip-bad", sset("spec.clusterIP", "not-an-ip"))
    svc("svc.cluster-ip-none-lower", sset("spec.clusterIP", "none"))
    svc("svc.external-ips-bad", sset("spec.externalIPs", ["bogus"]))
    svc("svc.external-ips-ok", sset("spec.externalIPs", ["1.2.3.4"]))
    svc("svc.external-ips-loopback", sset("spec.externalIPs", ["127.0.0.1"]))
    svc("svc.name-upper", sset("metadata.name", "Svc"))
    svc("svc.name-dot", sset("metadata.name", "a.b"))
    svc("svc.name-leading-digit", sset("metadata.name", "1svc"))
    svc("svc.name-63", sset("metadata.name", "s" * 63))
    svc("svc.name-64", sset("metadata.name", "s" * 64))
    svc("svc.generate-name-digit", sdel("metadata.name"), sset("metadata.generateName", "1-"), http_only=True)
    svc("svc.app-protocol-ok", sset(f"{p0}.appProtocol", "kubernetes.io/h2c"))
    svc("svc.app-protocol-plain", sset(f"{p0}.appProtocol", "http"))
    svc("svc.app-protocol-bad", sset(f"{p0}.appProtocol", "bad proto"))
    svc("svc.traffic-local-cluster-ip", sset("spec.externalTrafficPolicy", "Local"))
    svc("svc.health-node-port-cluster-ip", sset("spec.healthCheckNodePort", 30000))
    svc("svc.no-ports-headless", sset("spec.ports", []))
    svc("svc.lb-source-range-cluster-ip", sset("spec.loadBalancerSourceRanges", ["10.0.0.0/8"]))
    svc("svc.target-port-string-number", sset(f"{p0}.targetPort", "8080"))


def configmap_cases() -> None:
    def cm(name: str, *steps: Step, **flags: bool) -> None:
        case(name, "configmap", *steps, **flags)

    cm("cm.key-space", sset("data.bad key", "v"))
    cm("cm.key-punct-ok", sset("data.a.b-c_d", "v"))
    cm("cm.key-dot", sset("data..", "v"))
    cm("cm.key-dotdot", sset("data...", "v"))
    cm("cm.key-leading-dotdot", sset("data...a", "v"))
    cm("cm.key-hidden-ok", sset("data..hidden", "v"))
    cm("cm.key-253", sset("data." + "k" * 253, "v"))
    cm("cm.key-254", sset("data." + "k" * 254, "v"))
    cm("cm.key-slash", sset("data.a/b", "v"))
    cm("cm.key-empty", sset("data.", "v"))
    cm("cm.data-binary-overlap", sset("binaryData.job.json", "aGk="))
    cm("cm.binary-ok", sset("binaryData.blob", "aGVsbG8="))
    cm("cm.binary-not-base64", sset("binaryData.blob", "not base64!"))
    cm("cm.value-unicode", sset("data.u", "\u00e9\u2603\n\t"))
    cm("cm.size-under-limit", sset("data.big", "x" * (1048576 - 4096)))
    cm("cm.size-over-limit", sset("data.big", "x" * 1048577))
    cm("cm.size-over-split", sset("data.a", "x" * 600000), sset("binaryData.b", "eA==" * 150000))
    cm("cm.empty-data", sset("data", {}))
    cm("cm.immutable", sset("immutable", True))
    cm("cm.name-upper", sset("metadata.name", "Config"))
    cm("cm.name-dots-ok", sset("metadata.name", "a.b.c"))
    cm("cm.name-253", sset("metadata.name", ("c" * 63 + ".") * 3 + "c" * 61))
    cm("cm.name-colon", sset("metadata.name", "a:b"))


def gpu_cases() -> None:
    """GPU pods as vendors' MXJob templates write them (examples/train, byteps, tune)."""
    r = f"{C0}.resources"
    case("gpu.request-without-limit", "gpu-pod", sdel(f"{r}.limits"), sset(f"{r}.requests.nvidia.com/gpu", 1))
    case("gpu.request-equal-limit", "gpu-pod", sset(f"{r}.requests.nvidia.com/gpu", 1))
    case("gpu.request-above-limit", "gpu-pod", sset(f"{r}.requests.nvidia.com/gpu", 2))
    case("gpu.placeholder", "gpu-pod", sset(f"{r}.limits.nvidia.com/gpu", "<GPU_LIMIT>"))
    case("gpu.template-variable", "gpu-pod", sset(f"{r}.limits.nvidia.com/gpu", "${GPUS}"))
    case("gpu.half", "gpu-pod", sset(f"{r}.limits.nvidia.com/gpu", "1.5"))
    case("gpu.negative", "gpu-pod", sset(f"{r}.limits.nvidia.com/gpu", -1))
    case("gpu.zero", "gpu-pod", sset(f"{r}.limits.nvidia.com/gpu", 0))
    case("gpu.amd", "gpu-pod", sset(f"{r}.limits", {"amd.com/gpu": 1}))
    case("gpu.typo-plural", "gpu-pod", sset(f"{r}.limits", {"nvidia.com/gpus": 1}))
    case("gpu.bare-name", "gpu-pod", sset(f"{r}.limits", {"gpu": 1}))
    case("gpu.kubernetes-io", "gpu-pod", sset(f"{r}.limits", {"kubernetes.io/gpu": "1"}))
    case("gpu.mig-profile", "gpu-pod", sset(f"{r}.limits", {"nvidia.com/mig-1g.5gb": 1}))
    case("gpu.with-cpu-over", "gpu-pod", sset(f"{r}.limits.cpu", "1"), sset(f"{r}.requests.cpu", "2"))
    case("gpu.memory-gb", "gpu-pod", sset(f"{r}.limits.memory", "16GB"))
    case("gpu.memory-lower-gi", "gpu-pod", sset(f"{r}.limits.memory", "16gi"))
    case("gpu.toleration", "gpu-pod", sset("spec.tolerations", [{"key": "nvidia.com/gpu", "operator": "Exists"}]))
    case("gpu.node-selector", "gpu-pod", sset("spec.nodeSelector", {"nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB"}))
    case(
        "gpu.shm-volume",
        "gpu-pod",
        sadd("spec.volumes", {"name": "dshm", "emptyDir": {"medium": "Memory"}}),
        sadd(f"{C0}.volumeMounts", {"name": "dshm", "mountPath": "/dev/shm"}),
    )
    case("byteps.eight-requested", "byteps-pod", sset(f"{r}.requests.nvidia.com/gpu", 8))
    case("byteps.four-requested", "byteps-pod", sset(f"{r}.requests.nvidia.com/gpu", 4))
    case("byteps.rdma", "byteps-pod", sset(f"{r}.limits.rdma/hca", 1))
    case("byteps.ipc-lock", "byteps-pod", sset(f"{C0}.securityContext.capabilities.add", ["IPC_LOCK"]))
    case("byteps.host-network", "byteps-pod", sset("spec.hostNetwork", True))
    case("byteps.env-name-digit", "byteps-pod", sadd(f"{C0}.env", {"name": "2FA", "value": "x"}))
    case("tune.selector-label", "tune-pod", sset("spec.nodeSelector", {"accelerator": "2080ti"}))
    case("tune.selector-bad", "tune-pod", sset("spec.nodeSelector", {"accelerator": "2080 ti"}))
    case("tune.label-template-ok", "tune-pod", sset("metadata.labels.team", "tuning"))
    case("tune.label-template-bad", "tune-pod", sset("metadata.labels.team", "tuning team"))
    case("tune.annotation-template-bad-key", "tune-pod", sset("metadata.annotations.bad key", "x"))


def decoding_cases() -> None:
    """Values the server's JSON decoding refuses or quietly accepts before any validation."""
    p0 = f"{C0}.ports.0"
    pod("decode.port-int32-overflow", sset(f"{p0}.containerPort", 4294967297))
    pod("decode.port-float", sset(f"{p0}.containerPort", 9091.5))
    pod("decode.port-float-whole", sset(f"{p0}.containerPort", 9091.0), http_only=True)
    pod("decode.port-string", sset(f"{p0}.containerPort", "9091"))
    pod("decode.run-as-user-int64-overflow", sset(f"{C0}.securityContext.runAsUser", 2**63))
    pod("decode.deadline-huge", sset("spec.activeDeadlineSeconds", 2**62))
    pod("decode.grace-huge", sset("spec.terminationGracePeriodSeconds", 2**62))
    pod("decode.host-network-string", sset("spec.hostNetwork", "true"))
    pod("decode.restart-policy-number", sset("spec.restartPolicy", 1))
    pod("decode.env-value-bool", sadd(f"{C0}.env", {"name": "X", "value": True}))
    pod("decode.env-value-null", sadd(f"{C0}.env", {"name": "X", "value": None}))
    pod("decode.label-value-number", sset("metadata.labels.n", 1))
    pod("decode.label-value-null", sset("metadata.labels.n", None))
    pod("decode.annotation-null", sset("metadata.annotations.n", None))
    pod("decode.args-null", sset(f"{C0}.args", None))
    pod("decode.args-number", sset(f"{C0}.args", ["--epochs", 10]))
    pod("decode.command-string", sset(f"{C0}.command", "python train.py"))
    pod("decode.cpu-number-float", sset(f"{C0}.resources.requests.cpu", 0.25))
    pod("decode.cpu-exponent-number", sset(f"{C0}.resources.requests.memory", 1e9))
    pod("decode.cpu-huge-exponent", sset(f"{C0}.resources.requests.cpu", "1e1001"))
    pod("decode.cpu-exponent-1e4", sset(f"{C0}.resources.requests.cpu", "1e10000"))
    pod("decode.cpu-exponent-1e5", sset(f"{C0}.resources.requests.cpu", "1e100000"))
    pod("decode.cpu-exponent-999000", sset(f"{C0}.resources.requests.cpu", "1e999000"))
    pod("decode.cpu-tiny-exponent", sset(f"{C0}.resources.requests.cpu", "1e-999000"))
    pod("decode.memory-huge-ok", sset(f"{C0}.resources.requests.memory", "9223372036854775807"))
    pod("decode.volumes-null", sset("spec.volumes", None))
    pod("decode.tolerations-object", sset("spec.tolerations", {"key": "k"}))
    pod("decode.node-selector-list", sset("spec.nodeSelector", ["a"]))
    case("decode.cm-value-number", "configmap", sset("data.n", 1))
    case("decode.cm-value-null", "configmap", sset("data.n", None))
    case("decode.svc-port-string", "service", sset("spec.ports.0.port", "9091"))
    case("decode.svc-target-float", "service", sset("spec.ports.0.targetPort", 80.5))
    case("decode.svc-selector-null-value", "service", sset("spec.selector.k", None))


def later_release_cases() -> None:
    """Fields and rules of releases after 1.20 (v1.20.2 drops or ignores them: judged at 1.20), and more edges."""
    e, sc, psc = f"{C0}.env", f"{C0}.securityContext", "spec.securityContext"
    ref = {"fieldPath": "metadata.annotations['example.com/key']"}
    pod("env.field-annotation-qualified", sadd(e, {"name": "X", "valueFrom": {"fieldRef": ref}}))
    pod("env.field-host-ips", sadd(e, {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIPs"}}}))
    pod(
        "vol.downward-label-subscript",
        sadd(
            "spec.volumes",
            {
                "name": "d",
                "downwardAPI": {"items": [{"path": "t", "fieldRef": {"fieldPath": "metadata.labels['team']"}}]},
            },
        ),
    )
    pod(
        "vol.downward-uid",
        sadd(
            "spec.volumes",
            {"name": "d", "downwardAPI": {"items": [{"path": "u", "fieldRef": {"fieldPath": "metadata.uid"}}]}},
        ),
    )
    pod("probe.grpc", sset(f"{C0}.readinessProbe", {"grpc": {"port": 9091}}))
    pod("probe.grpc-port-zero", sset(f"{C0}.readinessProbe", {"grpc": {"port": 0}}))
    pod(
        "probe.grace-zero",
        sset(f"{C0}.livenessProbe", {"tcpSocket": {"port": 1}, "terminationGracePeriodSeconds": 0}),
    )
    pod("os.bogus", sset("spec.os", {"name": "plan9"}))
    pod(
        "os.linux-windows-options",
        sset("spec.os", {"name": "linux"}),
        sset(f"{sc}.windowsOptions", {"runAsUserName": "u"}),
    )
    pod(
        "os.windows-seccomp",
        sset("spec.os", {"name": "windows"}),
        sset(f"{psc}.seccompProfile", {"type": "RuntimeDefault"}),
    )
    pod(
        "os.windows-sysctl",
        sset("spec.os", {"name": "windows"}),
        sset(f"{psc}.sysctls", [{"name": "kernel.msgmax", "value": "1"}]),
    )
    pod("os.windows-run-as-user", sset("spec.os", {"name": "windows"}), sset(f"{sc}.runAsUser", 1000))
    pod("os.linux-ok", sset("spec.os", {"name": "linux"}), sset(f"{sc}.runAsUser", 1000))
    tsc = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": {"a": "b"}},
    }
    pod("tsc.min-domains-anyway", sset("spec.topologySpreadConstraints", [{**tsc, "minDomains": 2}]))
    pod(
        "tsc.min-domains-zero",
        sset("spec.topologySpreadConstraints", [{**tsc, "whenUnsatisfiable": "DoNotSchedule", "minDomains": 0}]),
    )
    pod(
        "tsc.node-policy-bad",
        sset("spec.topologySpreadConstraints", [{**tsc, "nodeAffinityPolicy": "Bogus"}]),
    )
    pod(
        "tsc.match-label-keys-overlap",
        sset("spec.topologySpreadConstraints", [{**tsc, "matchLabelKeys": ["a"]}]),
    )
    pod(
        "tsc.match-label-keys-ok",
        sset("spec.topologySpreadConstraints", [{**tsc, "matchLabelKeys": ["pod-template-hash"]}]),
    )
    init = {"name": "side", "image": "busybox:1.36", "restartPolicy": "Always"}
    pod(
        "sidecar.probes",
        sadd("spec.initContainers", {**init, "readinessProbe": {"tcpSocket": {"port": 1}}}),
    )
    pod("sidecar.restart-bad", sadd("spec.initContainers", {**init, "restartPolicy": "OnFailure"}))
    pod(
        "sidecar.startup-success-2",
        sadd("spec.initContainers", {**init, "startupProbe": {"tcpSocket": {"port": 1}, "successThreshold": 2}}),
    )
    pod("pod.host-users-host-network", sset("spec.hostUsers", False), sset("spec.hostNetwork", True))
    pod("pod.scheduling-gate-ok", sset("spec.schedulingGates", [{"name": "example.com/wait"}]))
    pod("pod.scheduling-gate-bad", sset("spec.schedulingGates", [{"name": "bad gate"}]))
    pod("pod.scheduling-gate-duplicate", sset("spec.schedulingGates", [{"name": "a"}, {"name": "a"}]))
    pod("pod.dns-search-underscore", sset("spec.dnsConfig", {"searches": ["_tcp.example.com"]}))
    pod("sec.proc-mount-unmasked", sset(f"{sc}.procMount", "Unmasked"))
    pod("sec.apparmor-localhost-no-profile", sset(f"{sc}.appArmorProfile", {"type": "Localhost"}))
    pod("sec.apparmor-bogus", sset(f"{sc}.appArmorProfile", {"type": "Bogus"}))
    pod("hook.sleep-negative", sset(f"{C0}.lifecycle.preStop", {"sleep": {"seconds": -1}}))
    pod("hook.sleep-ok", sset(f"{C0}.lifecycle.preStop", {"sleep": {"seconds": 5}}))
    pod("pod.priority-zero", sset("spec.priority", 0), http_only=True)
    pod("pod.preemption-explicit-default", sset("spec.preemptionPolicy", "PreemptLowerPriority"), http_only=True)
    pod(
        "pod.priority-system-class",
        sset("spec.priorityClassName", "system-cluster-critical"),
        sset("spec.priority", 2000000000),
        http_only=True,
    )
    pod(
        "pod.priority-system-class-mismatch",
        sset("spec.priorityClassName", "system-cluster-critical"),
        sset("spec.priority", 5),
        http_only=True,
    )
    pod("meta.annotation-key-upper-prefix", sset("metadata.annotations.Example.com/Key", "v"))
    pod("res.hugepages-1gi-ok", sset(f"{C0}.resources.limits.hugepages-1Gi", "2Gi"))
    pod("res.cpu-limit-zero", sset(f"{C0}.resources.limits.cpu", "0"))
    case("svc.internal-policy-bad", "service", sset("spec.internalTrafficPolicy", "Bogus"))
    case("svc.lb-class-on-cluster-ip", "service", sset("spec.loadBalancerClass", "example.com/lb"))
    case("svc.app-protocol-k8s-prefix", "service", sset("spec.ports.0.appProtocol", "kubernetes.io/bogus"))
    case("svc.ip-family-policy-bad", "service", sset("spec.ipFamilyPolicy", "Bogus"))
    case("cm.key-inner-dots", "configmap", sset("data.a..b", "v"))
    r = f"{C0}.resources"
    for label, text in (
        ("trailing-space", "1Gi "),
        ("underscore", "1_000"),
        ("hex", "0x10"),
        ("leading-dot", ".5"),
        ("trailing-dot", "5."),
        ("plus-dot", "+.5"),
        ("minus-zero", "-0"),
        ("binary-fraction", "1.5Ki"),
        ("nano-round", "0.000000000001"),
        ("exponent-negative", "1e-10"),
        ("exa-binary", "8Ei"),
        ("uppercase-k", "1K"),
        ("double-suffix", "1Mi5"),
        ("unicode-digit", "\u0661"),
        ("tab", "1\t"),
        ("lone-suffix", "Mi"),
    ):
        pod(f"qty.{label}", sset(f"{r}.limits.memory", text), sdel(f"{r}.requests.memory"))
    pod("res.memory-limit-zero", sset(f"{r}.limits.memory", "0"))
    pod(
        "res.ephemeral-over",
        sset(f"{r}.requests.ephemeral-storage", "2Gi"),
        sset(f"{r}.limits.ephemeral-storage", "1Gi"),
    )
    pod(
        "res.hugepages-request-below",
        sset(f"{r}.requests.hugepages-2Mi", "2Mi"),
        sset(f"{r}.limits.hugepages-2Mi", "4Mi"),
    )
    sc = f"{C0}.securityContext"
    pod(
        "sec.no-escalation-cap-sys-admin",
        sset(f"{sc}.capabilities", {"add": ["CAP_SYS_ADMIN"]}),
        sset(f"{sc}.allowPrivilegeEscalation", False),
    )
    pod("env.name-unicode", sadd(f"{C0}.env", {"name": "\u00c4BC", "value": "x"}))
    pod("meta.label-value-unicode", sset("metadata.labels.k", "caf\u00e9"))
    pod("pod.readiness-gate-duplicate", sset("spec.readinessGates", [{"conditionType": "a"}, {"conditionType": "a"}]))
    pod("pod.pull-secret-duplicate", sset("spec.imagePullSecrets", [{"name": "a"}, {"name": "a"}]))
    pod("vol.name-63", sadd("spec.volumes", {"name": "v" * 63, "emptyDir": {}}))
    pod(
        "vol.projected-token-reserved-path",
        sadd("spec.volumes", {"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "..token"}}]}}),
        http_only=True,
    )
    pod(
        "vol.downward-path-backstep",
        sadd(
            "spec.volumes",
            {"name": "d", "downwardAPI": {"items": [{"path": "a/../b", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        ),
    )
    pod(
        "vol.configmap-item-dot-slash",
        sadd("spec.volumes", {"name": "c", "configMap": {"name": "c", "items": [{"key": "k", "path": "./a"}]}}),
    )
    pod("mount.root", sadd("spec.volumes", EMPTY), sadd(f"{C0}.volumeMounts", {"name": "data", "mountPath": "/"}))
    case(
        "svc.external-name-trailing-dot",
        "service",
        sset("spec.type", "ExternalName"),
        sdel("spec.clusterIP"),
        sset("spec.externalName", "db.example.com."),
    )
    case("svc.external-ips-unspecified", "service", sset("spec.externalIPs", ["0.0.0.0"]))
    case("svc.external-ips-link-local-v6", "service", sset("spec.externalIPs", ["fe80::1"]))
    case("svc.external-ips-multicast", "service", sset("spec.externalIPs", ["224.0.0.5"]))
    case("svc.external-ips-v6-ok", "service", sset("spec.externalIPs", ["2001:db8::1"]))
    case("svc.port-name-trailing-dash", "service", sset("spec.ports.0.name", "a-"))
    case("cm.key-unicode", "configmap", sset("data.caf\u00e9", "v"))
    case("cm.name-254", "configmap", sset("metadata.name", "c" * 254))
    owner = {"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "name": "j", "uid": "u1"}
    pod("meta.owner-api-version-bad", sset("metadata.ownerReferences", [{**owner, "apiVersion": "a/b/c"}]))
    pod("meta.owner-event-banned", sset("metadata.ownerReferences", [{**owner, "apiVersion": "v1", "kind": "Event"}]))
    pod("meta.owner-name-odd-ok", sset("metadata.ownerReferences", [{**owner, "name": "Odd_Name"}]))
    case("mxjob.label-key-bad", "mxjob", sset("metadata.labels.bad key", "v"))
    case(
        "mxjob.two-controllers",
        "mxjob",
        sset("metadata.ownerReferences", [{**owner, "controller": True}, {**owner, "uid": "u2", "controller": True}]),
    )
    pod("meta.annotation-key-two-slashes", sset("metadata.annotations.a/b/c", "v"))
    pod("meta.label-key-uppercase-ok", sset("metadata.labels.App", "v"))
    case("svc.name-trailing-dash", "service", sset("metadata.name", "svc-"))
    case("cm.name-leading-dash", "configmap", sset("metadata.name", "-cfg"))
    case("cm.size-exact-limit", "configmap", sset("data", {"k": "x" * 1048576}))
    case("cm.size-one-over", "configmap", sset("data", {"k": "x" * 1048577}))
    pod("pod.deadline-max", sset("spec.activeDeadlineSeconds", 2147483647))
    pod("pod.deadline-max-plus-one", sset("spec.activeDeadlineSeconds", 2147483648))
    pod("pod.dns-nameserver-v6", sset("spec.dnsConfig", {"nameservers": ["2001:db8::1"]}))
    long_ok = ["a" * 63] * 3 + ["a" * 62 + ".b"]
    pod("pod.dns-searches-256-chars", sset("spec.dnsConfig", {"searches": long_ok}))
    pod("pod.dns-searches-257-chars", sset("spec.dnsConfig", {"searches": [*long_ok[:3], "a" * 62 + ".bc"]}))
    pod("probe.exec-empty-string", sset(f"{C0}.livenessProbe", {"exec": {"command": [""]}}))
    pod("probe.tcp-named-port", sset(f"{C0}.readinessProbe", {"tcpSocket": {"port": "mxjob-port"}}))
    e = f"{C0}.env"
    pod("env.secret-name-bad", sadd(e, {"name": "X", "valueFrom": {"secretKeyRef": {"name": "Bad_Name", "key": "k"}}}))
    pod(
        "env.configmap-key-slash", sadd(e, {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "a/b"}}})
    )
    pod(
        "env.configmap-optional",
        sadd(e, {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k", "optional": True}}}),
    )
    sel = {"matchLabels": {"a": "b"}}
    spread = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
    pod(
        "tsc.selector-value-bad",
        sset("spec.topologySpreadConstraints", [{**spread, "labelSelector": {"matchLabels": {"a": "b c"}}}]),
    )
    pod(
        "tsc.selector-operator-bad",
        sset(
            "spec.topologySpreadConstraints",
            [{**spread, "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}}],
        ),
    )
    pa = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    pod(
        "aff.pod-selector-key-bad",
        sset(
            pa,
            [{"labelSelector": {"matchExpressions": [{"key": "bad key", "operator": "Exists"}]}, "topologyKey": "z"}],
        ),
    )
    pod(
        "aff.pod-namespace-selector-empty",
        sset(pa, [{"labelSelector": sel, "namespaceSelector": {}, "topologyKey": "z"}]),
    )
    pod(
        "aff.pod-namespace-selector-bad",
        sset(pa, [{"labelSelector": sel, "namespaceSelector": {"matchLabels": {"a": "b c"}}, "topologyKey": "z"}]),
    )
    na = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    pod(
        "aff.node-field-exists",
        sset(na, {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}]}),
    )
    pod(
        "aff.node-gt-negative",
        sset(na, {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Lt", "values": ["-5"]}]}]}),
    )
    pod("tol.equal-empty-value", sset("spec.tolerations", [{"key": "k", "operator": "Equal", "value": ""}]))
    pod("tol.no-key-effect", sset("spec.tolerations", [{"operator": "Exists", "effect": "NoSchedule"}]))
    wo = f"{C0}.securityContext.windowsOptions"
    pod("sec.host-process-no-host-network", sset(wo, {"hostProcess": True}))
    pod(
        "sec.host-process-mismatch",
        sset("spec.securityContext.windowsOptions", {"hostProcess": False}),
        sset(wo, {"hostProcess": True}),
        sset("spec.hostNetwork", True),
    )
    # Empty strings where templating left a value out: some are defaulted before validation, some are not.
    pod("empty.image-pull-policy", sset(f"{C0}.imagePullPolicy", ""))
    pod("empty.termination-message-policy", sset(f"{C0}.terminationMessagePolicy", ""))
    pod("empty.termination-message-path", sset(f"{C0}.terminationMessagePath", ""))
    pod("empty.port-protocol", sset(f"{C0}.ports.0.protocol", ""))
    pod("empty.restart-policy", sset("spec.restartPolicy", ""))
    pod("empty.dns-policy", sset("spec.dnsPolicy", ""))
    pod("empty.scheduler-name", sset("spec.schedulerName", ""))
    pod("empty.service-account-name", sset("spec.serviceAccountName", ""))
    pod("empty.priority-class-name", sset("spec.priorityClassName", ""))
    pod("empty.hostname", sset("spec.hostname", ""))
    pod("empty.node-name", sset("spec.nodeName", ""))
    pod("empty.fs-group-policy", sset("spec.securityContext.fsGroupChangePolicy", ""))
    pod("empty.preemption-policy", sset("spec.preemptionPolicy", ""), http_only=True)
    pod("empty.toleration-operator", sset("spec.tolerations", [{"key": "k", "operator": "", "value": "v"}]))
    pod("empty.toleration-effect", sset("spec.tolerations", [{"key": "k", "operator": "Exists", "effect": ""}]))
    pod("empty.image", sset(f"{C0}.image", ""))
    pod("empty.working-dir", sset(f"{C0}.workingDir", ""))
    pod("empty.env-value", sadd(f"{C0}.env", {"name": "E", "value": ""}))
    pod(
        "empty.mount-propagation",
        sadd("spec.volumes", EMPTY),
        sadd(f"{C0}.volumeMounts", {"name": "data", "mountPath": "/d", "mountPropagation": ""}),
    )
    pod("empty.host-path-type", sadd("spec.volumes", {"name": "h", "hostPath": {"path": "/tmp", "type": ""}}))
    pod("empty.empty-dir-medium", sadd("spec.volumes", {"name": "m", "emptyDir": {"medium": ""}}))
    pod("empty.seccomp-type", sset(f"{C0}.securityContext.seccompProfile", {"type": ""}))
    pod("empty.probe-scheme", sset(f"{C0}.livenessProbe", {"httpGet": {"port": 80, "scheme": ""}}))
    pod(
        "empty.spread-when",
        sset("spec.topologySpreadConstraints", [{"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": ""}]),
    )
    pod("empty.runtime-class", sset("spec.runtimeClassName", ""))
    pod("empty.subdomain", sset("spec.subdomain", ""))
    case("empty.svc-type", "service", sset("spec.type", ""))
    case("empty.svc-session-affinity", "service", sset("spec.sessionAffinity", ""))
    case("empty.svc-port-protocol", "service", sset("spec.ports.0.protocol", ""))
    case("empty.svc-external-traffic", "service", sset("spec.externalTrafficPolicy", ""))
    case("empty.svc-cluster-ip-none-ports", "service", sset("spec.ports.0.name", ""))
    case("empty.svc-internal-traffic", "service", sset("spec.internalTrafficPolicy", ""))
    case("empty.svc-ip-family-policy", "service", sset("spec.ipFamilyPolicy", ""))
    pod(
        "empty.field-ref-api-version",
        sadd(f"{C0}.env", {"name": "X", "valueFrom": {"fieldRef": {"apiVersion": "", "fieldPath": "metadata.name"}}}),
    )
    pod("probe.liveness-success-0", sset(f"{C0}.livenessProbe", {"tcpSocket": {"port": 1}, "successThreshold": 0}))
    pod(
        "probe.zero-timings",
        sset(f"{C0}.readinessProbe", {"tcpSocket": {"port": 1}, "timeoutSeconds": 0, "failureThreshold": 0}),
    )
    gen = ("metadata.generateName", "a--")
    pod("meta.generate-name-double-dash", sdel("metadata.name"), sset(*gen), http_only=True)
    pod("meta.generate-name-long", sdel("metadata.name"), sset("metadata.generateName", "g" * 100), http_only=True)
    case(
        "svc.generate-name-long",
        "service",
        sdel("metadata.name"),
        sset("metadata.generateName", "g" * 100),
        http_only=True,
    )
    case("svc.cluster-ip-empty", "service", sset("spec.clusterIP", ""))
    case("svc.headless-two-unnamed", "service", sdel("spec.ports.0.name"), sadd("spec.ports", {"port": 1}))
    case("cm.binary-key-slash", "configmap", sset("binaryData.a/b", "aGk="))


_register_all(
    metadata_cases,
    container_cases,
    env_cases,
    resource_cases,
    probe_cases,
    security_cases,
    pod_level_cases,
    scheduling_cases,
    volume_cases,
    init_container_cases,
    service_cases,
    configmap_cases,
    gpu_cases,
    decoding_cases,
    later_release_cases,
)
