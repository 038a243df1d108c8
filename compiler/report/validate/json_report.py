"""`--format json`: the whole report as one JSON object, always with a summary block."""

from __future__ import annotations

from typing import Any, TextIO

from mxjob_gitops.compiler.compile.documents import sort_diagnostics
from mxjob_gitops.compiler.render.emit import json_text
from mxjob_gitops.compiler.validate.validation import ObjectResult, Report, Status


def _location(result: ObjectResult) -> dict[str, Any]:
    return {"file": result.origin.file, "line": result.origin.line, "column": result.origin.column}


class JsonReporter:
    def write(self, report: Report, out: TextIO) -> None:
        document = {
            "summary": {
                "valid": report.count(Status.VALID),
                "invalid": report.count(Status.INVALID),
                "skipped": report.count(Status.SKIPPED),
                "inputErrors": report.errors,
                "warnings": report.warnings,
                "kubernetesVersion": report.kubernetes_version,
                "strict": report.strict,
                "ok": report.ok,
            },
            "diagnostics": [d.to_dict() for d in sort_diagnostics(report.diagnostics)],
            "resources": [
                {
                    "apiVersion": r.api_version,
                    "kind": r.kind,
                    "namespace": r.namespace,
                    "name": r.name,
                    "status": r.status.value,
                    "generated": r.generated,
                    "origin": _location(r),
                    "errors": [
                        {
                            "code": f.code.value,
                            "path": f.path,
                            "message": f.message,
                            "hint": f.hint,
                            "source": f.source,
                            **(
                                {"file": f.location.file, "line": f.location.line, "column": f.location.column}
                                if f.location
                                else {}
                            ),
                        }
                        for f in r.findings
                    ],
                }
                for r in report.objects
            ],
        }
        out.write(json_text(document, indent=2) + "\n")
