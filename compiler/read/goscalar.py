"""Plain YAML scalars as the Kubernetes tools read them: go-yaml v2's resolution (compiler.goloader uses it).

kubectl and Argo CD read manifests through sigs.k8s.io/yaml (a go-yaml v2 fork: `resolve.go`, `resolve`); Flux and
kustomize through kyaml (go-yaml v3). PyYAML's YAML 1.1 rules differ from both: `12:30` is the base-60 integer
750 there and the string "12:30" for every Go reader; `1e3`, `0o17`, `+.5` and `08` are strings there and
numbers for the Go readers. The rules here are established against the readers themselves
(tests/test_yaml_readers.py runs realcomp's yaml2json and kyaml2json on a table and on generated scalars):
- null: empty, `~`, `null`, `Null`, `NULL`;
- booleans: `true`/`false` in three spellings; go-yaml v2 also reads `y`, `yes`, `on`, `n`, `no`, `off` (three
  spellings each, `y`/`n` two) as booleans, go-yaml v3 as strings. Those are AMBIGUOUS: read as kubectl and Argo
  CD read them, and reported, since Flux would apply the string;
- integers: Go's `strconv.ParseInt(text, 0, 64)` after removing every `_` (so `0x1F`, `0o17`, `0b11`, `017` is
  octal, a sign is allowed), else `ParseUint` for 2^63..2^64-1;
- floats: the text matching go-yaml's `yamlStyleFloat` (`[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?`)
  whose value is finite, plus `.inf`, `-.inf`, `.nan` spellings (which JSON cannot hold: an error later);
- everything else, timestamps and `12:30` included, is a string. A timestamp (`2001-12-14`) stays its text for
  go-yaml v2 but kyaml rewrites it as RFC 3339 (`2001-12-14T00:00:00Z`): TIMESTAMP marks it, and compiler.source
  warns unless it is already in that form.
Map keys become JSON text as sigs.k8s.io/yaml writes them (yaml.go, convertToJSONableObject): integers in
decimal, floats by `strconv.FormatFloat(key, 'g', -1, 32)` (`1.0` is "1", `1e6` "1e+06"), booleans as
true/false (`key_text`). kyaml keeps every key as written, so a plain key whose text changes is ambiguous too.
A float stays a float even when it holds a whole number (`1.0`, `1e3`): sigs.k8s.io/yaml would send it as `1`
and `1000`, but a .json manifest reaches the API server as written, where `1.0` in an integer field is refused;
the schema step reports such a float in an integer field with the fix (write `1`), whatever the file type.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Final

_PREFIX: Final = "tag:yaml.org,2002:"
NULL, BOOL, INT, FLOAT, STR, TIMESTAMP = (
    _PREFIX + name for name in ("null", "bool", "int", "float", "str", "timestamp")
)

# A plain scalar go-yaml v2 reads as a string and go-yaml v3 as an integer: `0o` and a signed octal number
# (`0o-7`). v2's resolve hands the whole text to strconv.ParseInt(text, 0, 64), which refuses a sign after the
# prefix; v3's resolve.go reads text[2:] with strconv.ParseInt(…, 8, 64), which takes it. Our own tag: read as the
# string, as kubectl and Argo CD do, with the MXJ009 warning (source.py).
V3_OCTAL: Final = "tag:mxjob-gitops,2026:v3-octal"

_NULLS: Final = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE: Final = frozenset({"true", "True", "TRUE"})
_FALSE: Final = frozenset({"false", "False", "FALSE"})
# go-yaml v2 only (resolve.go's resolve table); go-yaml v3 reads these as strings.
AMBIGUOUS_TRUE: Final = frozenset({"y", "Y", "yes", "Yes", "YES", "on", "On", "ON"})
AMBIGUOUS_FALSE: Final = frozenset({"n", "N", "no", "No", "NO", "off", "Off", "OFF"})
_SPECIAL_FLOATS: Final = {
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
}
_YAML_STYLE_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
# YAML 1.1's timestamp (yaml.org/type/timestamp.html), which kyaml rewrites; RFC3339 is the form it writes back
# (Go's time.RFC3339Nano), which reads the same everywhere.
_TIMESTAMP: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?",
    re.ASCII,
)
RFC3339: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*[1-9])?(?:Z|[-+][0-9]{2}:[0-9]{2})", re.ASCII
)
_DIGITS: Final = {2: frozenset("01"), 8: frozenset("01234567"), 10: frozenset("0123456789")}
_DIGITS16: Final = frozenset("0123456789abcdefABCDEF")


def resolve(text: str) -> str:
    """The tag go-yaml v2 gives a plain (unquoted, untagged) scalar."""
    if text in _NULLS:
        return NULL
    if text in _TRUE or text in _FALSE or text in AMBIGUOUS_TRUE or text in AMBIGUOUS_FALSE:
        return BOOL
    if text in _SPECIAL_FLOATS:
        return FLOAT
    if text[0] in "+-.0123456789":
        plain = text.replace("_", "")
        if parse_int(plain) is not None:
            return INT
        if _finite_float(plain) is not None:
            return FLOAT
        if _TIMESTAMP.fullmatch(text):
            return TIMESTAMP
        if v3_octal(plain) is not None:
            return V3_OCTAL
    return STR


def v3_octal(plain: str) -> int | None:
    """go-yaml v3's reading of `0o` and a signed octal number (underscores already removed), else None."""
    if not plain.startswith("0o") or plain[2:3] not in ("+", "-"):
        return None
    digits = plain[3:]
    if not digits or not set(digits) <= _DIGITS[8]:
        return None
    value = int(plain[2:], 8)
    return value if -(2**63) <= value < 2**63 else None


def ambiguous(text: str) -> bool:
    """Whether the Go readers disagree on this plain scalar (a boolean for go-yaml v2, a string for v3)."""
    return text in AMBIGUOUS_TRUE or text in AMBIGUOUS_FALSE


def parse_bool(text: str) -> bool | None:
    if text in _TRUE or text in AMBIGUOUS_TRUE:
        return True
    if text in _FALSE or text in AMBIGUOUS_FALSE:
        return False
    return None


def parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64), else strconv.ParseUint(text, 0, 64) (no sign), else None."""
    body, sign = text, 1
    if body[:1] in ("+", "-"):
        sign, body = (-1 if body[0] == "-" else 1), body[1:]
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        base, digits = {"0x": 16, "0o": 8, "0b": 2}[prefix], body[2:]
    elif body[:1] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    else:
        base, digits = 10, body
    allowed = _DIGITS16 if base == 16 else _DIGITS[base]
    if not digits or not set(digits) <= allowed:
        return None
    value = sign * int(digits, base)
    if -(2**63) <= value < 2**63 or (text[:1] not in ("+", "-") and 0 <= value < 2**64):
        return value
    return None


def _finite_float(text: str) -> float | None:
    if not _YAML_STYLE_FLOAT.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None  # ParseFloat's ErrRange: then not a float, a string


def parse_float(text: str) -> float | None:
    """The number of a float scalar (explicit `!!float` too, which may also be written as an integer); None if none."""
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    plain = text.replace("_", "")
    value = _finite_float(plain)
    if value is None:
        whole = parse_int(plain)
        return None if whole is None else float(whole)
    return value


def key_text(key: object) -> str:
    """A map key as sigs.k8s.io/yaml writes it in JSON (yaml.go, convertToJSONableObject)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        return _format_float32(key)
    return str(key)


def _format_float32(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32): the shortest digits that read back as the same float32, as %e
    when the exponent is below -4 or from 6 on (at least two exponent digits), else as %f."""
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # beyond float32: Go's conversion gives an infinity
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return "+Inf" if single > 0 else "-Inf"
    if single == 0:
        return "-0" if math.copysign(1.0, single) < 0 else "0"
    for precision in range(1, 10):
        shortest = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(shortest)))[0] == single:
            break
    mantissa, _, exponent_text = shortest.partition("e")
    exponent = int(exponent_text)
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    if exponent < -4 or exponent >= 6:
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{head}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole, fraction = digits[: exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1 :]
    return sign + whole + ("." + fraction if fraction else "")
