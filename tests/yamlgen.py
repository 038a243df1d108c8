"""Generated YAML for the readers' tests: scalars in every style (plain, quoted, block), keys that need care, block
and flow collections. tests/test_exact_mode.py runs them through the CLI with the
fast paths on and off; tests/test_fastread.py reads them with kubectl's reader."""

from __future__ import annotations

import json

from hypothesis import strategies as st

# Generated documents: scalars in every style, keys that need care, block and flow collections.
PLAIN = [
    "0", "1", "-1", "10", "1.5", "1e3", "-0", ".5", "1.", "true", "false", "null", "", "x", "a b", "12:30", "yes",
    "~", "0x1F", "010", "+1", "1_000", "inf", "nan", ".inf", "Null", "True", "<<", "1e400", "-", "v1.2", "é",
    "0.30000000000000004", "18446744073709551616", "9223372036854775808", "5e-324", "2001-12-14",
]  # fmt: skip
_KEYS = st.sampled_from(["a", "b", "1", "true", "null", "yes", "~", "<<", "1.0", "0x1", "-0", "é", "k k"])


@st.composite
def yaml_scalar(draw: st.DrawFn, indent: int) -> str:
    text = draw(st.sampled_from(PLAIN) | st.text("ab1 .:-'\"#\\\n", max_size=6))
    style = draw(st.sampled_from(["plain", "single", "double", "literal", "folded"]))
    if style == "plain":
        return text
    if style == "single":
        return "'" + text.replace("'", "''") + "'"
    if style == "double":
        return json.dumps(text, ensure_ascii=draw(st.booleans()))
    pad = " " * (indent + 2)
    body = "".join(pad + line + "\n" for line in (text.split("\n") or [""]))
    return ("|" if style == "literal" else ">") + draw(st.sampled_from(["", "-", "+"])) + "\n" + body.rstrip("\n")


@st.composite
def yaml_block(draw: st.DrawFn, depth: int = 0, indent: int = 0) -> str:
    """A block mapping or sequence at `indent`, its entries on their own lines (no trailing line break)."""
    pad = " " * indent
    entries = []
    is_map = depth == 0 or draw(st.booleans())
    for _ in range(draw(st.integers(1, 3))):
        lead = pad + (draw(_KEYS) + ":" if is_map else "-")
        choice = draw(st.integers(0, 4)) if depth < 3 else 0
        if choice <= 1:
            entries.append(lead + " " + draw(yaml_scalar(indent)))
        elif choice == 2:
            items = draw(st.lists(st.sampled_from(PLAIN[:12]) | st.just("'q'"), max_size=3))
            entries.append(lead + " [" + ", ".join(i for i in items if i) + "]")
        else:
            entries.append(lead + "\n" + draw(yaml_block(depth + 1, indent + 2)))
    return "\n".join(entries)
