"""`--format json`: the change model as JSON, described by schemas/diff-v1.schema.json."""

from __future__ import annotations

from typing import Any, TextIO

from mxjob_gitops.compiler.diff.changes import ObjectChange
from mxjob_gitops.compiler.diff.diffview import MASK, SENSITIVE_PREFIX
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
        if report.refused:
            document["refused"] = [d.to_dict() for d in report.refused]
        if report.invalid:
            document["invalid"] = [d.to_dict() for d in report.invalid]
            document["notCompared"] = list(report.uncompared)
        out.write(json_text(document, indent=2, default=str) + "\n")
