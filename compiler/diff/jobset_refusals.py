"""JobSet updates the API server refuses (`--engine jobset`): each rendered JobSet against the old side's (a Git
revision, another path, or the cluster's with --live) through JobSet's update rules (diff.jobset_rules), unless
its GitOps annotations make Argo CD or Flux replace it; each refusal located at the MXJob field it comes from.
Called by `mxjob diff` beside diff.updates (the MXJob CRD's own transition rules), with the same code MXJ410."""

from __future__ import annotations

from collections.abc import Iterable

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, error
from mxjob_gitops.compiler.compile.documents import Identity, Manifest, Plan, identity
from mxjob_gitops.compiler.compile.job import locate
from mxjob_gitops.compiler.diff.jobset_rules import JobSetUpdate, check_update, is_jobset, replaced_by
from mxjob_gitops.compiler.render.job import CompiledJob

HINT = (
    "render with --target argocd or --target flux so that the GitOps engine deletes and creates the JobSet (every "
    "replica restarts), or delete the JobSet before the sync; while it is suspended only its pod templates' labels, "
    "annotations, nodeSelector, tolerations and schedulingGates may change"
)


def _source_path(item: CompiledJob | Manifest, field: str) -> JsonPath:
    """Where in the MXJob a JobSet field comes from: a replicatedJob's from its replica type, the rest from the
    replica specs (the layout decides the policies)."""
    if not isinstance(item, CompiledJob):
        return tuple(part for part in field.replace("[", ".").replace("]", "").split(".") if part)
    specs = (item.conversion.data.get("spec") or {}).get("mxReplicaSpecs") or {}
    if field.startswith("spec.replicatedJobs["):
        role = field[len("spec.replicatedJobs[") :].split("]", 1)[0]
        found = next((key for key in specs if str(key).lower() == role), None)
        if found is not None:
            return ("spec", "mxReplicaSpecs", found)
    return ("spec", "mxReplicaSpecs")


def _first_field(update: JobSetUpdate) -> str:
    """The refused field to point at: the first replicatedJob that differs, when the list as a whole is refused."""
    field = update.refused[0]
    return f"spec.replicatedJobs[{update.jobs[0]}]" if field == "spec.replicatedJobs" and update.jobs else field


def refused_jobset_updates(old: Iterable[Manifest], new: Iterable[Manifest], plan: Plan) -> list[Diagnostic]:
    """Every update from the old side's JobSets to the new side's that the server refuses and nothing replaces,
    located in the new side's source (`plan`, whose items rendered `new`)."""
    stored: dict[Identity, Manifest] = {identity(obj): obj for obj in old if is_jobset(obj)}
    refused: dict[Identity, JobSetUpdate] = {}
    for obj in new if stored else ():
        before = stored.get(identity(obj)) if is_jobset(obj) else None
        if before is None or before == obj or replaced_by(obj):
            continue
        update = check_update(before, obj)
        if update.refused:
            refused[identity(obj)] = update
    found: list[Diagnostic] = []
    for item, (document, prefix) in zip(plan.items, plan.origins, strict=True) if refused else ():
        for obj in plan.item_manifests(item):
            verdict = refused.get(identity(obj)) if is_jobset(obj) else None
            if verdict is None:
                continue
            name = "/".join(part for part in identity(obj)[2:] if part)
            problem = error(
                Code.K8S_UPDATE,
                f"the API server refuses this update of JobSet {name}: {', '.join(verdict.refused)} cannot change "
                "once it exists (JobSet's webhook, ValidateUpdate, and its CRD's rules)",
                _source_path(item, _first_field(verdict)),
                HINT,
            )
            found.append(locate(problem, document, prefix, item.conversion if isinstance(item, CompiledJob) else None))
    return found
