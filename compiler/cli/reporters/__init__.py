"""Validation reporters: one module per `--format`, one interface, registered by name."""

from __future__ import annotations

from typing import Protocol, TextIO

from compiler.validation import Report


class Reporter(Protocol):
    """Writes a whole report; nothing is printed before the report is complete."""

    def write(self, report: Report, out: TextIO) -> None: ...


def reporter(name: str) -> Reporter:
    from compiler.cli.reporters import github, json_report, junit, tap, text

    registry: dict[str, Reporter] = {
        "text": text.TextReporter(),
        "json": json_report.JsonReporter(),
        "junit": junit.JunitReporter(),
        "tap": tap.TapReporter(),
        "github": github.GithubReporter(),
    }
    return registry[name]


FORMATS = ("text", "json", "junit", "tap", "github")
