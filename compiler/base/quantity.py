"""Kubernetes resource quantities ("500m", "4Gi", "1e3"): parse, add, and print them as the API server stores them.

The rules follow k8s.io/apimachinery/pkg/api/resource (quantity.go `ParseQuantity`, `CanonicalizeBytes`;
amount.go `AsCanonicalBytes`, `AsCanonicalBase1024Bytes`; suffix.go): a value keeps the family of the suffix it
was written with (decimal SI, binary SI, or a decimal exponent), is rounded up to a whole nano, and prints as the
shortest integer mantissa with an exponent that is a multiple of 3 (decimal) or of 1024 (binary). Binary values
below 1024 or with a fraction print in decimal SI. Every JSON number a client sends (`nvidia.com/gpu: 1`) comes
back from the server as this string, so the rendering writes the string.
"""

from __future__ import annotations

import re
from decimal import ROUND_UP, Decimal, InvalidOperation, localcontext
from enum import StrEnum
from functools import lru_cache
from typing import Any

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIX = {power: suffix for suffix, power in _BINARY.items()}
_DECIMAL_SUFFIX = {power: suffix for suffix, power in _DECIMAL.items()}
_QUANTITY = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?")
NANO = Decimal("1e-9")
MILLI = Decimal("1e-3")
MAX_BINARY = Decimal(2**63 - 1)  # ParseQuantity caps binary SI magnitudes at maxAllowed
# The decimal exponent a quantity may carry. ParseQuantity reads `e999999999` as a 32-bit exponent and then
# multiplies out a number of that many digits when it rounds: measured with Kubernetes' own code (core-validate
# 1.36, kube-apiserver v1.20.2 with dryRun), 1e1000000 is accepted in 0.1-0.2 s, 1e10000000 takes 5 s and
# 1e100000000 more than 20 s (past any request timeout soon after). No real amount needs more than ±999000, which
# also stays inside Python's default decimal exponent range (±999999).
MAX_EXPONENT = 999_000
PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"  # the server's wording (quantity.go ErrFormatWrong)


QUANTITY_DEFINITION = "io.k8s.apimachinery.pkg.api.resource.Quantity"
# A quantity as resource.ParseQuantity accepts it (quantity.go, parseQuantityString; suffix.go, interpret), as a
# JSON Schema pattern: the OpenAPI definitions Kubernetes publishes have none (kubeconform's issue #181), so without
# it `cpu: two`, `memory: 4GB` or a left-in `<GPU_LIMIT>` pass every schema and only the API server refuses them.
# The number may be empty (`Ki`, `.`, `-` are zero); the suffix is a decimal or binary SI suffix or e/E with an
# integer exponent, bounded here to ±MAX_EXPONENT (the server spends minutes on `1e999999999`). Quantity.UnmarshalJSON
# trims Unicode space around the JSON-escaped text (strings.TrimSpace), so the spaces JSON leaves unescaped are
# allowed and control characters are not. tests/test_quantity.py checks all of it against Kubernetes' own code.
_SPACE = "[ \u0085\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]*"
_TRIMMED = " \u0085\u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
QUANTITY_PATTERN = (
    f"^(?=.){_SPACE}(?=[^ \u0085\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000])"
    f"[+-]?[0-9]*(\\.[0-9]*)?([KMGTPE]i|[numkMGTPE]|[eE][+-]?0*([0-9]{{1,5}}|[1-8][0-9]{{5}}|9[0-8][0-9]{{4}}|99[0-8][0-9]{{3}}|999000))?{_SPACE}$(?![\\s\\S])"
)
SERVER_WORDS = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def with_quantity_rule(definitions: dict[str, Any]) -> dict[str, Any]:
    """`definitions` ($defs of a schema) with QUANTITY_PATTERN on the string form of a Quantity, where there is one."""
    if QUANTITY_DEFINITION not in definitions:
        return definitions
    rule = {"oneOf": [{"type": ["string", "null"], "pattern": QUANTITY_PATTERN}, {"type": ["number", "null"]}]}
    return {**definitions, QUANTITY_DEFINITION: rule}


class QuantityError(ValueError):
    """Not a Kubernetes quantity."""


class Format(StrEnum):
    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


def parse(value: object) -> tuple[Decimal, Format]:
    """The exact amount (rounded up to a nano, as the server does) and the suffix family it was written in."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuantityError(f"{value!r} is not a quantity")
    return _parse(value)


@lru_cache(maxsize=4096, typed=True)  # the same few quantities recur in every pod of a rendering
def _parse(value: str | int | float) -> tuple[Decimal, Format]:
    text = _json_text(value)
    match = _QUANTITY.fullmatch(text) if text else None
    if match is None:
        raise QuantityError(f"{value!r} is not a quantity: quantities must match the regular expression '{PATTERN}'")
    sign, whole, fraction, suffix = match.group(1), match.group(2), match.group(3) or "", match.group(4) or ""
    number = f"{sign}{whole or '0'}.{fraction or '0'}"  # an empty number is zero (parseQuantityString)
    with localcontext() as context:
        context.prec = 200
        try:
            amount = Decimal(number)
        except InvalidOperation as exc:  # pragma: no cover - the pattern only admits numbers
            raise QuantityError(f"{value!r} is not a quantity") from exc
        if suffix in _BINARY:
            amount, family = amount * (2 ** _BINARY[suffix]), Format.BINARY_SI
        elif len(suffix) > 1:
            if len(suffix[1:].lstrip("+-").lstrip("0")) > 6 or abs(int(suffix[1:])) > MAX_EXPONENT:
                raise QuantityError(f"{value!r} has an exponent beyond ±{MAX_EXPONENT}")
            amount, family = amount.scaleb(int(suffix[1:])), Format.DECIMAL_EXPONENT
        else:
            amount, family = amount.scaleb(_DECIMAL[suffix]), Format.DECIMAL_SI
        if amount.as_tuple().exponent < -9:  # type: ignore[operator]
            amount = amount.quantize(NANO, rounding=ROUND_UP)
    if family is Format.BINARY_SI and abs(amount) > MAX_BINARY:
        amount = MAX_BINARY.copy_sign(amount)
    if family is Format.BINARY_SI and 0 < abs(amount) < 1:
        family = Format.DECIMAL_SI  # ParseQuantity: a binary fraction of one is shown in decimal SI
    return amount, family


def _json_text(value: str | int | float) -> str:
    """The text the server parses: a string as written; a number as Go's encoding/json writes a float64."""
    if isinstance(value, str):
        return value.strip(
            " \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
        )
    if isinstance(value, int):
        return str(value)
    if value != 0 and not 1e-6 <= abs(value) < 1e21:
        return f"{value:e}"
    return format(Decimal(repr(value)), "f")


def canonical(amount: Decimal, family: Format) -> str:
    """What Quantity.String() prints for this amount in this family (CanonicalizeBytes)."""
    if amount == 0:
        return "0"
    if family is Format.BINARY_SI:
        if -1024 < amount < 1024 or amount != amount.to_integral_value():
            family = Format.DECIMAL_SI
        else:
            mantissa, power = int(amount), 0
            while mantissa % 1024 == 0 and power < 60:
                mantissa, power = mantissa // 1024, power + 10
            return f"{mantissa}{_BINARY_SUFFIX.get(power, '')}"
    sign, digits, exponent = amount.normalize().as_tuple()
    assert isinstance(exponent, int)
    mantissa = int("".join(map(str, digits))) * (-1 if sign else 1)
    shift = exponent % 3  # exponents round down to a multiple of 3, the mantissa grows to match
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    if family is Format.DECIMAL_SI and exponent in _DECIMAL_SUFFIX:
        return f"{mantissa}{_DECIMAL_SUFFIX[exponent]}"
    # Decimal SI has no suffix beyond E (the server would print the mantissa alone, losing the exponent):
    # the exponent form keeps the value, and the server keeps that form.
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)


def canonical_quantity(value: object, milli: bool = False) -> str:
    """`value` as the API server stores it: 0.5 -> "500m", "1024Mi" -> "1Gi", 1 -> "1", "1e3" -> "1e3".

    `milli` for the values of a core ResourceList (requests, limits, overhead), which the server also rounds up
    to a whole milli (k8s.io/kubernetes pkg/apis/core/v1/defaults.go `SetDefaults_ResourceList`).
    """
    amount, family = parse(value)
    if milli and amount.as_tuple().exponent < -3:  # type: ignore[operator]
        amount = amount.quantize(MILLI, rounding=ROUND_UP)
    return canonical(amount, family)


def parse_quantity(value: object) -> tuple[Decimal, bool]:
    """The amount, and whether it was written with a binary suffix (Ki, Mi, …)."""
    amount, family = parse(value)
    return amount, family is Format.BINARY_SI


def add_quantities(values: list[object]) -> str:
    """The canonical sum; binary SI when every term was binary, decimal SI otherwise."""
    total = Decimal(0)
    binary = bool(values)
    for value in values:
        amount, family = parse(value)
        total += amount
        binary = binary and family is Format.BINARY_SI
    return canonical(total, Format.BINARY_SI if binary else Format.DECIMAL_SI)
