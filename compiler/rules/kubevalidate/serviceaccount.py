"""What the ServiceAccount admission plugin does to a Pod before it is validated (k8s.io/kubernetes
plugin/pkg/admission/serviceaccount/admission.go, `Admit`: an empty serviceAccountName becomes `default`;
`mountServiceAccountToken`: unless the pod sets automountServiceAccountToken: false, every container and init
container without a volume mount at /var/run/secrets/kubernetes.io/serviceaccount gets one, read-only, of a volume
the plugin adds: a projected `kube-api-access-<5 random characters>` from 1.21 (BoundServiceAccountTokenVolume), the
service account's token Secret `<account>-token-<5>` before). The account is assumed to let its token be mounted
(its own automountServiceAccountToken is cluster state). Called by compiler.judge on the pods it judges, so a
container whose volumeDevices already use that path is refused as the server refuses it."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.rules.kubevalidate.report import as_dict, as_list, since

TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
_RANDOM = "xxxxx"  # generateName's five characters: any five have the same length and the same validity


def admitted(pod: dict[str, Any], version: str | None) -> dict[str, Any]:
    """The pod as the plugin hands it to validation (a new dict; `pod` is not changed)."""
    spec = dict(as_dict(pod.get("spec")))
    account = spec.get("serviceAccountName") or "default"
    spec["serviceAccountName"] = account
    if spec.get("automountServiceAccountToken") is False:
        return {**pod, "spec": spec}
    volume = f"kube-api-access-{_RANDOM}" if since(version, (1, 21)) else f"{account}-token-{_RANDOM}"
    mount = {"name": volume, "readOnly": True, "mountPath": TOKEN_PATH}
    needed = False
    for key in ("initContainers", "containers"):
        containers = []
        for container in as_list(spec.get(key)):
            container = as_dict(container)
            mounts = as_list(container.get("volumeMounts"))
            if not any(as_dict(m).get("mountPath") == TOKEN_PATH for m in mounts):
                container = {**container, "volumeMounts": [*mounts, mount]}
                needed = True
            containers.append(container)
        if key in spec:
            spec[key] = containers
    if needed:
        source: dict[str, Any] = (
            {"projected": {"sources": []}} if since(version, (1, 21)) else {"secret": {"secretName": volume}}
        )
        spec["volumes"] = [*as_list(spec.get("volumes")), {"name": volume, **source}]
    return {**pod, "spec": spec}
