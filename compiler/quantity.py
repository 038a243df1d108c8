"""Kubernetes resource quantities ("500m", "4Gi", "1e3"): parse, add, and print in a canonical form."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1),
            "k": Decimal("1e3"), "M": Decimal("1e6"), "G": Decimal("1e9"), "T": Decimal("1e12"),
            "P": Decimal("1e15"), "E": Decimal("1e18")}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$")


class QuantityError(ValueError):
    """Not a Kubernetes quantity."""


def parse_quantity(value: object) -> tuple[Decimal, bool]:
    """The amount, and whether it was written with a binary suffix (Ki, Mi, …)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuantityError(f"{value!r} is not a quantity")
    match = _QUANTITY.match(str(value).strip())
    if match is None:
        raise QuantityError(f"{value!r} is not a quantity")
    number, suffix = match.group(1), match.group(2) or ""
    try:
        amount = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - the pattern only admits numbers
        raise QuantityError(f"{value!r} is not a quantity") from exc
    if suffix in _BINARY:
        return amount * _BINARY[suffix], True
    if suffix[:1] in ("e", "E"):
        return amount * (Decimal(10) ** int(suffix[1:])), False
    return amount * _DECIMAL[suffix], False


def format_quantity(amount: Decimal, binary: bool) -> str:
    """The shortest exact form: binary suffixes when the inputs used them, else SI suffixes down to milli."""
    if amount == 0:
        return "0"
    if binary and amount == amount.to_integral_value():
        for suffix, factor in sorted(_BINARY.items(), key=lambda item: -item[1]):
            if amount % factor == 0:
                return f"{amount // factor}{suffix}"
        return str(int(amount))
    for suffix in ("E", "P", "T", "G", "M", "k", "", "m", "u", "n"):
        scaled = amount / _DECIMAL[suffix]
        if scaled == scaled.to_integral_value():
            return f"{int(scaled)}{suffix}"
    return f"{amount.quantize(Decimal('1e-9'))}"


def add_quantities(values: list[object]) -> str:
    total = Decimal(0)
    binary = bool(values)
    for value in values:
        amount, is_binary = parse_quantity(value)
        total += amount
        binary = binary and is_binary
    return format_quantity(total, binary)
