"""Diagnostics as values: stable codes, JSON paths, source locations; owned by the compiler, read by the CLI."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from mxjob_gitops.compiler.base.escape import terminal

PathPart = str | int
JsonPath = tuple[PathPart, ...]


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Code(enum.StrEnum):
    """Every diagnostic the compiler can produce; the values are stable and documented in docs/diagnostics.md."""

    # Reading the input
    YAML_SYNTAX = "MXJ001"
    UNSAFE_TAG = "MXJ002"
    DUPLICATE_KEY = "MXJ003"
    NOT_AN_OBJECT = "MXJ004"
    NOT_JSON = "MXJ005"
    UNSUPPORTED_VERSION = "MXJ006"
    INVALID_NAME = "MXJ007"
    LIMIT_EXCEEDED = "MXJ008"
    AMBIGUOUS_SCALAR = "MXJ009"
    NO_SCHEMA = "MXJ010"
    # The MXJob schema
    UNKNOWN_FIELD = "MXJ101"
    WRONG_TYPE = "MXJ102"
    INVALID_VALUE = "MXJ103"
    MISSING_FIELD = "MXJ104"
    OUT_OF_RANGE = "MXJ105"
    SCHEMA = "MXJ109"
    # Semantic rules
    JOB_NAME = "MXJ201"
    NAME_TOO_LONG = "MXJ202"
    UNKNOWN_REPLICA_TYPE = "MXJ203"
    JOB_MODE_LAYOUT = "MXJ204"
    REPLICA_COUNT = "MXJ205"
    NO_MXNET_CONTAINER = "MXJ206"
    EMPTY_IMAGE = "MXJ207"
    SERVICE_PORTS = "MXJ208"
    CONFLICTING_FIELDS = "MXJ209"
    DUPLICATE_OBJECT = "MXJ210"
    # What the API server would refuse (compiler/kubevalidate, docs/validation.md)
    K8S_QUANTITY = "MXJ401"
    K8S_METADATA = "MXJ402"
    K8S_CONTAINER = "MXJ403"
    K8S_VOLUME = "MXJ404"
    K8S_RESOURCES = "MXJ405"
    K8S_POD = "MXJ406"
    K8S_SERVICE = "MXJ407"
    K8S_CONFIGMAP = "MXJ408"
    K8S_CEL = "MXJ409"
    K8S_UPDATE = "MXJ410"
    K8S_POD_GROUP = "MXJ411"
    K8S_ADMISSION = "MXJ412"
    K8S_SIZE = "MXJ413"
    # Warnings
    REPLICA_TYPE_CASE = "MXJ301"
    RESTART_POLICY_OVERRIDDEN = "MXJ302"
    TTL_DROPPED = "MXJ303"
    CONVERTED = "MXJ304"
    ENV_OVERRIDDEN = "MXJ305"
    SERVER_FIELDS_DROPPED = "MXJ306"
    ZERO_REPLICAS = "MXJ307"
    TEMPLATE_METADATA_IGNORED = "MXJ308"
    FIELD_DROPPED = "MXJ309"
    SUSPENDED = "MXJ310"
    PRIORITY_ORDER = "MXJ311"
    SCHEDULER_NAME_KEPT = "MXJ312"
    PRIORITY_UNKNOWN = "MXJ313"
    GANG_POLICY_IGNORED = "MXJ314"
    SCHEDULING_GATES = "MXJ315"
    GANG_QUEUE = "MXJ316"
    ENV_NOT_SET = "MXJ317"
    CEL_NOT_CHECKED = "MXJ318"
    SYNC_RESTART = "MXJ319"
    NAMESPACE_KEPT = "MXJ320"
    MULTIKUEUE_SERVICES = "MXJ321"
    # Past what one GitOps unit holds (compiler.integrations.unitlimits)
    UNIT_TOO_LARGE = "MXJ330"


@dataclass(frozen=True, slots=True)
class Location:
    """Where a diagnostic points in the source: file, 1-based line and column."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: what is wrong, where, and how to fix it."""

    code: Code
    severity: Severity
    message: str
    path: JsonPath = ()
    location: Location | None = None
    document: int = 0
    hint: str = ""

    @property
    def json_path(self) -> str:
        return format_path(self.path)

    def at(self, location: Location) -> Diagnostic:
        return replace(self, location=location)

    def render(self) -> str:
        where = f"{self.location}: " if self.location else ""
        at = f" at {self.json_path}" if self.path else ""
        hint = f" ({self.hint})" if self.hint else ""
        return terminal(f"{where}{self.severity.value} {self.code.value}{at}: {self.message}{hint}")

    def to_dict(self) -> dict[str, object]:
        loc = self.location
        return {
            "code": self.code.value,
            "severity": self.severity.value,
            "message": self.message,
            "hint": self.hint,
            "path": self.json_path,
            "file": loc.file if loc else "",
            "line": loc.line if loc else 0,
            "column": loc.column if loc else 0,
            "document": self.document,
        }


def error(code: Code, message: str, path: Sequence[PathPart] = (), hint: str = "") -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, tuple(path), hint=hint)


def warning(code: Code, message: str, path: Sequence[PathPart] = (), hint: str = "") -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, tuple(path), hint=hint)


def info(code: Code, message: str, path: Sequence[PathPart] = (), hint: str = "") -> Diagnostic:
    return Diagnostic(code, Severity.INFO, message, tuple(path), hint=hint)


def format_path(path: Iterable[PathPart]) -> str:
    """Render a path the way kubectl explains fields: spec.mxReplicaSpecs.Worker.template.spec.containers[0]."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif out:
            out.append(f".{part}" if _plain_key(part) else f'["{part}"]')
        else:
            out.append(part if _plain_key(part) else f'["{part}"]')
    return "".join(out)


def pointer_parts(pointer: str) -> JsonPath:
    """A JSON pointer (RFC 6901) as path parts; all-digit segments become list indexes."""
    if not pointer.startswith("/"):
        return ()
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]
    return tuple(int(p) if p.isdigit() else p for p in parts)


def _plain_key(key: str) -> bool:
    return key.replace("_", "").replace("-", "").isalnum()


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


def suggest(word: str, choices: Iterable[str]) -> str:
    """'did you mean …' for a misspelt field or value; empty when nothing is close."""
    options = list(choices)
    lowered = {option.lower(): option for option in options}
    if word.lower() in lowered:
        return f"did you mean {lowered[word.lower()]!r}?"
    import difflib  # only for a misspelt key

    # Only a misspelling of the same word: at 0.6, successPolicy "matched" runPolicy, a different concept.
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.8)
    return f"did you mean {close[0]!r}?" if close else ""
