"""Turn rendered Pods into local processes the way kubelet would start their `mxnet` container."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Manifest = dict[str, Any]

# kubelet's $(VAR) syntax (kubernetes third_party/forked/golang/expansion/expand.go, Expand): `$$` is a literal `$`,
# `$(NAME)` is replaced when NAME is known and kept verbatim when not, any other `$` stays as it is.
_REFERENCE = re.compile(r"\$(\$|\(([^)]*)\))")


def expand(text: str, known: Mapping[str, str]) -> str:
    """Expand $(VAR) references in `text` against `known`, as kubelet does for env values, command and args."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1) == "$":
            return "$"
        name = match.group(2)
        return known.get(name, match.group(0))

    return _REFERENCE.sub(replace, text)


def container_env(container: Manifest) -> dict[str, str]:
    """The environment a container sees from its env list: in order, each value expanded against the entries
    before it, and a later entry of the same name replacing an earlier one (kubelet kubelet_pods.go,
    makeEnvironmentVariables)."""
    env: dict[str, str] = {}
    for entry in container.get("env") or []:
        if "valueFrom" in entry:
            raise ValueError(f"env {entry['name']}: valueFrom is not supported by the e2e pod runner")
        env[entry["name"]] = expand(str(entry.get("value", "")), env)
    return env


@dataclass(frozen=True)
class PodPlan:
    """What starting one pod's `mxnet` container takes: its argv, env, working directory and identity."""

    name: str
    namespace: str
    hostname: str
    labels: Mapping[str, str]
    argv: list[str]
    env: dict[str, str]
    working_dir: str | None

    @property
    def replica_type(self) -> str:
        return self.labels["training.kubeflow.org/replica-type"]


def plan(pod: Manifest, default_namespace: str = "default") -> PodPlan:
    """The plan for a rendered Pod's `mxnet` container (the container the operator contract names)."""
    spec, meta = pod["spec"], pod["metadata"]
    container = next(c for c in spec["containers"] if c["name"] == "mxnet")
    env = container_env(container)
    argv = [expand(part, env) for part in [*container.get("command", []), *container.get("args", [])]]
    if not argv:
        raise ValueError(f"pod {meta['name']}: the mxnet container has no command (the image's entrypoint is unknown)")
    return PodPlan(
        name=meta["name"],
        namespace=meta.get("namespace", default_namespace),
        # kubelet: spec.hostname, else the pod name (pkg/kubelet/kubelet_pods.go, GeneratePodHostNameAndDomain).
        hostname=spec.get("hostname", meta["name"])[:63],
        labels=meta.get("labels", {}),
        argv=argv,
        env=env,
        working_dir=container.get("workingDir"),
    )


def kinds(manifests: list[Manifest], kind: str) -> list[Manifest]:
    return [m for m in manifests if m.get("kind") == kind]


def service_targets(manifests: list[Manifest]) -> dict[str, str]:
    """Each Service name → the name of the one Pod its selector picks (a headless Service resolves to that pod)."""
    pods = kinds(manifests, "Pod")
    targets = {}
    for service in kinds(manifests, "Service"):
        selector = service["spec"].get("selector", {})
        chosen = [p["metadata"]["name"] for p in pods if selector.items() <= p["metadata"].get("labels", {}).items()]
        if len(chosen) != 1:
            raise ValueError(f"service {service['metadata']['name']} selects {chosen}, not exactly one pod")
        targets[service["metadata"]["name"]] = chosen[0]
    return targets
