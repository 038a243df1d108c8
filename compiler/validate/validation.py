"""Validate what a plan renders: every object against its schema, each result tied to where it came from."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, Location, Severity, format_path
from mxjob_gitops.compiler.base.printcap import MAX_PRINTED_DIAGNOSTICS
from mxjob_gitops.compiler.compile.documents import Manifest, Plan
from mxjob_gitops.compiler.read.source import SourceDocument
from mxjob_gitops.compiler.render.job import CompiledJob
from mxjob_gitops.compiler.rules.kubevalidate import check_object
from mxjob_gitops.compiler.rules.schema import has_float
from mxjob_gitops.compiler.validate.kubeschema import accepted_fast, has_schema, schema_errors, validator_for


class Status(enum.StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class Finding:
    """One schema violation inside one object; located in the source when the object was written by hand. The
    path is written as every diagnostic's is (spec.containers[0].image), whatever the checker reported."""

    path: str
    message: str
    location: Location | None = None
    source: str = "schema"
    code: Code = Code.SCHEMA
    hint: str = ""

    def describe(self) -> str:
        """`CODE at PATH: message (hint)`, the tail every report format prints."""
        at = f" at {self.path}" if self.path else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.code.value}{at}: {self.message}{hint}"


@dataclass(frozen=True, slots=True)
class ObjectResult:
    api_version: str
    kind: str
    namespace: str
    name: str
    status: Status
    origin: Location
    generated: bool
    findings: tuple[Finding, ...] = ()

    @property
    def title(self) -> str:
        return f"{self.kind}/{self.namespace + '/' if self.namespace else ''}{self.name}"

    def with_findings(self, extra: tuple[Finding, ...]) -> ObjectResult:
        if not extra:
            return self
        return replace(self, status=Status.INVALID, findings=self.findings + extra)


@dataclass(slots=True)
class Report:
    """Everything `mxjob validate` found: input diagnostics and one result per rendered object."""

    kubernetes_version: str
    strict: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    objects: list[ObjectResult] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # How many input diagnostics a report for people prints (base.printcap; no cap with -v).
    print_limit: int = MAX_PRINTED_DIAGNOSTICS

    @property
    def errors(self) -> int:
        return sum(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity is Severity.WARNING for d in self.diagnostics)

    def count(self, status: Status) -> int:
        return sum(o.status is status for o in self.objects)

    @property
    def ok(self) -> bool:
        return self.errors == 0 and self.count(Status.INVALID) == 0


def validate_plan(plan: Plan, kubernetes_version: str, strict: bool) -> Iterator[ObjectResult]:
    """Results for every object of every valid item; invalid inputs are already in plan.diagnostics."""
    for item, (document, prefix) in zip(plan.items, plan.origins, strict=True):
        generated = isinstance(item, CompiledJob)
        origin = document.locate(prefix)
        # The compiler writes ints and strings of its own and copies every other number from the job, so a job
        # without a float renders none: one walk of the job stands for a walk of each object it renders
        # (tests/test_validate_fast.py holds the compiler to this).
        floats = has_float(item.conversion.data) if isinstance(item, CompiledJob) else _no_float(document)
        for manifest in plan.item_manifests(item):
            yield _check(
                manifest,
                kubernetes_version,
                strict,
                origin,
                None if generated else (document, prefix),
                generated,
                floats,
            )


def unchecked(report: Report, reject: bool) -> list[Diagnostic]:
    """A note (an error with --reject-missing-schemas) for each object no schema checked, with its kind, name and
    where it came from: a skipped object is never only a number in the summary."""
    severity = Severity.ERROR if reject else Severity.INFO
    hint = (
        "give it a schema (mxjob validate --kubeconform --kubeconform-schema-location) or leave it out"
        if reject
        else "--reject-missing-schemas makes this an error"
    )
    return [
        Diagnostic(
            Code.NO_SCHEMA,
            severity,
            f"{result.title} ({result.api_version}) was not checked: no schema for this kind",
            location=result.origin,
            hint=hint,
        )
        for result in report.objects
        if result.status is Status.SKIPPED
    ]


def _valid(manifest: Manifest, origin: Location, generated: bool = False) -> ObjectResult:
    """_check's result for an object it finds valid with nothing to report."""
    metadata = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    assert isinstance(metadata, dict)
    return ObjectResult(
        str(manifest.get("apiVersion", "")),
        str(manifest.get("kind", "")),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name") or ""),
        Status.VALID,
        origin,
        generated,
    )


def _no_float(document: SourceDocument) -> bool | None:
    """False when the reader saw no float anywhere in the document (then no object in it holds one), else None."""
    return False if document.floats is False else None


def _check(
    manifest: Manifest,
    version: str,
    strict: bool,
    origin: Location,
    source: tuple[SourceDocument, JsonPath] | None,
    generated: bool,
    floats: bool | None,
) -> ObjectResult:
    result = _valid(manifest, origin, generated)
    if not has_schema(manifest, version):
        return replace(result, status=Status.SKIPPED)
    fast = accepted_fast(manifest, version, strict, floats=floats)
    validator = None if fast else validator_for(manifest, version, strict)
    if validator is None:
        return result.with_findings(() if generated else _semantic(manifest, version, source))
    findings = []
    for problem in schema_errors(manifest, validator):
        location = None
        if source is not None:
            document, prefix = source
            location = document.locate((*prefix, *problem.path), key=problem.at_key)
        findings.append(
            Finding(format_path(problem.path), problem.message, location, code=problem.code, hint=problem.hint)
        )
    # The API server's own rules judge an object whose shapes the schema accepted (compiler.kubevalidate reads
    # types as the schema promises them); an object the schema refused is reported for that alone.
    if findings or generated:
        return result.with_findings(tuple(findings))
    return result.with_findings(_semantic(manifest, version, source))


def _semantic(manifest: Manifest, version: str, source: tuple[SourceDocument, JsonPath] | None) -> tuple[Finding, ...]:
    """What the API server refuses beyond the schema (compiler.kubevalidate), for an object given as it is; the
    objects of a compiled job were checked through its templates when it was compiled."""
    found = []
    for problem in check_object(manifest, version):
        location = source[0].locate((*source[1], *problem.path)) if source is not None else None
        found.append(
            Finding(format_path(problem.path), problem.message, location, "kubernetes", problem.code, problem.hint)
        )
    return tuple(found)
