"""`--format github`: GitHub Actions workflow commands that annotate the file and line of each problem."""

from __future__ import annotations

from typing import TextIO

from mxjob_gitops.compiler.base.diagnostics import Location, Severity
from mxjob_gitops.compiler.base.escape import github_data, github_property
from mxjob_gitops.compiler.compile.documents import sort_diagnostics
from mxjob_gitops.compiler.report.validate import summary
from mxjob_gitops.compiler.validate.validation import Report


def _command(level: str, location: Location | None, title: str, message: str) -> str:
    props = [f"title={github_property(title)}"]
    if location is not None and location.file and not location.file.startswith("<"):
        props.insert(0, f"file={github_property(location.file)}")
        if location.line:
            props[1:1] = [f"line={location.line}", f"col={location.column}"]
    return f"::{level} {','.join(props)}::{github_data(message)}"


class GithubReporter:
    def write(self, report: Report, out: TextIO) -> None:
        for diagnostic in sort_diagnostics(report.diagnostics):
            level = {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(diagnostic.severity, "notice")
            hint = f" ({diagnostic.hint})" if diagnostic.hint else ""
            at = f"{diagnostic.json_path}: " if diagnostic.path else ""
            out.write(
                _command(
                    level, diagnostic.location, f"mxjob {diagnostic.code.value}", f"{at}{diagnostic.message}{hint}"
                )
                + "\n"
            )
        for result in report.objects:
            for finding in result.findings:
                at = f"{finding.path}: " if finding.path else ""
                hint = f" ({finding.hint})" if finding.hint else ""
                out.write(
                    _command(
                        "error",
                        finding.location or result.origin,
                        f"mxjob {finding.code.value} {result.title}",
                        f"{at}{finding.message}{hint}",
                    )
                    + "\n"
                )
        out.write(summary(report) + "\n")
