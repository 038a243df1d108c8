"""Validation reporters: one module per `--format`, one interface, registered by name."""

from __future__ import annotations

import importlib
from typing import Protocol, TextIO

from mxjob_gitops.compiler.validate.validation import Report, Status


class Reporter(Protocol):
    """Writes a whole report; nothing is printed before the report is complete."""

    def write(self, report: Report, out: TextIO) -> None: ...


# --format name -> (module in this package, reporter class); modules are imported only when chosen.
_REGISTRY = {
    "text": ("text", "TextReporter"),
    "json": ("json_report", "JsonReporter"),
    "junit": ("junit", "JunitReporter"),
    "tap": ("tap", "TapReporter"),
    "github": ("github", "GithubReporter"),
}
FORMATS = tuple(_REGISTRY)


def reporter(name: str) -> Reporter:
    module, cls = _REGISTRY[name]
    created: Reporter = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
    return created


def summary(report: Report) -> str:
    return (
        f"mxjob validate: {report.count(Status.VALID)} valid, {report.count(Status.INVALID)} invalid, "
        f"{report.count(Status.SKIPPED)} skipped (no schema) against Kubernetes {report.kubernetes_version}"
        f"{' (strict)' if report.strict else ''}; {report.errors} input errors, {report.warnings} warnings"
    )
