"""`--format text`: one line per problem, input problems at file:line:col, then a summary line."""

from __future__ import annotations

from typing import TextIO

from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.compile.documents import sort_diagnostics
from mxjob_gitops.compiler.report.validate import summary
from mxjob_gitops.compiler.validate.validation import Report


class TextReporter:
    def write(self, report: Report, out: TextIO) -> None:
        for diagnostic in sort_diagnostics(report.diagnostics):
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
        out.write(summary(report) + "\n")
