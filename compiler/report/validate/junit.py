"""`--format junit`: JUnit XML for CI test tabs; one test case per object and per input file with errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import TextIO

from mxjob_gitops.compiler.base.diagnostics import Severity
from mxjob_gitops.compiler.base.escape import terminal, xml_text
from mxjob_gitops.compiler.validate.validation import Report, Status


class JunitReporter:
    def write(self, report: Report, out: TextIO) -> None:
        suite = ET.Element("testsuite", name="mxjob validate")
        failures = skipped = tests = 0
        by_file = defaultdict(list)
        for diagnostic in report.diagnostics:
            if diagnostic.severity is Severity.ERROR:
                by_file[diagnostic.location.file if diagnostic.location else "<input>"].append(diagnostic)
        for file in sorted(set(report.files) | set(by_file)):
            case = ET.SubElement(suite, "testcase", classname=_attribute(file), name="input")
            tests += 1
            if by_file.get(file):
                failures += 1
                failure = ET.SubElement(case, "failure", type="input", message=f"{len(by_file[file])} input errors")
                failure.text = xml_text("\n".join(d.render() for d in by_file[file]))
        for result in report.objects:
            tests += 1
            case = ET.SubElement(
                suite, "testcase", classname=_attribute(result.origin.file), name=_attribute(result.title)
            )
            if result.status is Status.SKIPPED:
                skipped += 1
                ET.SubElement(case, "skipped", message=_attribute(f"no schema for {result.api_version} {result.kind}"))
            elif result.status is Status.INVALID:
                failures += 1
                failure = ET.SubElement(case, "failure", type="schema", message=f"{len(result.findings)} schema errors")
                failure.text = xml_text("\n".join(terminal(f.describe()) for f in result.findings))
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
        ET.indent(suite)
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        out.write(ET.tostring(suite, encoding="unicode") + "\n")


def _attribute(text: str) -> str:
    """An attribute shown as one line in a test tab: escaped for the terminal, then for XML 1.0."""
    return xml_text(terminal(text))
