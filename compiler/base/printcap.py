"""How many diagnostics one command prints for people (stderr, `validate --format text|github`): a cap, then one
line saying how many more were found; report.diagnostics and the validate reporters call it, with the limit the command
line chose (printed_limit of its verbosity)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final, TypeVar

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, Severity

# Lines of diagnostics one command prints; `-v` prints every one. A million one-line findings would otherwise be
# tens of MB on stderr (a million `{}` documents each get "not a Kubernetes object").
MAX_PRINTED_DIAGNOSTICS: Final = 1_000
T = TypeVar("T")


def printed_limit(verbosity: int) -> int:
    """The cap for a command's -q/-v level: the run's (MAX_PRINTED_DIAGNOSTICS unless MXJOB_MAX_PRINTED_DIAGNOSTICS
    says otherwise: compiler.base.limits.run_limits), or no cap (-1) with -v."""
    from mxjob_gitops.compiler.base.limits import run_limits

    return run_limits().printed if verbosity < 1 else -1


class PrintCap:
    """Lets the first MAX_PRINTED_DIAGNOSTICS items through (all with -v) and counts the rest."""

    def __init__(self, limit: int = MAX_PRINTED_DIAGNOSTICS) -> None:
        self.limit = limit
        self.shown = 0
        self.omitted = 0

    def take(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            if self.limit < 0 or self.shown < self.limit:
                self.shown += 1
                yield item
            else:
                self.omitted += 1

    def select(self, diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
        """take() of diagnostics, errors chosen before warnings and notes when not all fit (order kept)."""
        if self.limit < 0 or len(diagnostics) <= self.limit:
            return list(self.take(diagnostics))
        errors = [d for d in diagnostics if d.severity is Severity.ERROR][: self.limit]
        room = self.limit - len(errors)
        others = [d for d in diagnostics if d.severity is not Severity.ERROR][:room]
        chosen = {id(d) for d in (*errors, *others)}
        return list(self.take(d for d in diagnostics if id(d) in chosen)) + self._count(len(diagnostics) - len(chosen))

    def _count(self, omitted: int) -> list[Diagnostic]:
        self.omitted += omitted
        return []

    def note(self) -> str | None:
        """The line that says how many were not printed, or None."""
        if not self.omitted:
            return None
        return (
            f"mxjob: {self.omitted:,} more diagnostic{'' if self.omitted == 1 else 's'} not shown "
            f"(the first {self.limit:,} are; -v shows every one)"
        )
