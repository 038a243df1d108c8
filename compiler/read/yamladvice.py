"""What a YAML syntax error says, with the detail libyaml's composer leaves out: the name of an undefined alias
and, when its anchor comes later in the text, where (an alias may only follow its anchor: YAML 1.2 section 7.1).
Called by compiler.source when it reports a parse error."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from mxjob_gitops.compiler.base.diagnostics import Location

_ALIAS: Final = re.compile(r"\*([^\s,\[\]{}]+)")
_UNDEFINED: Final = "found undefined alias"
DEFAULT_HINT: Final = "fix the YAML; nothing from this file was used"


def syntax_error(what: str, text: str, index: int | None, where: Callable[[int], Location]) -> tuple[str, str]:
    """(message, hint) for a parse error whose parser text is `what`, found at character `index` of `text`."""
    if not what.endswith(_UNDEFINED) or index is None:
        return f"YAML syntax error: {what}", DEFAULT_HINT
    alias = _ALIAS.match(text, index)
    if alias is None:
        return f"YAML syntax error: {what}", DEFAULT_HINT
    name = alias.group(1)
    anchor = re.search(r"&" + re.escape(name) + r"(?=[\s,\[\]{}]|\Z)", text[index:])
    message = f"YAML syntax error: {what} {name!r}"
    if anchor is None:
        return message, f"define the anchor &{name} before *{name}, or write the value; nothing from this file was used"
    later = where(index + anchor.start())
    return (
        f"{message}: its anchor &{name} comes later, at line {later.line}, and an alias may only follow its anchor",
        f"move &{name} to the first use and write *{name} in the later ones; nothing from this file was used",
    )
