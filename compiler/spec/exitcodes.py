"""The exit-code table the reconciler applies (reconciler/exitcodes.py), restated for the JobSet engine.

The compiler may not import the reconciler, so the table is restated here; tests/test_jobset.py holds the two to
the same verdict for every code 0-255 and override. Table: permanent 1, 2, 126, 127, 128, 139; retryable 130,
137, 138, 143; any other code retryable from 128 up, permanent below. `Evicted` (a pod the kubelet or the
scheduler took away, no useful code) is retryable; `OOMKilled` is permanent. Overrides: `--exit-codes` and the
job's `mxjob.kubeflow.org/exit-codes` annotation (`137=permanent,3=retryable,Evicted=permanent`).
"""

from __future__ import annotations

from collections.abc import Mapping

from mxjob_gitops.compiler.base.asciinum import whole

PERMANENT_CODES = frozenset({1, 2, 126, 127, 128, 139})
RETRYABLE_CODES = frozenset({130, 137, 138, 143})
EVICTED = "Evicted"
OOM_KILLED = "OOMKilled"
OVERRIDE_ANNOTATION = "mxjob.kubeflow.org/exit-codes"
Overrides = dict[str, bool]  # key (a code, Evicted, OOMKilled) -> retryable


def parse_overrides(text: str, base: Mapping[str, bool] | None = None) -> Overrides:
    """`137=permanent,3=retryable`, later settings over `base`; ValueError names the bad item."""
    overrides = dict(base or {})
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, _, value = (part.strip() for part in item.partition("="))
        code = whole(key)  # isdigit() also passed `٣` and `³` (int() read the first as 3 and failed on the second)
        if code is None and key not in (OOM_KILLED, EVICTED):
            raise ValueError(f"{item!r}: the key is an exit code (digits 0-9), {OOM_KILLED} or {EVICTED}")
        if value.lower() not in ("retryable", "permanent"):
            raise ValueError(f"{item!r}: the class is retryable or permanent")
        overrides[key if code is None else str(code)] = value.lower() == "retryable"
    return overrides


def retryable(code: int, overrides: Mapping[str, bool]) -> bool:
    """Whether a non-zero exit code of the `mxnet` container is worth a new pod."""
    if str(code) in overrides:
        return overrides[str(code)]
    if code in PERMANENT_CODES:
        return False
    return code in RETRYABLE_CODES or code >= 128


def job_overrides(annotations: Mapping[str, object], base: Mapping[str, bool]) -> Overrides:
    """The render-wide overrides with the job's own annotation on top (an unreadable one is ignored, as there)."""
    text = annotations.get(OVERRIDE_ANNOTATION)
    if not isinstance(text, str) or not text:
        return dict(base)
    try:
        return parse_overrides(text, base)
    except ValueError:
        return dict(base)
