"""`--format text`: one line per problem, input problems at file:line:col, then a summary line."""

from __future__ import annotations

from typing import TextIO

from mxjob_gitops.compiler.diagnostics import Severity
from mxjob_gitops.compiler.escape import terminal
from mxjob_gitops.compiler.pipeline import sort_diagnostics
from mxjob_gitops.compiler.validation import Report, Status


class TextReporter:
    def write(self, report: Report, out: TextIO) -> None:
        ordered = sort_diagnostics(report.diagnostics)
        for diagnostic in ordered:
            if diagnostic.severity is not Severity.INFO:
                out.write(diagnostic.render() + "\n")
        for result in report.objects:
            for finding in result.findings:
                where = finding.location or result.origin
                source = "" if finding.source == "schema" else f" [{finding.source}]"
                rendered = " (rendered from the MXJob here)" if result.generated else ""
                at = f" at {finding.path}" if finding.path else ""
                hint = f" ({finding.hint})" if finding.hint else ""
                line = (
                    f"{where}: error {finding.code.value} {result.title}{at}: {finding.message}{hint}{source}{rendered}"
                )
                out.write(terminal(line) + "\n")
        for diagnostic in ordered:  # notes (objects no schema checked) after the problems
            if diagnostic.severity is Severity.INFO:
                out.write(diagnostic.render() + "\n")
        out.write(summary(report) + "\n")


def summary(report: Report) -> str:
    return (
        f"mxjob validate: {report.count(Status.VALID)} valid, {report.count(Status.INVALID)} invalid, "
        f"{report.count(Status.SKIPPED)} skipped (no schema) against Kubernetes {report.kubernetes_version}"
        f"{' (strict)' if report.strict else ''}; {report.errors} input errors, {report.warnings} warnings"
    )
