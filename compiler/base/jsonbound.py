"""JSON records read back from the cluster (a rendered job's ConfigMap `job.json`), loaded only within bounds:
size and nesting are checked before json.loads, whose C decoder would otherwise meet JSON nested 100,000 deep
with RecursionError. Called by compiler.options (RenderOptions.from_config_map), which the reconciler uses."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from mxjob_gitops.compiler.base.limits import MAX_DEPTH

# A ConfigMap holds at most 1 MiB of data (k8s.io/api core/v1 ConfigMap; apimachinery MaxSecretSize): a record
# larger than that was not written by a render.
MAX_RECORD_CHARS: Final = 1024 * 1024
_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET: Final = re.compile(r"[\[\]{}]")


def load_record(text: str) -> Any:
    """json.loads(text), or ValueError saying which bound it breaks or why it is not JSON."""
    if len(text) > MAX_RECORD_CHARS:
        raise ValueError(f"{len(text):,} characters; a record holds at most {MAX_RECORD_CHARS:,}")
    if text.count("[") + text.count("{") > MAX_DEPTH:
        depth = 0
        for bracket in _BRACKET.finditer(_STRING.sub("", text)):
            depth += 1 if bracket.group() in "[{" else -1
            if depth > MAX_DEPTH:
                raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    except RecursionError:  # not reached after the scan above; kept so that no input escapes as an internal error
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
