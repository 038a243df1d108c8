"""Numbers in text a person or a cluster supplied (environment variables, flags, HTTP headers, labels), read as the
Go tools read them; called by the CLI's flag types and readers and by the reconciler.

Python's int() and float() accept more than any Kubernetes tool or user means: other scripts' digits
(`int("٣") == 3`), `_` between digits, surrounding whitespace, and float() also `inf`, `nan` and exponents.
These readers take ASCII digits only and say None for anything else; the caller names the source in its error.
They strip nothing: where blank means unset, the caller decides that before asking.
"""

from __future__ import annotations

import math
from typing import Final

INT64_MAX: Final = 2**63 - 1
_INT64_DIGITS: Final = len(str(INT64_MAX))


def whole(text: str) -> int | None:
    """`[0-9]+` as a number, or None: Go's strconv.Atoi for non-negative numbers (no sign, no `_`, no spaces,
    at most int64's maximum; leading zeros are allowed)."""
    if not (text.isascii() and text.isdigit()):  # an ASCII character that isdigit() is one of 0-9
        return None
    significant = text.lstrip("0") or "0"
    if len(significant) > _INT64_DIGITS:
        return None  # strconv.Atoi's ErrRange; also keeps int() away from its limit on very long digit strings
    number = int(significant)
    return number if number <= INT64_MAX else None


def decimal(text: str) -> float | None:
    """`[0-9]+`, `[0-9]+.[0-9]+` or `.[0-9]+` as a finite number, or None: no sign, exponent, `_`, spaces, `inf`
    or `nan`, and too many digits to be finite is None too."""
    before, point, after = text.partition(".")
    if point and not after:
        return None  # `3.` and `.`
    if not all(part.isascii() and part.isdigit() for part in (before, after) if part) or not (before or after):
        return None
    value = float(text)
    return value if math.isfinite(value) else None
