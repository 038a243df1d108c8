"""The one exit-code table (the mxnet-operator's), overridable per job and globally: the reconciler classifies a
failed pod with it, and the JobSet engine writes the same verdicts into a podFailurePolicy.

Table: permanent 1, 2, 126, 127, 128, 139; retryable 130, 137, 143 (signals) and 138 (the user's "retry
me"); any other code is retryable from 128 up, permanent below. Two conditions that carry no useful code:
a container `OOMKilled` is permanent by default (the same limits would kill it again), and a pod the
kubelet `Evicted` (node pressure, no container exit) is retryable. Both can be overridden like codes: `--exit-codes`
and the job's `mxjob.kubeflow.org/exit-codes` annotation (`137=permanent,3=retryable,Evicted=permanent`).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from mxjob_gitops.compiler.base.asciinum import whole

PERMANENT_CODES = frozenset({1, 2, 126, 127, 128, 139})
RETRYABLE_CODES = frozenset({130, 137, 138, 143})
OOM_KILLED = "OOMKilled"
EVICTED = "Evicted"
OVERRIDE_ANNOTATION = "mxjob.kubeflow.org/exit-codes"


class ExitClass(enum.StrEnum):
    SUCCESS = "success"
    RETRYABLE = "retryable"
    PERMANENT = "permanent"


@dataclass(frozen=True, slots=True)
class ExitTable:
    """Overrides on top of the built-in table: an exit code, OOMKilled or Evicted → class."""

    overrides: Mapping[str, ExitClass] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str, base: ExitTable | None = None) -> ExitTable:
        """`137=permanent,3=retryable,OOMKilled=retryable`; later settings win over `base`."""
        overrides = dict(base.overrides) if base else {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, _, value = item.partition("=")
            key = key.strip()
            code = whole(key)  # as str(code) writes it: `007` is 7; `٣` or `³` would never match a code
            if code is None and key not in (OOM_KILLED, EVICTED):
                raise ValueError(f"{item!r}: the key is an exit code (digits 0-9), {OOM_KILLED} or {EVICTED}")
            key = key if code is None else str(code)
            try:
                overrides[key] = ExitClass(value.strip().lower())
            except ValueError:
                raise ValueError(f"{item!r}: the class is retryable or permanent") from None
        return cls(overrides)

    def classify(self, code: int | None, reason: str = "") -> ExitClass:
        """Classify a failed `mxnet` container: its exit code, or the pod's reason when there is none."""
        if reason == OOM_KILLED:
            return self.overrides.get(OOM_KILLED, ExitClass.PERMANENT)
        if code is None:
            return self.overrides.get(EVICTED if reason == EVICTED else "", ExitClass.RETRYABLE)
        if code == 0:
            return ExitClass.SUCCESS
        if str(code) in self.overrides:
            return self.overrides[str(code)]
        if code in PERMANENT_CODES:
            return ExitClass.PERMANENT
        if code in RETRYABLE_CODES:
            return ExitClass.RETRYABLE
        return ExitClass.RETRYABLE if code >= 128 else ExitClass.PERMANENT


def table_for_job(annotations: Mapping[str, object], base: ExitTable) -> ExitTable:
    """The global table with the job's own overrides (annotation) on top; a bad annotation is ignored."""
    text = annotations.get(OVERRIDE_ANNOTATION)
    if not isinstance(text, str) or not text or not re.fullmatch(r"[\w=,\s]+", text):
        return base
    try:
        return ExitTable.parse(text, base)
    except ValueError:
        return base


# The JobSet engine's view of the same table: overrides as key -> retryable, as RenderOptions records them.
Overrides = dict[str, bool]


def _table(overrides: Mapping[str, bool] | None) -> ExitTable:
    classes = {key: ExitClass.RETRYABLE if again else ExitClass.PERMANENT for key, again in (overrides or {}).items()}
    return ExitTable(classes)


def _as_overrides(table: ExitTable) -> Overrides:
    return {key: value is ExitClass.RETRYABLE for key, value in table.overrides.items()}


def parse_overrides(text: str, base: Mapping[str, bool] | None = None) -> Overrides:
    """`137=permanent,3=retryable`, later settings over `base`; ValueError names the bad item."""
    return _as_overrides(ExitTable.parse(text, _table(base)))


def retryable(code: int, overrides: Mapping[str, bool]) -> bool:
    """Whether a non-zero exit code of the `mxnet` container is worth a new pod."""
    return _table(overrides).classify(code) is ExitClass.RETRYABLE


def job_overrides(annotations: Mapping[str, object], base: Mapping[str, bool]) -> Overrides:
    """The render-wide overrides with the job's own annotation on top (an unreadable one is ignored)."""
    return _as_overrides(table_for_job(annotations, _table(base)))
