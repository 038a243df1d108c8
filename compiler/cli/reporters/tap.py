"""`--format tap`: Test Anything Protocol version 13, with YAML diagnostics blocks."""

from __future__ import annotations

from typing import TextIO

from mxjob_gitops.compiler.diagnostics import Severity
from mxjob_gitops.compiler.emit import quote
from mxjob_gitops.compiler.validation import Report, Status


class TapReporter:
    def write(self, report: Report, out: TextIO) -> None:
        lines = []
        errors = [d for d in report.diagnostics if d.severity is Severity.ERROR]
        number = 0
        for diagnostic in errors:
            number += 1
            lines.append(f"not ok {number} - {diagnostic.location or '<input>'} {diagnostic.code.value}")
            lines.extend(
                ["  ---", f"  message: {quote(diagnostic.message)}", f"  path: {quote(diagnostic.json_path)}", "  ..."]
            )
        for result in report.objects:
            number += 1
            if result.status is Status.SKIPPED:
                lines.append(f"ok {number} - {result.title} # SKIP no schema for {result.api_version}")
            elif result.status is Status.VALID:
                lines.append(f"ok {number} - {result.title}")
            else:
                lines.append(f"not ok {number} - {result.title}")
                lines.append("  ---")
                lines.append(f"  origin: {quote(str(result.origin))}")
                lines.append("  errors:")
                lines.extend(f"  - {quote(f.describe())}" for f in result.findings)
                lines.append("  ...")
        out.write("TAP version 13\n")
        out.write(f"1..{number}\n")
        out.write("".join(line + "\n" for line in lines))
