"""Where in the spec a finding on a rendered object belongs (compiler.judge): at the value the user wrote when the
rendered value is that value, else at the nearest field the user wrote, naming the option or decoration that
added the rest and how to avoid it. Paths are the v1 document's (compiler.job.locate maps them to the source)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, format_path, info
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.model import Replica

Manifest = dict[str, Any]
_MISSING: Final = object()
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
# Labels and annotations the renderer adds, by the option or decoration that adds them.
ADDED_BY: Final = {
    "argocd.argoproj.io/": "--target argocd",
    "kustomize.toolkit.fluxcd.io/": "--target flux",
    "scheduling.k8s.io/group-name": "the gang scheduler volcano",
    "volcano.sh/": "the gang scheduler volcano",
    "scheduling.x-k8s.io/pod-group": "the gang scheduler scheduler-plugins",
    "kueue.x-k8s.io/": "the gang scheduler kueue",
    "training.kubeflow.org/": "the operator's labels (job name, replica type and index)",
    "jobset.sigs.k8s.io/": "the JobSet controller",
    "batch.kubernetes.io/": "the Job controller",
}
# Fields of a pod the renderer sets, by what sets them.
SET_BY: Final = {
    "restartPolicy": "the replica's restartPolicy (ExitCode and Never render restartPolicy Never)",
    "schedulerName": "the gang scheduler (--gang-scheduler or the job's mxjob.kubeflow.org/gang-scheduler)",
    "env": "the generated environment (MX_CONFIG, DMLC_*)",
    "ports": f"the {c.DEFAULT_PORT_NAME} {c.DEFAULT_PORT} the operator adds to the mxnet container",
    "volumeMounts": (
        "the ServiceAccount admission plugin, which mounts the API token at "
        "/var/run/secrets/kubernetes.io/serviceaccount in every container without a mount there "
        "(set automountServiceAccountToken: false, or mount something there yourself)"
    ),
    "hostname": "the Job controller (the pod's hostname: <job>-<index>)",
    "subdomain": "the JobSet's network.subdomain (the JobSet's name)",
    "hostPort": (
        "host networking, where the server sets each hostPort to its containerPort, next to the "
        f"{c.DEFAULT_PORT_NAME} {c.DEFAULT_PORT} the operator adds to the mxnet container unless a port is named so"
    ),
}


class Blame:
    """Locates the findings on the rendered objects of one compiled job."""

    def __init__(self, compiled: CompiledJob, options: RenderOptions, source: Manifest) -> None:
        self.conversion, self.options, self.source = compiled.conversion, options, source
        self.gang = compiled.gang
        job = compiled.job
        self.live = [r for r in job.replicas if r.replicas > 0] if job is not None else []

    def locate(self, problem: Diagnostic, obj: Manifest, replica: Replica | None) -> Diagnostic:
        """The finding `problem` (its path in `obj`) as a diagnostic of the spec."""
        path = problem.path
        if obj.get("kind") == "JobSet" and path[:2] == ("spec", "replicatedJobs") and len(path) > 6:
            template = obj["spec"]["replicatedJobs"][path[2]]["template"]["spec"]["template"]
            return self._in_template(problem, obj, template, path[6:], self.live[int(path[2])])
        if obj.get("kind") == "Pod" and replica is not None and path[:1] in (("metadata",), ("spec",)):
            return self._in_template(problem, obj, obj, path, replica)
        if obj.get("kind") == c.KIND and path:
            return self._at(problem, obj, obj, (), path, path)
        if path[:1] == ("metadata",) and obj.get("kind") != "Service" and len(path) > 1:
            return self._at(problem, obj, obj["metadata"], ("metadata",), path[1:], path)
        return self._ours(problem, obj, (), path, "what the renderer adds")

    def locate_controller_pod(self, problem: Diagnostic, pod: Manifest, replica: Replica) -> Diagnostic:
        """A finding on a pod the Job controller creates from a JobSet's template."""
        if problem.path[:1] in (("metadata",), ("spec",)):
            return self._in_template(problem, pod, pod, problem.path, replica)
        return self._ours(problem, pod, (), problem.path, "the JobSet and Job controllers")

    def locate_workload(self, problem: Diagnostic, workload: Manifest) -> Diagnostic:
        """A finding on the Workload Kueue creates (compiler.gang.workload): a pod set's template is the template
        of its replica type (in the order the pods engine renders them, or the JobSet's replicatedJobs)."""
        path = problem.path
        if path[:2] == ("spec", "podSets") and len(path) > 4 and path[3] == "template" and path[4] == "spec":
            index = path[2]
            if isinstance(index, int) and index < len(self.live):
                holder = workload["spec"]["podSets"][index]["template"]
                return self._in_template(problem, workload, holder, path[4:], self.live[index])
        if path == ("spec", "queueName"):
            return self._ours(problem, workload, self._queue_source(), path, "the Kueue queue name")
        return self._ours(problem, workload, (), path, "the Workload Kueue creates for the gang scheduler kueue")

    def overwritten_labels(self, pod: Manifest, replica: Replica) -> Iterator[Diagnostic]:
        """A note for each label of the template that the rendering replaces (it is not judged as written)."""
        if not (replica.template.get("metadata") or {}).get("labels"):  # the defaulted template's are the user's
            return
        template = _get(self.source, self.conversion.origin(_template(replica)))
        labels = _get(template, ("metadata", "labels")) if isinstance(template, dict) else _MISSING
        rendered = pod["metadata"].get("labels") or {}
        for key, value in labels.items() if isinstance(labels, dict) else ():
            if key in rendered and rendered[key] != value:
                yield info(
                    Code.TEMPLATE_METADATA_IGNORED,
                    f"label {key}: {value!r} is replaced by {rendered[key]!r} in the rendered pods",
                    (*_template(replica), "metadata", "labels", key),
                    f"remove it from the template: {_added_by(key)} set it",
                )

    def _in_template(
        self, problem: Diagnostic, obj: Manifest, holder: Manifest, path: JsonPath, replica: Replica
    ) -> Diagnostic:
        """`path` starts at metadata or spec of a pod (template) `holder`, rendered from replica's template."""
        if path[:3] == ("metadata", "labels", QUEUE_LABEL):
            return self._ours(problem, obj, self._queue_source(), problem.path, "the gang scheduler kueue's queue")
        base = (*_template(replica), path[0])
        return self._at(problem, obj, holder[str(path[0])], base, path[1:], problem.path)

    def _at(
        self, problem: Diagnostic, obj: Manifest, rendered: Any, base: JsonPath, rest: JsonPath, full: JsonPath
    ) -> Diagnostic:
        """Follow `rest` from `rendered` (at `base` of the v1 document) as far as the user wrote it."""
        v1, node = base, rendered
        for part in rest:
            written = _get(self.source, self.conversion.origin(v1))
            child = _child(node, part)
            if child is _MISSING:  # a value the server sets (a default) from what the rendering holds
                return self._ours(problem, obj, v1, full, _cause(full, part))
            if isinstance(part, int):
                match = _match(written, part, child)
                if match is None:
                    return self._ours(problem, obj, v1, full, _cause(full, part))
                part = match
            elif not isinstance(written, dict) or part not in written:
                return self._ours(problem, obj, v1, full, _cause(full, part))
            v1, node = (*v1, part), child
        written = _get(self.source, self.conversion.origin(v1))
        if v1[-1:] in (("labels",), ("annotations",)) and isinstance(node, dict) and isinstance(written, dict):
            added = sorted({_added_by(str(k)) for k in node if k not in written})
            if added:
                return self._ours(problem, obj, v1, full, " and ".join(added))
        return _diagnostic(problem, obj, full, v1, problem.hint)

    def _ours(self, problem: Diagnostic, obj: Manifest, at: JsonPath, full: JsonPath, cause: str) -> Diagnostic:
        if full[-2:] == ("labels", QUEUE_LABEL) or (full == ("spec", "queueName") and obj.get("kind") == "Workload"):
            at, cause = (
                self._queue_source(),
                "the Kueue queue name (--gang-scheduler kueue=QUEUE, the job's label, schedulingPolicy.queue)",
            )
        hint = f"in the rendered object this comes from {cause}; {problem.hint}"
        if problem.code is Code.K8S_SIZE or (problem.code is Code.K8S_CONFIGMAP and not full):
            at, size = _largest(self.conversion.data)
            hint = f"the largest value of the job, at {format_path(at) or 'its root'} ({size} bytes), is copied into it"
        return _diagnostic(problem, obj, full, at, hint)

    def _queue_source(self) -> JsonPath:
        """Where the Kueue queue name comes from: `kueue=QUEUE` (the job root), its label, schedulingPolicy.queue."""
        if self.gang is not None and self.gang.scheduler.argument:
            return ()
        labels = _get(self.conversion.data, ("metadata", "labels"))
        if isinstance(labels, dict) and labels.get(QUEUE_LABEL):
            return ("metadata", "labels", QUEUE_LABEL)
        return ("spec", "runPolicy", "schedulingPolicy", "queue")


def _template(replica: Replica) -> JsonPath:
    return ("spec", "mxReplicaSpecs", replica.type, "template")


def _diagnostic(problem: Diagnostic, obj: Manifest, full: JsonPath, at: JsonPath, hint: str) -> Diagnostic:
    metadata = obj.get("metadata") or {}
    where = f" {format_path(full)}" if full else ""
    name = metadata.get("name")
    what = (
        f"the Workload {name} Kueue creates"
        if obj.get("kind") == "Workload" and str(obj.get("apiVersion")).startswith("kueue.x-k8s.io/")
        else f"rendered {obj.get('kind')} {name}"
        if name
        else f"pod {metadata.get('generateName')}* the JobSet's Job creates"
    )
    message = f"{what}{where}: "
    return Diagnostic(problem.code, problem.severity, message + problem.message, at, hint=hint)


def _added_by(key: str) -> str:
    for prefix, who in ADDED_BY.items():
        if key.startswith(prefix):
            return who
    return f"the renderer ({key})"


def _cause(full: JsonPath, part: Any) -> str:
    for step in reversed(full):
        if isinstance(step, str) and step in SET_BY:
            return SET_BY[step]
        if isinstance(step, str) and step in ("labels", "annotations"):
            return _added_by(str(part)) if isinstance(part, str) else "the renderer"
    return SET_BY.get(str(part), "the renderer")


def _get(value: Any, path: JsonPath) -> Any:
    for part in path:
        value = _child(value, part)
        if value is _MISSING:
            return _MISSING
    return value


def _child(value: Any, part: Any) -> Any:
    if isinstance(value, dict) and isinstance(part, str):
        return value.get(part, _MISSING)
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return value[part]
    return _MISSING


def _match(written: Any, index: int, item: Any) -> int | None:
    """The index in the user's list of the rendered list's item `index`: the same place, an equal item, or one of
    the same name (lists the renderer appends to or filters: env, ports)."""
    if not isinstance(written, list):
        return None
    if index < len(written) and _same(written[index], item):
        return index
    for position, candidate in enumerate(written):
        if _same(candidate, item):
            return position
    return None


def _same(written: Any, item: Any) -> bool:
    if written == item:
        return True
    if not isinstance(written, dict) or not isinstance(item, dict):
        return False
    if "name" in item:  # the same entry (an env var, a port), whatever the renderer changed in it
        return bool(written.get("name") == item["name"]) and set(written) <= set(item)
    return all(key in item and item[key] == value for key, value in written.items())  # defaults added


def _largest(value: Any, path: JsonPath = ()) -> tuple[JsonPath, int]:
    """The path and size of the longest string in a value."""
    if isinstance(value, str):
        return path, len(value.encode())
    best: tuple[JsonPath, int] = (path, 0)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _largest(item, (*path, key))
        if found[1] > best[1]:
            best = found
    return best
