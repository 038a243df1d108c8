"""Compile one MXJob: `compile_job(dict, options)` is the public entry point; compile_documents builds on it.

How the reconciler calls it, once per spec version of a live job (status writes do not change the result):

    base = RenderOptions(namespace=namespace, include_job=False)
    options = RenderOptions.from_config_map(config_map, base)   # the options Git's rendering used
    rendering = compile_job({k: v for k, v in obj.items() if k != "status"}, options,
                            origin=f"cluster:{namespace}/{name}")
    if not rendering.ok:
        ...  # report rendering.errors() (an Event); leave the job alone
    job = rendering.job                          # the typed, defaulted job: replicas, run policy
    pod = rendering.pod("train-worker-3")        # one pod as Git holds it, without building the others

`rendering.manifests()` and `pod()` build fresh manifests on each call; they share unchanged sub-trees of
the job's templates, so replace a nested dict rather than changing it in place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, error, has_errors, warning
from mxjob_gitops.compiler.base.limits import pod_count_problems
from mxjob_gitops.compiler.compile.judge import judge_rendering
from mxjob_gitops.compiler.read.source import SourceDocument
from mxjob_gitops.compiler.render.cluster import cluster_spec
from mxjob_gitops.compiler.render.gang.base import GANG_ANNOTATION
from mxjob_gitops.compiler.render.gang.plan import choose_scheduler, gang_forms, plan_gang
from mxjob_gitops.compiler.render.job import CompiledJob, JobRendering, Manifest
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules.besides import beside, checked_beside
from mxjob_gitops.compiler.rules.kubevalidate import check_job
from mxjob_gitops.compiler.rules.kubevalidate.crdrules import check_create
from mxjob_gitops.compiler.rules.kubevalidate.podgroup import check_pod_group
from mxjob_gitops.compiler.rules.mxjob import check_rules
from mxjob_gitops.compiler.rules.schema import check_schema, mxjob_schema
from mxjob_gitops.compiler.spec.canonical import canonicalise
from mxjob_gitops.compiler.spec.convert import Conversion, is_mxjob, to_v1
from mxjob_gitops.compiler.spec.model import apply_defaults
from mxjob_gitops.compiler.spec.normalise import normalise

# Diagnostics about a key itself point at the key, not at its value.
_KEY_CODES = frozenset(
    {
        Code.UNKNOWN_FIELD,
        Code.UNKNOWN_REPLICA_TYPE,
        Code.REPLICA_TYPE_CASE,
        Code.CONFLICTING_FIELDS,
        Code.SERVER_FIELDS_DROPPED,
        Code.FIELD_DROPPED,
        Code.TEMPLATE_METADATA_IGNORED,
        Code.TTL_DROPPED,
    }
)


def compile_job(
    obj: Mapping[str, Any], options: RenderOptions = RenderOptions(), *, origin: str = "<job>"
) -> JobRendering:
    """Validate, convert and default one MXJob given as a dict (never changed); errors are values, never raised.

    `origin` names the job in diagnostics (a file name, `cluster:ns/name`); their paths point into `obj`.
    PriorityClass values for a PodGroup's minResources come from `options.priority_classes` only.
    """
    data = dict(obj)
    document = SourceDocument(data, origin, 0)
    if not is_mxjob(data):
        problem = error(
            Code.NOT_AN_OBJECT, "not an MXJob: kind must be MXJob, apiVersion kubeflow.org/*", (), "pass an MXJob"
        )
        return JobRendering(options, (locate(problem, document, (), None),), None)
    priorities = dict(options.priority_classes)
    compiled, found = compile_object(data, options, True, priorities, dict.fromkeys(priorities, "given"))
    located = tuple(locate(d, document, (), compiled.conversion if compiled else None) for d in found)
    return JobRendering(options, located, compiled)


def compile_object(
    obj: Manifest, options: RenderOptions, defaults: bool, priorities: Mapping[str, int], sources: Mapping[str, str]
) -> tuple[CompiledJob | None, list[Diagnostic]]:
    """The core shared by compile_job and compile_documents: diagnostics not yet located in a source."""
    conversion = to_v1(obj)
    if has_errors(conversion.diagnostics):
        return None, conversion.diagnostics
    normalise(conversion)
    schema = check_schema(conversion.data)
    found = [
        *conversion.diagnostics,
        *schema,
        # A rule about a value the schema refused would report the same mistake again.
        *_for_engine(beside(schema, check_rules(conversion.data)), options.engine),
        # The API server's own rules judge a spec whose shapes the schema accepted (compiler.kubevalidate reads
        # types as the schema promises them); a value the schema refused is not reported twice.
        *(
            checked_beside(conversion.data, schema, lambda data: check_job(data, options.kubernetes_version))
            if has_errors(schema)
            else check_job(conversion.data, options.kubernetes_version)
        ),
        # The CRD's own CEL rules that run on create (transition rules need the old object: compiler.updates).
        *(() if has_errors(schema) else check_create(conversion.data, options.kubernetes_version)),
        *(pod_count_problems(conversion.data, options.max_pods) if defaults else ()),
    ]
    if has_errors(found):
        return None, in_source(conversion, found)
    if not defaults:
        return CompiledJob(conversion, None), found
    conversion.data = canonicalise(conversion.data, mxjob_schema())
    found.extend(namespace_kept(conversion.data, options.namespace))
    job = apply_defaults(conversion.data, options.namespace)
    scheduler, problems = choose_scheduler(job, options.gang_scheduler)
    found.extend(problems)
    if options.engine == "jobset":
        from mxjob_gitops.compiler.render.jobset.findings import findings

        found.extend(findings(job, scheduler, options.exit_codes))
    gang = None
    if scheduler is not None:
        gang, notes = plan_gang(job, scheduler, priorities, sources, options.kubernetes_version)
        found.extend(notes)
        found.extend(scheduler.backend.engine_notes(job, options.engine))
        if gang.pod_group is not None:  # what the group's CRD refuses beyond our schema
            found.extend(check_pod_group(gang.pod_group, conversion.data))
    elif job.run_policy.scheduling_policy is not None:
        found.append(
            warning(
                Code.GANG_POLICY_IGNORED,
                "schedulingPolicy has no effect without a gang scheduler",
                ("spec", "runPolicy", "schedulingPolicy"),
                f"pass --gang-scheduler {gang_forms()} or annotate the job with {GANG_ANNOTATION}",
            )
        )
    if has_errors(found):
        return None, in_source(conversion, found)
    # The cluster spec is built here once: the judge's objects and the rendering are both made of it.
    compiled = CompiledJob(conversion, job, gang, cluster_spec(job) if options.engine == "pods" else None)
    found.extend(judge_rendering(compiled, options, obj))  # the final objects, after every decoration
    if has_errors(found):
        return None, in_source(conversion, found)
    return compiled, found


def _for_engine(found: Iterable[Diagnostic], engine: str) -> Iterator[Diagnostic]:
    """The rules' findings that hold for the engine: the per-pod Services' (MXJ208) only where they are rendered."""
    return (d for d in found if engine == "pods" or d.code is not Code.SERVICE_PORTS)


def in_source(conversion: Conversion, found: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of a job refused after its conversion, with their paths in the document as written (an
    older version's v1alpha1 entry, a flat run policy): no conversion is handed on to locate them later."""
    if not conversion.renames and not conversion.findings_at:
        return found
    return [dataclasses.replace(d, path=conversion.origin(d.path, findings=True)) for d in found]


def locate(
    diagnostic: Diagnostic, document: SourceDocument, prefix: JsonPath, conversion: Conversion | None
) -> Diagnostic:
    """The diagnostic with its path in the source document and that path's file, line and column."""
    path = conversion.origin(diagnostic.path, findings=True) if conversion else diagnostic.path
    key = diagnostic.code in _KEY_CODES
    location = document.locate((*prefix, *path), key=key)
    return Diagnostic(
        diagnostic.code,
        diagnostic.severity,
        diagnostic.message,
        (*prefix, *path),
        location,
        document.index,
        diagnostic.hint,
    )


def namespace_kept(data: Mapping[str, Any], given: str | None) -> list[Diagnostic]:
    """A warning when -n names another namespace than the job's own metadata.namespace, which is kept (kubectl
    refuses the mismatch; a GitOps repository often sets one namespace per folder and a job may mean another)."""
    metadata = data.get("metadata")
    own = metadata.get("namespace") if isinstance(metadata, Mapping) else None
    if not given or not own or own == given:
        return []
    return [
        warning(
            Code.NAMESPACE_KEPT,
            f'the job\'s own namespace "{own}" is kept; -n/--namespace "{given}" applies only to jobs without one',
            ("metadata", "namespace"),
            f"remove metadata.namespace to render into {given}, or drop -n",
        )
    ]
