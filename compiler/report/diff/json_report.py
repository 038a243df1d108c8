"""`--format json`: the change model as JSON, described by schemas/diff-v1.schema.json."""

from __future__ import annotations

from typing import Any, TextIO

from mxjob_gitops.compiler.diff.age import rfc3339
from mxjob_gitops.compiler.diff.changes import ObjectChange
from mxjob_gitops.compiler.diff.diffview import MASK, SENSITIVE_PREFIX
from mxjob_gitops.compiler.diff.restarts import How, JobRestart, describe
from mxjob_gitops.compiler.render.emit import json_text
from mxjob_gitops.compiler.report.diff import DiffReport, summarise


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str) and value.startswith(SENSITIVE_PREFIX):
        return MASK
    return value


def _object(change: ObjectChange) -> dict[str, Any]:
    return {
        "apiVersion": change.api_version,
        "kind": change.kind,
        "namespace": change.namespace,
        "name": change.name,
        "job": change.job,
        "status": change.status.value,
        "replace": change.replace,
        "changes": [
            {
                "path": f.path,
                "pointer": f.pointer,
                "kind": f.kind.value,
                "old": _plain(f.old),
                "new": _plain(f.new),
                "significant": f.significant,
            }
            for f in change.fields
        ],
    }


def _restart(restart: JobRestart) -> dict[str, Any]:
    """One job's restart: which pods, how, and with a cluster the running ones and their ages."""
    entry: dict[str, Any] = {
        "job": restart.job,
        "namespace": restart.namespace,
        "name": restart.name,
        "pods": [{"name": name, "how": how.value} for name, how in restart.pods],
        "replaced": restart.count(How.REPLACED, How.IN_PLACE),
        "deleted": restart.count(How.DELETED),
        "jobset": restart.jobset.value or None,
        "reason": restart.reason,
        "cluster": restart.running is not None,
        "line": describe(restart),
    }
    if restart.jobset.value:
        entry["replicaPods"] = restart.replica_pods
    if restart.running is not None:
        entry["running"] = [
            {"name": p.name, "startTime": rfc3339(p.start), "age": p.age, "how": _how(restart, p.name)}
            for p in restart.running
        ]
        entry["runningFor"] = restart.running_for() or None
    return entry


def _how(restart: JobRestart, pod: str) -> str:
    how = restart.how_of(pod)
    return how.value if how is not None else ""


class JsonReporter:
    def write(self, report: DiffReport, out: TextIO) -> None:
        jobs = summarise(report.changes)
        document = {
            "base": report.base,
            "head": report.head,
            "summary": {
                "added": sum(c.status.value == "added" for c in report.changes),
                "removed": sum(c.status.value == "removed" for c in report.changes),
                "modified": sum(c.status.value == "modified" for c in report.changes),
                "reordered": sum(c.status.value == "reordered" for c in report.changes),
                "replaced": sum(c.replace for c in report.changes),
                "jobs": [
                    {
                        "job": job,
                        "replaced": s.replaced,
                        **{status.value: dict(sorted(counter.items())) for status, counter in s.counts.items()},
                    }
                    for job, s in sorted(jobs.items())
                ],
            },
            "objects": [_object(c) for c in report.changes],
        }
        document["restarts"] = [_restart(r) for r in report.restarts]
        if report.refused:
            document["refused"] = [d.to_dict() for d in report.refused]
        if report.invalid:
            document["invalid"] = [d.to_dict() for d in report.invalid]
            document["notCompared"] = list(report.uncompared)
        out.write(json_text(document, indent=2, default=str) + "\n")
