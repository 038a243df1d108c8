"""How long a pod has been running, worded as kubectl's AGE column words it (45s, 12m, 2h, 3d, 1y); called by
diff.restarts. Pure: the clock is the caller's `now` (epoch seconds).

The wording follows apimachinery's `ShortHumanDuration` (k8s.io/apimachinery/pkg/util/duration/duration.go,
https://github.com/kubernetes/apimachinery/blob/master/pkg/util/duration/duration.go): one unit, rounded down,
a clock up to a second behind the server's reading as "0s".
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

_MINUTE, _HOUR, _DAY, _YEAR = 60, 3_600, 86_400, 365 * 86_400


def format_age(seconds: float) -> str:
    """`45s`, `12m`, `2h`, `3d`, `2y`; `<invalid>` for a start more than a second in the future."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < _MINUTE:
        return f"{max(whole, 0)}s"
    if whole < _HOUR:
        return f"{whole // _MINUTE}m"
    if whole < _DAY:
        return f"{whole // _HOUR}h"
    if whole < _YEAR:
        return f"{whole // _DAY}d"
    return f"{whole // _YEAR}y"


def parse_time(text: Any) -> float | None:
    """An RFC 3339 timestamp as the API server writes it (`2026-11-27T10:00:00Z`) in epoch seconds; None otherwise."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        return None
    return moment.timestamp() if moment.tzinfo is not None else None


def rfc3339(seconds: float) -> str:
    """Epoch seconds as the API server writes a time (`2026-11-27T10:00:00Z`)."""
    return datetime.fromtimestamp(int(seconds), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def started_at(pod: dict[str, Any]) -> float | None:
    """When a pod started running: its `status.startTime`, else the earliest start of a running container."""
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    assert isinstance(status, dict)
    start = parse_time(status.get("startTime"))
    if start is not None:
        return start
    starts = [
        parse_time(((item.get("state") or {}).get("running") or {}).get("startedAt"))
        for item in status.get("containerStatuses") or []
        if isinstance(item, dict)
    ]
    found = [s for s in starts if s is not None]
    return min(found) if found else None


def is_running(pod: dict[str, Any]) -> bool:
    """A pod the kubelet reports Running (and not being deleted)."""
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    metadata = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    assert isinstance(status, dict) and isinstance(metadata, dict)
    return status.get("phase") == "Running" and not metadata.get("deletionTimestamp")
