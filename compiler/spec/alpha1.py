"""What the kubeflow.org/v1alpha1 operator did with a replicaSpecs entry that v1 would read differently; called by
compiler.convert while it converts the list form.

Sources: kubeflow/mxnet-operator @8b18864 pkg/apis/mxnet/v1alpha1/types.go (MXReplicaSpec: replicas, template,
mxReplicaType, PsRootPort) and pkg/trainer/replicas.go (CreatePodWithIndex copies the template's pod spec as it is).
"""

from __future__ import annotations

from typing import Any, Final

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, error, warning
from mxjob_gitops.compiler.base.jsonutil import as_dict

# The JSON keys of a v1alpha1 MXReplicaSpec; Go's decoder dropped any other key without a word.
ENTRY_FIELDS: Final = ("replicas", "template", "mxReplicaType", "PsRootPort")


def alpha1_entry_problems(item: dict[str, Any], path: JsonPath) -> list[Diagnostic]:
    """An error for each key of a v1alpha1 replicaSpecs entry that is not a v1alpha1 field, named and hinted in
    v1alpha1's own terms and located at the key in the original file.

    The old operator ignored such a key: a misspelt `mxReplicaType` made the entry a WORKER (the type's default),
    a misspelt `PsRootPort` left the port at 9091. Neither is a guess to repeat silently."""
    from mxjob_gitops.compiler.base.diagnostics import suggest

    found = []
    for key in item:
        if key in ENTRY_FIELDS:
            continue
        close = suggest(str(key), ENTRY_FIELDS)
        fields = ", ".join(ENTRY_FIELDS)
        found.append(
            error(
                Code.UNKNOWN_FIELD,
                f"unknown field {str(key)!r} in a kubeflow.org/v1alpha1 replicaSpecs entry (its fields are {fields}); "
                "the v1alpha1 operator ignored it"
                + (", so this entry became a WORKER" if "mxReplicaType" not in item else ""),
                (*path, key),
                close or f"remove it, or use one of {fields}",
            )
        )
    return found


def alpha1_restart_policy(item: dict[str, Any], path: JsonPath, found: list[Diagnostic]) -> None:
    """Give a v1alpha1 replica whose template set no restartPolicy the policy its pods really had: `Always`.
    `path` is the entry's own (in the v1alpha1 document: the warning is located there even when the job is refused).

    The v1alpha1 operator created each pod from the template's pod spec unchanged (pkg/trainer/replicas.go
    CreatePodWithIndex), so a pod spec without restartPolicy got the API server's default, Always (k8s.io/kubernetes
    pkg/apis/core/v1/defaults.go SetDefaults_PodSpec): a crashed process was restarted in place. v1 defaults a
    replica to Never (its pod fails, and with it the job), so the conversion writes Always and says so."""
    if "restartPolicy" in item or not isinstance(as_dict(item.get("template")).get("spec"), dict):
        return
    item["restartPolicy"] = "Always"
    found.append(
        warning(
            Code.CONVERTED,
            "this v1alpha1 template sets no restartPolicy, so the old operator's pods got Kubernetes' default, "
            "Always (a crashed process restarted in place); the v1 form keeps Always, where v1's own default "
            "Never would fail the job",
            (*path, "template"),
            "write restartPolicy in the template (or on the v1 replica) to choose: Always keeps the old behaviour, "
            "Never or ExitCode let the job fail or restart the pod",
        )
    )
