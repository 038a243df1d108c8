"""The API server's rules on the final objects of one job, after every decoration: what `render` is about to write is
what gets judged. compiler.job.compile_object calls judge_rendering once a job compiles, so `render` and `validate`
(which both compile through it) give one verdict; compiler.blame locates each finding in the spec.

The pods of one replica type differ only in their index: in their names, the replica-index label and the values
of the generated env vars, which no rule reads but for their emptiness (compiler.kubevalidate.memo says the same).
So the Service and the Pod of the highest index of each replica type (the longest names) stand for all of them,
and a job is judged at the cost of a few objects, not of its whole rendering: every other object (ConfigMap,
PodGroup, MXJob, JobSet) is judged whole, as written. A JobSet's pod templates are judged as the pods its Job
controller creates from them (compiler.jobset.controllers), the first place a server applies the pod rules to
them. tests/test_judge.py holds `representatives` to the rendering itself.

The rules that read an object's own name are length limits over names that differ only in the index at their end
(a Pod's and a Service's name, the claim `<pod>-<volume>` of an ephemeral volume, a JobSet pod's hostname and
generateName): the highest index has the longest name and fails whenever a lower one does, so judging it judges
them all (tests/test_judge_names.py checks every index). With `--gang-scheduler kueue` the Workload Kueue creates
for the pods or the JobSet (compiler.render.gang.kueue) is built from the same objects and judged against its CRD.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic
from mxjob_gitops.compiler.base.exact import exact
from mxjob_gitops.compiler.compile.blame import Blame
from mxjob_gitops.compiler.render.cluster import cluster_spec, service_name
from mxjob_gitops.compiler.render.decorations import JobContext
from mxjob_gitops.compiler.render.expand import PodFactory, render_config_map, render_job_object, render_service
from mxjob_gitops.compiler.render.job import CompiledJob, decorate, render_job, render_record
from mxjob_gitops.compiler.render.jobset.controllers import controller_pod
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules import names
from mxjob_gitops.compiler.rules.kubevalidate import check_object
from mxjob_gitops.compiler.rules.kubevalidate.keyedlists import check_keyed_lists
from mxjob_gitops.compiler.rules.kubevalidate.meta import check_meta
from mxjob_gitops.compiler.rules.kubevalidate.report import Found
from mxjob_gitops.compiler.rules.kubevalidate.serviceaccount import admitted
from mxjob_gitops.compiler.rules.kubevalidate.sizes import check_size
from mxjob_gitops.compiler.rules.kubevalidate.workload import WORKLOAD_API_VERSION, check_workload
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.model import Replica

Manifest = dict[str, Any]


def judge_rendering(compiled: CompiledJob, options: RenderOptions, source: Manifest) -> list[Diagnostic]:
    """What the API server refuses of the objects `render` writes for one compiled job, located in the spec
    (`source`: the MXJob as given, which compiled.conversion maps the v1 paths to)."""
    job = compiled.job
    if job is None:
        return []
    blame = Blame(compiled, options, source)
    version = options.kubernetes_version
    found: list[Diagnostic] = []
    roles = {replica.role: replica for replica in job.replicas}
    judged = []
    for obj in representatives(compiled, options):
        judged.append(obj)
        replica = _replica_of(obj, roles)
        for problem in judge_object(obj, version):
            found.append(blame.locate(problem, obj, replica))
        if obj.get("kind") == "JobSet":
            for index, replica in enumerate(r for r in job.replicas if r.replicas > 0):
                pod = controller_pod(obj, index, replica.replicas - 1)
                for problem in judge_object(pod, version):
                    found.append(blame.locate_controller_pod(problem, pod, replica))
                found.extend(blame.overwritten_labels(pod, replica))
        elif obj.get("kind") == "Pod" and replica is not None:
            found.extend(blame.overwritten_labels(obj, replica))
    if compiled.gang is not None:  # what the gang scheduler's controller creates from them (Kueue's Workload)
        counts = {service_name(job.name, r.role, 0).rsplit("-", 1)[0]: r.replicas for r in job.replicas}
        workload = compiled.gang.scheduler.backend.admission(judged, counts)
        if workload is not None:
            found.extend(blame.locate_workload(problem, workload) for problem in judge_object(workload, version))
    unique = {(d.path, d.message): d for d in found}
    return list(unique.values())


def representatives(compiled: CompiledJob, options: RenderOptions) -> Iterator[Manifest]:
    """The objects that stand for a job's rendering (module docstring), decorated as the rendering is."""
    if options.engine == "jobset":
        from mxjob_gitops.compiler.render.jobset.render import render_compiled

        yield from render_compiled(compiled, options)
        return
    job = compiled.job
    assert job is not None
    if exact("representatives"):  # every object of the rendering, as render_job writes it
        yield from render_job(compiled, options)
        return
    spec = compiled.cluster or cluster_spec(job)
    objects = [render_config_map(job, spec, render_record(compiled, options))]
    if not job.run_policy.suspend:
        live = [replica for replica in job.replicas if replica.replicas > 0]
        objects.extend(render_service(job, replica, replica.replicas - 1) for replica in live)
        objects.extend(PodFactory(job, replica, spec).pod(replica.replicas - 1) for replica in live)
    if options.include_job:
        objects.append(render_job_object(job))
    yield from decorate(objects, JobContext(job, options, compiled.gang))


def judge_object(obj: Manifest, version: str | None) -> Found:
    """Every rule of the API server this package knows for one object as it will be sent, a Pod as the
    ServiceAccount admission plugin passes it on (paths in the object)."""
    found: Found = []
    core = obj.get("apiVersion") == "v1"
    if core:
        found.extend(check_object(admitted(obj, version) if obj["kind"] == "Pod" else obj, version))
    else:  # a custom resource: ObjectMeta as for every kind (names.dns1123_subdomain: a CR's name rule)
        check_meta(found, obj.get("metadata"), ("metadata",), names.dns1123_subdomain)
    if obj.get("kind") == c.KIND or obj.get("kind") == "JobSet":
        check_keyed_lists(found, obj)
    elif obj.get("kind") == "Workload" and obj.get("apiVersion") == WORKLOAD_API_VERSION:  # not scheduling.k8s.io's
        check_workload(found, obj)
    check_size(found, obj, core)
    return found


def _replica_of(obj: Manifest, roles: dict[str, Replica]) -> Replica | None:
    """The replica type a Pod or Service was rendered for (by its replica-type label)."""
    if obj["kind"] != "Pod" and obj["kind"] != "Service":
        return None
    return roles.get(obj["metadata"]["labels"].get(c.LABEL_REPLICA_TYPE))
