"""A catalog of single edits to rendered objects (a worker Pod, its Service, the job's ConfigMap), each judged by
the real API server validation in tests/test_kubevalidate_differential.py; valid edits are in it too."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from typing import Any

Edit = tuple[tuple[Any, ...], Any]
Mutation = tuple[str, str, list[Edit]]
C0 = ("spec", "containers", 0)
VOL = [(("spec", "volumes"), [{"name": "data", "emptyDir": {}}])]


def _pod() -> Iterator[Mutation]:
    for value in ["Bad_Vol", "a.b", "-a", "a" * 64, "ok-vol", "a" * 63, "x1"]:
        mount = [{"name": value, "mountPath": "/data"}]
        yield (
            f"volume-name-{value[:20]}{len(value)}",
            "Pod",
            [(("spec", "volumes"), [{"name": value, "emptyDir": {}}]), ((*C0, "volumeMounts"), mount)],
        )
    yield "volume-duplicate", "Pod", [(("spec", "volumes"), [{"name": "a", "emptyDir": {}}] * 2)]
    yield "volume-no-source", "Pod", [(("spec", "volumes"), [{"name": "a"}])]
    yield (
        "volume-two-sources",
        "Pod",
        [(("spec", "volumes"), [{"name": "a", "emptyDir": {}, "hostPath": {"path": "/x"}}])],
    )
    for size in ["1Gi", "two", "4GB", "-1"]:
        yield f"emptydir-size-{size}", "Pod", [(("spec", "volumes"), [{"name": "a", "emptyDir": {"sizeLimit": size}}])]
    for value in ["MX", "a_b", "ok2", "a" * 64, "a" * 63, "a.b"]:
        yield f"container-name-{value[:20]}{len(value)}", "Pod", [((*C0, "name"), value)]
    yield "container-duplicate", "Pod", [(("spec", "containers", 1), {"name": "mxnet", "image": "x"})]
    yield "init-container-duplicate", "Pod", [(("spec", "initContainers"), [{"name": "mxnet", "image": "x"}])]
    yield "init-container-ok", "Pod", [(("spec", "initContainers"), [{"name": "init", "image": "x"}])]
    for value in ["a" * 16, "a" * 15, "1234", "a--b", "-ab", "Ab", "ok-port", "a1"]:
        yield f"port-name-{value}", "Pod", [((*C0, "ports", 0, "name"), value)]
    yield "port-name-duplicate", "Pod", [((*C0, "ports", 1), {"name": "mxjob-port", "containerPort": 1})]
    for number in [0, 1, 65535, 65536, 70000, -1]:
        yield f"container-port-{number}", "Pod", [((*C0, "ports", 0, "containerPort"), number)]
    for number in [0, 70000, 8080, -5]:
        yield f"host-port-{number}", "Pod", [((*C0, "ports", 0, "hostPort"), number)]
    for protocol in ["TCP", "UDP", "SCTP", "HTTP", "tcp"]:
        yield f"port-protocol-{protocol}", "Pod", [((*C0, "ports", 0, "protocol"), protocol)]
    for name in ["A=B", "1ABC", "a b", "A.B", "_x", "ok", "A-B", "a\tb"]:
        yield f"env-name-{name}", "Pod", [((*C0, "env", 0, "name"), name)]
    yield "env-name-empty", "Pod", [((*C0, "env", 0, "name"), "")]
    both = {"fieldRef": {"fieldPath": "metadata.name"}, "secretKeyRef": {"name": "s", "key": "k"}}
    yield "env-two-sources", "Pod", [((*C0, "env", 0), {"name": "X", "valueFrom": both})]
    yield "env-no-source", "Pod", [((*C0, "env", 0), {"name": "X", "valueFrom": {}})]
    yield (
        "env-value-and-from",
        "Pod",
        [((*C0, "env", 0), {"name": "X", "value": "v", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})],
    )
    yield (
        "env-from-ok",
        "Pod",
        [((*C0, "env", 0), {"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})],
    )
    yield "mount-unknown", "Pod", [((*C0, "volumeMounts"), [{"name": "nope", "mountPath": "/x"}])]
    yield "mount-ok", "Pod", [*VOL, ((*C0, "volumeMounts"), [{"name": "data", "mountPath": "/x"}])]
    yield (
        "mount-path-duplicate",
        "Pod",
        [*VOL, ((*C0, "volumeMounts"), [{"name": "data", "mountPath": "/x"}, {"name": "data", "mountPath": "/x"}])],
    )
    yield "mount-no-path", "Pod", [*VOL, ((*C0, "volumeMounts"), [{"name": "data", "mountPath": ""}])]
    yield (
        "mount-subpath-up",
        "Pod",
        [*VOL, ((*C0, "volumeMounts"), [{"name": "data", "mountPath": "/x", "subPath": "../a"}])],
    )
    yield from _meta("Pod")
    yield from _pod_more()
    yield from _affinity()


def _pod_more() -> Iterator[Mutation]:
    ops = [
        ("tol-bad-operator", {"key": "a", "operator": "Bad"}),
        ("tol-exists-value", {"key": "a", "operator": "Exists", "value": "v"}),
        ("tol-bad-effect", {"key": "a", "operator": "Exists", "effect": "Bad"}),
        ("tol-seconds-noschedule", {"key": "a", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}),
        ("tol-seconds-noexecute", {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}),
        ("tol-empty-key-equal", {"operator": "Equal", "value": "v"}),
        ("tol-empty-key-exists", {"operator": "Exists"}),
        ("tol-bad-key", {"key": "a/b/c", "operator": "Exists"}),
        ("tol-bad-value", {"key": "a", "value": "x y"}),
        ("tol-ok", {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}),
    ]
    for name, toleration in ops:
        yield name, "Pod", [(("spec", "tolerations"), [toleration])]
    exec_ = {"exec": {"command": ["true"]}}
    probes = [
        ("probe-no-handler", "livenessProbe", {"periodSeconds": 3}),
        ("probe-two-handlers", "livenessProbe", {**exec_, "tcpSocket": {"port": 80}}),
        ("probe-ok", "livenessProbe", exec_),
        ("probe-liveness-success-2", "livenessProbe", {**exec_, "successThreshold": 2}),
        ("probe-readiness-success-2", "readinessProbe", {**exec_, "successThreshold": 2}),
        ("probe-startup-success-2", "startupProbe", {**exec_, "successThreshold": 2}),
        ("probe-negative-period", "readinessProbe", {**exec_, "periodSeconds": -1}),
        ("probe-port-70000", "readinessProbe", {"tcpSocket": {"port": 70000}}),
        ("probe-port-name-long", "readinessProbe", {"httpGet": {"port": "a" * 16}}),
        ("probe-port-name-ok", "readinessProbe", {"httpGet": {"port": "http"}}),
    ]
    for name, key, probe in probes:
        yield name, "Pod", [((*C0, key), probe)]
    yield "prestop-no-handler", "Pod", [((*C0, "lifecycle"), {"preStop": {}})]
    yield "prestop-ok", "Pod", [((*C0, "lifecycle"), {"preStop": exec_})]
    resources = [
        ("req-gt-limit-cpu", {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        ("req-eq-limit-cpu", {"requests": {"cpu": "1"}, "limits": {"cpu": "1000m"}}),
        ("req-gt-limit-mem", {"requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}}),
        ("req-lt-limit-mem", {"requests": {"memory": "1Gi"}, "limits": {"memory": "2Gi"}}),
        ("gpu-request-no-limit", {"requests": {"nvidia.com/gpu": "1"}}),
        ("gpu-limit-only", {"limits": {"nvidia.com/gpu": "1"}}),
        ("gpu-request-ne-limit", {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}),
        ("gpu-fraction", {"limits": {"nvidia.com/gpu": "0.5"}}),
        ("gpu-placeholder", {"limits": {"nvidia.com/gpu": "<GPU_LIMIT>"}}),
        ("cpu-two", {"limits": {"cpu": "two"}}),
        ("memory-4GB", {"limits": {"memory": "4GB"}}),
        ("memory-4G", {"limits": {"memory": "4G"}}),
        ("cpu-1e3", {"limits": {"cpu": "1e3"}}),
        ("cpu-half", {"limits": {"cpu": "0.5"}}),
        ("cpu-negative", {"limits": {"cpu": "-1"}}),
        ("resource-unknown", {"limits": {"foo": "1"}}),
        ("resource-bad-qualified", {"limits": {"example.com/Bad_": "1"}}),
        ("hugepages-ok", {"limits": {"hugepages-2Mi": "2Mi", "memory": "1Gi"}}),
        ("hugepages-no-limit", {"requests": {"hugepages-2Mi": "2Mi", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}),
        ("extended-equal", {"requests": {"example.com/foo": "2"}, "limits": {"example.com/foo": "2"}}),
        ("ephemeral-ok", {"requests": {"ephemeral-storage": "1Gi"}}),
    ]
    for name, value in resources:
        yield name, "Pod", [((*C0, "resources"), value)]
    for key, number in [("runAsUser", -1), ("runAsUser", 0), ("runAsGroup", -1), ("runAsUser", 1000)]:
        yield f"container-{key}-{number}", "Pod", [((*C0, "securityContext"), {key: number})]
    yield (
        "privileged-no-escalation",
        "Pod",
        [((*C0, "securityContext"), {"privileged": True, "allowPrivilegeEscalation": False})],
    )
    for key, number in [("fsGroup", -1), ("runAsUser", -2), ("runAsGroup", 5)]:
        yield f"pod-{key}-{number}", "Pod", [(("spec", "securityContext"), {key: number})]
    yield "supplemental-negative", "Pod", [(("spec", "securityContext"), {"supplementalGroups": [-1]})]
    for policy in ["Always", "Sometimes", "never"]:
        yield f"restart-{policy}", "Pod", [(("spec", "restartPolicy"), policy)]
    for policy in ["Default", "Bad", "None"]:
        yield f"dns-policy-{policy}", "Pod", [(("spec", "dnsPolicy"), policy)]
    yield (
        "dns-none-with-config",
        "Pod",
        [(("spec", "dnsPolicy"), "None"), (("spec", "dnsConfig"), {"nameservers": ["1.1.1.1"]})],
    )
    yield "dns-bad-nameserver", "Pod", [(("spec", "dnsConfig"), {"nameservers": ["dns.example"]})]
    yield (
        "dns-four-nameservers",
        "Pod",
        [(("spec", "dnsConfig"), {"nameservers": ["1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4"]})],
    )
    yield "host-alias-bad-ip", "Pod", [(("spec", "hostAliases"), [{"ip": "300.1.1.1", "hostnames": ["a"]}])]
    yield "host-alias-bad-host", "Pod", [(("spec", "hostAliases"), [{"ip": "10.0.0.1", "hostnames": ["A_b"]}])]
    yield "host-alias-ok", "Pod", [(("spec", "hostAliases"), [{"ip": "10.0.0.1", "hostnames": ["a.b"]}])]
    spread = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
    yield "spread-ok", "Pod", [(("spec", "topologySpreadConstraints"), [spread])]
    yield "spread-skew-0", "Pod", [(("spec", "topologySpreadConstraints"), [{**spread, "maxSkew": 0}])]
    yield (
        "spread-bad-action",
        "Pod",
        [(("spec", "topologySpreadConstraints"), [{**spread, "whenUnsatisfiable": "Maybe"}])],
    )
    yield "spread-duplicate", "Pod", [(("spec", "topologySpreadConstraints"), [spread, spread])]
    yield "spread-no-key", "Pod", [(("spec", "topologySpreadConstraints"), [{**spread, "topologyKey": ""}])]
    yield "node-selector-bad-key", "Pod", [(("spec", "nodeSelector"), {"a/b/c": "x"})]
    yield "node-selector-bad-value", "Pod", [(("spec", "nodeSelector"), {"zone": "a b"})]
    yield "node-selector-ok", "Pod", [(("spec", "nodeSelector"), {"kubernetes.io/os": "linux"})]
    yield "priority-class-bad", "Pod", [(("spec", "priorityClassName"), "Bad_Name")]
    yield "service-account-bad", "Pod", [(("spec", "serviceAccountName"), "Bad_Name")]
    yield "hostname-bad", "Pod", [(("spec", "hostname"), "a.b")]
    yield "deadline-0", "Pod", [(("spec", "activeDeadlineSeconds"), 0)]
    yield "grace-negative", "Pod", [(("spec", "terminationGracePeriodSeconds"), -1)]
    yield "pull-policy-bad", "Pod", [((*C0, "imagePullPolicy"), "Sometimes")]
    yield "message-policy-bad", "Pod", [((*C0, "terminationMessagePolicy"), "Bad")]
    yield "image-empty", "Pod", [((*C0, "image"), "")]


def _affinity() -> Iterator[Mutation]:
    def node(requirement: dict[str, Any]) -> dict[str, Any]:
        terms = [{"matchExpressions": [requirement]}]
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}

    requirements: list[tuple[str, dict[str, Any]]] = [
        ("in-ok", {"key": "zone", "operator": "In", "values": ["a"]}),
        ("in-no-values", {"key": "zone", "operator": "In"}),
        ("exists-values", {"key": "zone", "operator": "Exists", "values": ["a"]}),
        ("exists-ok", {"key": "zone", "operator": "Exists"}),
        ("gt-ok", {"key": "cores", "operator": "Gt", "values": ["4"]}),
        ("gt-text", {"key": "cores", "operator": "Gt", "values": ["four"]}),
        ("gt-two", {"key": "cores", "operator": "Lt", "values": ["1", "2"]}),
        ("bad-operator", {"key": "zone", "operator": "Like", "values": ["a"]}),
        ("bad-key", {"key": "a/b/c", "operator": "Exists"}),
    ]
    for name, requirement in requirements:
        yield f"node-affinity-{name}", "Pod", [(("spec", "affinity"), node(requirement))]
    empty: dict[str, Any] = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
    }
    yield "node-affinity-no-terms", "Pod", [(("spec", "affinity"), empty)]
    field = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
    wrong = {"matchFields": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]}]}
    for name, term in [("fields-ok", field), ("fields-bad-key", wrong)]:
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
        yield f"node-affinity-{name}", "Pod", [(("spec", "affinity"), affinity)]
    preferred = {"weight": 0, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}
    for weight in [0, 1, 100, 101]:
        soft = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{**preferred, "weight": weight}]}}
        yield f"node-affinity-weight-{weight}", "Pod", [(("spec", "affinity"), soft)]
    selector = {"matchLabels": {"app": "x"}}
    terms: list[tuple[str, dict[str, Any]]] = [
        ("ok", {"labelSelector": selector, "topologyKey": "zone"}),
        ("no-topology", {"labelSelector": selector, "topologyKey": ""}),
        ("bad-label", {"labelSelector": {"matchLabels": {"app": "a b"}}, "topologyKey": "zone"}),
        ("bad-operator", {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
                          "topologyKey": "zone"}),
        ("in-no-values", {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}, "topologyKey": "z"}),
        ("bad-namespace", {"labelSelector": selector, "topologyKey": "zone", "namespaces": ["Bad_ns"]}),
    ]  # fmt: skip
    for name, term in terms:
        for key in ("podAffinity", "podAntiAffinity"):
            hard = {key: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
            yield f"{key}-{name}", "Pod", [(("spec", "affinity"), hard)]
    soft_pod = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 200, "podAffinityTerm": {"labelSelector": selector, "topologyKey": "zone"}}]}}  # fmt: skip
    yield "pod-anti-affinity-weight-200", "Pod", [(("spec", "affinity"), soft_pod)]


def _meta(kind: str) -> Iterator[Mutation]:
    for value in ['x"y', "a" * 64, "a" * 63, "-a", "", "a.b_c", "a b"]:
        yield f"{kind}-label-value-{value[:20]}{len(value)}", kind, [(("metadata", "labels", "x"), value)]
    for key in ["a/b/c", "Example.com/x", "example.com/x", "_a", "a" * 64, "/a", "a/"]:
        yield f"{kind}-label-key-{key[:20]}{len(key)}", kind, [(("metadata", "labels", key), "v")]
    for key in ["a/b/c", "Example.com/X", "_a", "ok"]:
        yield f"{kind}-annotation-key-{key}", kind, [(("metadata", "annotations", key), "v")]
    yield f"{kind}-annotations-too-big", kind, [(("metadata", "annotations", "a"), "x" * (256 * 1024))]
    yield f"{kind}-annotations-at-limit", kind, [(("metadata", "annotations", "a"), "x" * (256 * 1024 - 1))]
    yield f"{kind}-finalizer-bad", kind, [(("metadata", "finalizers"), ["a/b/c"])]
    yield f"{kind}-finalizer-ok", kind, [(("metadata", "finalizers"), ["example.com/f"])]
    owner = {"apiVersion": "v1", "kind": "X", "name": "n", "uid": "u"}
    yield f"{kind}-owner-no-uid", kind, [(("metadata", "ownerReferences"), [{**owner, "uid": ""}])]
    yield (
        f"{kind}-owner-two-controllers",
        kind,
        [(("metadata", "ownerReferences"), [{**owner, "controller": True}, {**owner, "uid": "v", "controller": True}])],
    )
    yield f"{kind}-owner-ok", kind, [(("metadata", "ownerReferences"), [owner])]
    for name in ["Bad", "a.b", "a" * 64, "1abc", "ok-name", "a" * 63, "a-", "x.y.z", "a" * 70]:
        yield f"{kind}-name-{name[:20]}{len(name)}", kind, [(("metadata", "name"), name)]
    yield f"{kind}-namespace-bad", kind, [(("metadata", "namespace"), "Bad_ns")]


def _service() -> Iterator[Mutation]:
    port = ("spec", "ports", 0)
    for number in [0, 70000, 80]:
        yield f"svc-port-{number}", "Service", [((*port, "port"), number)]
    for name in ["Bad", "a" * 64, "ok"]:
        yield f"svc-port-name-{name[:10]}", "Service", [((*port, "name"), name)]
    yield "svc-port-duplicate", "Service", [(("spec", "ports", 1), {"name": "mxjob-port", "port": 81})]
    yield "svc-port-unnamed-second", "Service", [(("spec", "ports", 1), {"port": 81})]
    for target in [70000, "a" * 16, "http", 8080]:
        yield f"svc-target-{str(target)[:10]}", "Service", [((*port, "targetPort"), target)]
    yield "svc-protocol-bad", "Service", [((*port, "protocol"), "HTTP")]
    yield "svc-type-bad", "Service", [(("spec", "type"), "Internal")]
    yield "svc-selector-bad", "Service", [(("spec", "selector", "x"), "a b")]
    yield from _meta("Service")


def _configmap() -> Iterator[Mutation]:
    for key in ["a/b", "..", ".", "..a", "ok.json", "a b"]:
        yield f"cm-key-{key}", "ConfigMap", [(("data", key), "v")]
    yield "cm-too-big", "ConfigMap", [(("data", "big"), "x" * (1024 * 1024 + 1))]
    yield "cm-binary-dup", "ConfigMap", [(("binaryData", "job.json"), "YQ==")]
    yield from _meta("ConfigMap")


def catalog() -> list[Mutation]:
    return [*_pod(), *_service(), *_configmap()]


def apply(obj: dict[str, Any], edits: list[Edit]) -> dict[str, Any]:
    result = copy.deepcopy(obj)
    for path, value in edits:
        node: Any = result
        for part, after in itertools.pairwise(path):
            if isinstance(node, list):
                while len(node) <= part:
                    node.append({})
                node = node[part]
            else:
                node = node.setdefault(part, [] if isinstance(after, int) else {})
        last = path[-1]
        if isinstance(node, list):
            while len(node) <= last:
                node.append({})
        node[last] = value
    return result


def version_gated() -> list[Mutation]:
    """Edits whose verdict depends on the Kubernetes version (compiler.kubevalidate.podextras): ephemeral containers
    (refused on create from 1.23; v1.20.2 drops them) and pod-level resources (validated from 1.34; v1.20.2 prunes
    the unknown field). The 1.36 tier judges them with core-validate, the 1.20 tier with the real server."""
    pod = "Pod"
    resources = ("spec", "resources")
    init = ("spec", "initContainers")
    cases: list[Mutation] = [
        ("ephemeral-container", pod, [(("spec", "ephemeralContainers"), [{"name": "debug", "image": "busybox"}])]),
        ("ephemeral-containers-empty", pod, [(("spec", "ephemeralContainers"), [])]),
        ("pod-resources-ok", pod, [(resources, {"requests": {"cpu": "4", "memory": "8Gi"}})]),
        ("pod-resources-limits-ok", pod, [(resources, {"limits": {"cpu": "4", "memory": "8Gi"}})]),
        ("pod-resources-request-above-limit", pod, [(resources, {"requests": {"cpu": "8"}, "limits": {"cpu": "4"}})]),
        ("pod-resources-gpu", pod, [(resources, {"limits": {"nvidia.com/gpu": "1"}})]),
        ("pod-resources-ephemeral-storage", pod, [(resources, {"requests": {"ephemeral-storage": "1Gi"}})]),
        ("pod-resources-bad-quantity", pod, [(resources, {"requests": {"cpu": "two"}})]),
        ("pod-resources-negative", pod, [(resources, {"requests": {"memory": "-1"}})]),
        ("pod-resources-bad-name", pod, [(resources, {"requests": {"cpus": "1"}})]),
        ("pod-resources-below-containers", pod, [(resources, {"requests": {"cpu": "1"}})]),
        ("pod-resources-limit-below-defaulted-request", pod, [(resources, {"limits": {"memory": "1Gi"}})]),
        (
            "pod-resources-container-limit-above",
            pod,
            [(resources, {"limits": {"cpu": "2500m"}}), ((*C0, "resources", "limits"), {"cpu": "3"})],
        ),
        (
            "pod-resources-init-container-peak",
            pod,
            [
                (resources, {"requests": {"cpu": "3", "memory": "4Gi"}}),
                (init, [{"name": "init", "image": "x", "resources": {"requests": {"cpu": "5"}}}]),
            ],
        ),
        (
            "pod-resources-init-container-below",
            pod,
            [
                (resources, {"requests": {"cpu": "3", "memory": "4Gi"}}),
                (init, [{"name": "init", "image": "x", "resources": {"requests": {"cpu": "1"}}}]),
            ],
        ),
        (
            "pod-resources-sidecar-adds",
            pod,
            [
                (resources, {"requests": {"cpu": "2500m", "memory": "4Gi"}}),
                (
                    init,
                    [
                        {
                            "name": "side",
                            "image": "x",
                            "restartPolicy": "Always",
                            "resources": {"requests": {"cpu": "1"}},
                        }
                    ],
                ),
            ],
        ),
        ("pod-resources-hugepages-alone", pod, [(resources, {"limits": {"hugepages-2Mi": "4Mi"}})]),
        (
            "pod-resources-hugepages-with-memory",
            pod,
            [(resources, {"limits": {"hugepages-2Mi": "4Mi", "memory": "8Gi"}})],
        ),
        (
            "pod-resources-hugepages-request-unequal",
            pod,
            [(resources, {"limits": {"hugepages-2Mi": "4Mi", "memory": "8Gi"}, "requests": {"hugepages-2Mi": "2Mi"}})],
        ),
        (
            "pod-resources-windows",
            pod,
            [(resources, {"requests": {"cpu": "4"}}), (("spec", "os"), {"name": "windows"})],
        ),
        ("pod-resources-claims", pod, [(resources, {"claims": [{"name": "gpu"}]})]),
        ("pod-resources-empty", pod, [(resources, {})]),
    ]
    return cases
