"""compiler/base/quantity.py prints quantities as the API server stores them (apimachinery's own test tables)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from mxjob_gitops.compiler.base.quantity import Format, QuantityError, canonical, canonical_quantity, parse

# Re-typed from k8s.io/apimachinery/pkg/api/resource/quantity_test.go: TestQuantityString (the canonical form and
# the alternate spellings that must print as it) and TestQuantityParseEmit.
STRING_TABLE = [
    ("1Gi", "1024Mi"),
    ("300Mi", "307200Ki"),
    ("6Ki", ""),
    ("1001Gi", "1025024Mi"),
    ("1Ti", "1024Gi"),
    ("5", "5000m"),
    ("500m", "0.5"),
    ("1G", "1000M"),
    ("1G", "0.001T"),
    ("1m", "1000u"),
    ("80m", ""),
    ("1080m", "1.08"),
    ("1080m", "1080000000n"),
    ("300M", ""),
    ("1T", ""),
    ("1234567M", ""),
    ("1234567m", ""),
    ("3k", ""),
    ("1025", ""),
    ("0", "00"),
    ("1e9", ".001e12"),
    ("1e-3", "0.001e0"),
    ("1e-9", "1000e-12"),
    ("80e-3", ""),
    ("300e6", ""),
    ("1e12", ""),
    ("1e3", ""),
    ("3e3", ""),
    ("1n", ""),
    ("80n", ""),
    ("1080n", ""),
    ("1u", ""),
    ("80u", ""),
    ("1080u", ""),
]
PARSE_EMIT = [
    ("1Ki", "1Ki"),
    ("1Mi", "1Mi"),
    ("1Gi", "1Gi"),
    ("1024Mi", "1Gi"),
    ("1000M", "1G"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),
]
# TestQuantityParse: the value and family ParseQuantity reads (mantissa, base-10 exponent, family).
PARSE_TABLE = [
    ("0", 0, 0, Format.DECIMAL_SI),
    ("0Ki", 0, 0, Format.BINARY_SI),
    ("8Ki", 8 * 1024, 0, Format.BINARY_SI),
    ("3Ei", 3 * 2**60, 0, Format.BINARY_SI),
    ("50k", 5, 4, Format.DECIMAL_SI),
    ("1E", 1, 18, Format.DECIMAL_SI),
    ("1E-3", 1, -3, Format.DECIMAL_EXPONENT),
    ("1e3", 1, 3, Format.DECIMAL_EXPONENT),
    ("100.035k", 100035, 0, Format.DECIMAL_SI),
    ("0.0005k", 5, -1, Format.DECIMAL_SI),
    ("0.5e-2", 5, -3, Format.DECIMAL_EXPONENT),
    ("1.3E+6", 13, 5, Format.DECIMAL_EXPONENT),
    ("1.01E", 101, 16, Format.DECIMAL_SI),
    ("3.001n", 4, -9, Format.DECIMAL_SI),
    ("1.1E-9", 2, -9, Format.DECIMAL_EXPONENT),
    ("0.0000000005", 1, -9, Format.DECIMAL_SI),
    ("0.00000012354", 124, -9, Format.DECIMAL_SI),
    ("9Ei", 2**63 - 1, 0, Format.BINARY_SI),
    ("12E", 12, 18, Format.DECIMAL_SI),
]


@pytest.mark.parametrize(("expect", "alternate"), STRING_TABLE)
def test_canonical_form_and_its_alternates(expect: str, alternate: str) -> None:
    assert canonical_quantity(expect) == expect
    if alternate:
        assert canonical_quantity(alternate) == expect
    if expect != "0":
        assert canonical_quantity("-" + expect) == "-" + expect


@pytest.mark.parametrize(("text", "expect"), PARSE_EMIT)
def test_parse_emit(text: str, expect: str) -> None:
    assert canonical_quantity(text) == expect
    assert canonical_quantity("-" + text) == "-" + expect


@pytest.mark.parametrize(("text", "mantissa", "exponent", "family"), PARSE_TABLE)
def test_parse_reads_value_and_family(text: str, mantissa: int, exponent: int, family: Format) -> None:
    assert parse(text) == (Decimal(mantissa).scaleb(exponent), family)


@pytest.mark.parametrize(
    ("value", "expect"),
    [
        (1, "1"),
        (8, "8"),
        (0.5, "500m"),
        (1000, "1k"),
        (2.0, "2"),
        (1.5, "1500m"),
        (0, "0"),
        ("1e3", "1e3"),
        ("1.5Gi", "1536Mi"),
        ("0.5Ki", "512"),
        ("1000E", "1e21"),
        ("+2", "2"),
    ],
)
def test_json_numbers_and_edges(value: object, expect: str) -> None:
    assert canonical_quantity(value) == expect


@pytest.mark.parametrize(
    ("value", "expect"),
    [
        ("3.001n", "1m"),
        ("0.1m", "1m"),
        (".000000000001Ki", "1m"),
        ("1e-3", "1e-3"),
        ("1.5", "1500m"),
        ("0", "0"),
    ],
)
def test_resource_lists_round_up_to_milli(value: object, expect: str) -> None:
    """Read back from a v1.20.2 kube-apiserver (Node status.capacity.cpu), as SetDefaults_ResourceList rounds."""
    assert canonical_quantity(value, milli=True) == expect


@pytest.mark.parametrize("value", ["", "   ", "lots", "1.2.3", "1Kb", "..", "1e", "1\n", "\t1", True, None, [1]])
def test_garbage_is_refused(value: object) -> None:
    with pytest.raises(QuantityError):
        canonical_quantity(value)


quantities = st.builds(
    lambda number, suffix: f"{number}{suffix}",
    st.decimals(min_value=-(10**9), max_value=10**9, places=3, allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "m", "k", "M", "Ki", "Mi", "Gi", "e3", "e-2", "n", "u"]),
)


@given(quantities)
def test_canonical_is_a_fixed_point_that_keeps_the_value(text: str) -> None:
    amount, family = parse(text)
    printed = canonical(amount, family)
    assert canonical_quantity(printed) == printed
    assert parse(printed)[0] == amount


# What the API server says of a quantity's syntax, from Kubernetes 1.36's own decoding and validation (realcomp's
# core-validate): every string here is judged by it and by `mxjob validate` and `mxjob render`, which must agree.
SYNTAX_CASES = [
    "two", "4GB", "<GPU_LIMIT>", "1ki", "1..2", "1.2.3", "", " 1", "1 ", "0x10", "1e", "1e+", "Ki", "1KiB", "1Kb",
    "1b", "1.5Gi", "0.5", ".5", "5.", "+1", "1e+3", "1E3", "1Ki", "1m", "1.0001m", "1e18", "1e-99", "1e99",
    "Ki", "m", "e3", ".", "+", "+.", "1.", "..", "E", "E3", "-Ki", ".e3", "1.e3", "00", "1e0003", "\u00a01",
    "1\u00a0", "\t1", "1\n", "   ", "1e+", "1e-3",
    "9223372036854775808Ki", "500m", "2", "4Gi", "512Mi", "1e3", "100n", "3u", "7k", "8M", "9G", "1T", "2P", "3E",
]  # fmt: skip


def _pod(quantity: str) -> dict[str, object]:
    resources = {"requests": {"cpu": quantity}, "limits": {"cpu": quantity}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": resources}]},
    }


def test_quantity_syntax_agrees_with_the_api_server(tmp_path: Path) -> None:
    import json
    import subprocess

    from tests.conftest import run_cli
    from tests.realcomp import realcomp_bin

    pods = tmp_path / "pods.yaml"
    pods.write_text("---\n".join(json.dumps(_pod(q)) + "\n" for q in SYNTAX_CASES), encoding="utf-8")
    done = subprocess.run(
        [str(realcomp_bin("core-validate")), str(pods)], capture_output=True, text=True, timeout=60, check=False
    )
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(verdicts) == len(SYNTAX_CASES), done.stderr
    for quantity, verdict in zip(SYNTAX_CASES, verdicts, strict=True):
        server_ok = not verdict["errors"]
        single = tmp_path / "one.yaml"
        single.write_text(json.dumps(_pod(quantity)), encoding="utf-8")
        ours = run_cli(["validate", "-q", str(single)])
        assert (ours.exit_code == 0) == server_ok, (quantity, verdict["errors"], ours.stdout + ours.stderr)


def test_an_absurd_exponent_is_an_error_not_a_crash(tmp_path: Path) -> None:
    """`cpu: '1e999999999'` was an internal error (exit 3); the server itself spends minutes on it."""
    from tests.conftest import run_cli
    from tests.helpers import container, job, replica

    spec = job(name="j", Worker=replica(1, containers=[container(resources={"requests": {"cpu": "1e999999999"}})]))
    (tmp_path / "j.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    for command in ("render", "validate"):
        result = run_cli([command, str(tmp_path / "j.yaml")])
        assert result.exit_code == 1 and "not a Kubernetes quantity" in result.stdout + result.stderr, result.stderr


@pytest.mark.parametrize("sign", ["", "+", "-"])
def test_the_pattern_and_the_diagnostic_share_one_exponent_bound(sign: str) -> None:
    """QUANTITY_PATTERN spells MAX_EXPONENT out digit by digit; the MXJ103 message quotes the constant."""
    from mxjob_gitops.compiler.base.quantity import MAX_EXPONENT, QUANTITY_PATTERN

    pattern = re.compile(QUANTITY_PATTERN)
    assert pattern.match(f"1e{sign}{MAX_EXPONENT}") and pattern.match(f"1e{sign}000{MAX_EXPONENT - 1}")
    assert not pattern.match(f"1e{sign}{MAX_EXPONENT + 1}")
