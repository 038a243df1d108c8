"""`--format tap`: Test Anything Protocol version 13, with YAML diagnostics blocks."""

from __future__ import annotations

from typing import TextIO

from mxjob_gitops.compiler.base.diagnostics import Severity
from mxjob_gitops.compiler.base.escape import tap_description, terminal
from mxjob_gitops.compiler.render.emit import quote
from mxjob_gitops.compiler.validate.validation import Report, Status


class TapReporter:
    def write(self, report: Report, out: TextIO) -> None:
        lines = []
        errors = [d for d in report.diagnostics if d.severity is Severity.ERROR]
        number = 0
        for diagnostic in errors:
            number += 1
            where = tap_description(f"{diagnostic.location or '<input>'} {diagnostic.code.value}")
            lines.append(f"not ok {number} - {where}")
            lines.extend(
                ["  ---", f"  message: {_yaml(diagnostic.message)}", f"  path: {_yaml(diagnostic.json_path)}", "  ..."]
            )
        for result in report.objects:
            number += 1
            if result.status is Status.SKIPPED:
                lines.append(
                    f"ok {number} - {tap_description(result.title)} # SKIP no schema for "
                    f"{tap_description(result.api_version)}"
                )
            elif result.status is Status.VALID:
                lines.append(f"ok {number} - {tap_description(result.title)}")
            else:
                lines.append(f"not ok {number} - {tap_description(result.title)}")
                lines.append("  ---")
                lines.append(f"  origin: {_yaml(str(result.origin))}")
                lines.append("  errors:")
                lines.extend(f"  - {_yaml(f.describe())}" for f in result.findings)
                lines.append("  ...")
        out.write("TAP version 13\n")
        out.write(f"1..{number}\n")
        out.write("".join(line + "\n" for line in lines))


def _yaml(text: str) -> str:
    """A value of a test point's YAML block: one line, readable, no control or bidi character."""
    return quote(terminal(text))
