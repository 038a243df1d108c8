"""How long a pod has been running, worded as kubectl's AGE column words it (45s, 12m, 2h, 3d, 1y); called by
diff.restarts. Pure: the clock is the caller's `now` (epoch seconds).

The wording follows apimachinery's `ShortHumanDuration` (k8s.io/apimachinery/pkg/util/duration/duration.go,
https://github.com/kubernetes/apimachinery/blob/master/pkg/util/duration/duration.go): one unit, rounded down,
a clock up to a second behind the server's reading as "0s".
"""

from __future__ import annotations

import re
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


_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))")


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (the era arithmetic of the civil calendar)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719_468
    era = days // 146_097
    day_of_era = days - era * 146_097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted + 2) // 5 + 1
    month = shifted + (3 if shifted < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


def parse_time(text: Any) -> float | None:
    """An RFC 3339 timestamp as the API server writes it (`2026-11-27T10:00:00Z`) in epoch seconds; None otherwise."""
    match = _RFC3339.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    offset = 0
    if match.group(8):
        offset = (int(match.group(9)) * 60 + int(match.group(10))) * 60 * (1 if match.group(8) == "+" else -1)
    return float(_days_from_civil(year, month, day) * _DAY + hour * _HOUR + minute * _MINUTE + second - offset)


def rfc3339(seconds: float) -> str:
    """Epoch seconds as the API server writes a time (`2026-11-27T10:00:00Z`)."""
    whole = int(seconds)
    days, rest = divmod(whole, _DAY)
    year, month, day = _civil_from_days(days)
    return f"{year:04d}-{month:02d}-{day:02d}T{rest // _HOUR:02d}:{rest % _HOUR // _MINUTE:02d}:{rest % _MINUTE:02d}Z"


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
