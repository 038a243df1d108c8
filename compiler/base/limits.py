"""Resource limits for untrusted input, each checked before the work it protects; the one place their values live.

Reused outside the compiler: the reconciler bounds the jobs it renders with DEFAULT_MAX_PODS, so that a job
Git accepted is never refused in the cluster (and the reverse). docs/limits.md explains every value.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, error
from mxjob_gitops.compiler.base.jsonutil import as_dict

# Pods (all replica types together) one MXJob may render; `--max-pods` raises it. MX_CONFIG names every pod
# in every pod, so the rendering grows with the square of this: 1,000 pods render to about 40 MB.
DEFAULT_MAX_PODS: Final = 1000
# One input file (or standard input), in bytes, read before any parsing.
MAX_INPUT_BYTES: Final = 64 * 1024 * 1024
# Nesting of mappings and sequences; real manifests (CRDs included) stay far below it.
MAX_DEPTH: Final = 200
# Nodes a document may expand to once its aliases are followed (documents without anchors are not counted).
MAX_EXPANDED_NODES: Final = 1_000_000
# What one render may write, estimated from the jobs before any manifest is built (see output_limit).
MAX_OUTPUT_BYTES: Final = 512 * 1024 * 1024
# Nodes one document may hold, aliases or not (checked from the parser's events before anything is composed).
MAX_DOCUMENT_NODES: Final = MAX_EXPANDED_NODES
# One run, every channel together (files, directories, stdin, Git blobs, KRM input): bytes read, files read,
# and nodes that aliases add (so many small amplifying documents cannot add up to what one may not).
MAX_RUN_INPUT_BYTES: Final = 1024 * 1024 * 1024
MAX_RUN_FILES: Final = 50_000
MAX_RUN_ALIAS_NODES: Final = 10 * MAX_EXPANDED_NODES
# Documents of one run, every channel together: each costs a parse and an object even when empty (16 MB of `---`
# lines are 4 million documents), and each may bring a diagnostic. A rendering of 1,000 pods is about 2,000.
MAX_RUN_DOCUMENTS: Final = 100_000
# MXJobs one `convert --in-place` rewrites (each is a round trip through ruamel.yaml, about 25 ms; the documents
# around them are kept as text and cost nothing).
MAX_IN_PLACE_JOBS: Final = 1_000
# Directories below an input path (and path components below it in a Git revision); the walk is iterative.
MAX_DIRECTORY_DEPTH: Final = 100
# The largest `render -o DIR --shard-size N` (compiler.compile.shards; the option's range is checked before the
# shard code is imported).
MAX_SHARD_SIZE: Final = 100_000


@dataclass(frozen=True, slots=True)
class RunLimits:
    """The budgets of one run a user may change (io.limitenv reads them from MXJOB_MAX_* variables, within
    LIMIT_BOUNDS); the defaults are the constants above and compiler.base.printcap's."""

    documents: int = MAX_RUN_DOCUMENTS
    printed: int = 1_000  # printcap.MAX_PRINTED_DIAGNOSTICS (printcap imports this module)
    directory_depth: int = MAX_DIRECTORY_DEPTH
    in_place_jobs: int = MAX_IN_PLACE_JOBS


# field -> (environment variable, lowest, highest value accepted, what it bounds)
LIMIT_BOUNDS: Final = {
    "documents": ("MXJOB_MAX_DOCUMENTS", 1, 10_000_000, "documents one run reads"),
    "printed": ("MXJOB_MAX_PRINTED_DIAGNOSTICS", 1, 10_000_000, "diagnostics one command prints"),
    "directory_depth": ("MXJOB_MAX_DIRECTORY_DEPTH", 1, 10_000, "directory levels below an input path"),
    "in_place_jobs": ("MXJOB_MAX_IN_PLACE_JOBS", 1, 100_000, "MXJobs one convert --in-place rewrites"),
}
_DEFAULT_LIMITS: Final = RunLimits()
_limits: ContextVar[RunLimits | None] = ContextVar("mxjob_run_limits", default=None)


def run_limits() -> RunLimits:
    """This run's limits (the defaults unless the command set others: set_run_limits)."""
    return _limits.get() or _DEFAULT_LIMITS


def set_run_limits(limits: RunLimits) -> None:
    _limits.set(limits)


def pod_count_problems(data: dict[str, Any], max_pods: int) -> list[Diagnostic]:
    """Replicas per type and pods per job above max_pods (a v1 job that passed its schema)."""
    replicas = as_dict(as_dict(data.get("spec")).get("mxReplicaSpecs"))
    found: list[Diagnostic] = []
    total = 0
    for replica_type, spec in replicas.items():
        count = as_dict(spec).get("replicas", 1)
        if not isinstance(count, int) or isinstance(count, bool):
            continue
        total += max(count, 0)
        if count > max_pods:
            found.append(
                error(
                    Code.LIMIT_EXCEEDED,
                    f"{replica_type} has {count:,} replicas; a job may have at most {max_pods:,} pods",
                    ("spec", "mxReplicaSpecs", replica_type, "replicas"),
                    "pass --max-pods N to allow more; the rendering grows with the square of N",
                )
            )
    if total > max_pods and not found:
        found.append(
            error(
                Code.LIMIT_EXCEEDED,
                f"the job has {total:,} pods; at most {max_pods:,} are allowed",
                ("spec", "mxReplicaSpecs"),
                "pass --max-pods to allow more",
            )
        )
    return found


def estimated_output_bytes(jobs: Iterable[tuple[str, int, Any]]) -> int:
    """An upper estimate of what rendering jobs (name, pods, templates) writes, from their sizes alone."""
    return sum(
        job_output_bytes(name, pods, len(json.dumps(templates, ensure_ascii=False, default=str)))
        for name, pods, templates in jobs
    )


def job_output_bytes(name: str, pods: int, template_bytes: int) -> int:
    """estimated_output_bytes for one job whose templates take about `template_bytes` as text."""
    return pods * (template_bytes + 2048) + pods * pods * (len(name) + 48)


def output_limit(max_pods: int) -> int:
    """MAX_OUTPUT_BYTES, raised with the square of --max-pods above its default (one job that large fits)."""
    return MAX_OUTPUT_BYTES * max(1, math.ceil((max_pods / DEFAULT_MAX_PODS) ** 2))


def output_problem(estimate: int, max_pods: int) -> Diagnostic | None:
    limit = output_limit(max_pods)
    if estimate <= limit:
        return None
    return error(
        Code.LIMIT_EXCEEDED,
        f"with this job the rendering would be about {estimate // 2**20:,} MiB; "
        f"at most {limit // 2**20:,} MiB are written",
        ("spec", "mxReplicaSpecs"),
        "render fewer or smaller jobs per run (a higher --max-pods also raises this limit)",
    )


@dataclass(slots=True)
class RunBudget:
    """What this run has read so far, over every input channel (one per run: base.run.Run)."""

    input_bytes: int = 0
    files: int = 0
    alias_nodes: int = 0
    documents: int = 0

    def charge_file(self, size: int) -> str | None:
        """Count one input of `size` bytes; why the run must stop, or None."""
        self.files += 1
        self.input_bytes += size
        if self.files > MAX_RUN_FILES:
            return f"more than {MAX_RUN_FILES:,} input files in one run"
        if self.input_bytes > MAX_RUN_INPUT_BYTES:
            return f"more than {MAX_RUN_INPUT_BYTES:,} bytes of input in one run"
        return None


# A line that starts a document (`---`) or ends one (`...`), as libyaml reads it at column 0 in any context.
# Searched from its line break (a leading literal: a `^` anchor made the scan of a large text several times slower);
# a marker on the text's first line is looked at on its own.
_DOCUMENT_LINE: Final = re.compile(r"\n(?:---|\.\.\.)(?=[ \t\r\n]|\Z)")


def document_count_problem(text: str, budget: RunBudget) -> int | None:
    """Charge the run's budget with the documents the text may hold; where (a character index) the run first goes
    over the run's document limit (run_limits), or None.

    A text holds at most one document more than it has marker lines (`---`, `...`); they are counted before any
    parse, and the count stops at the first marker past the budget (16 MB of `---` lines are refused in about
    0.1 s instead of taking 42 s and 1.4 GB to parse).
    """
    most = run_limits().documents
    left = most - budget.documents
    if left < 1:
        return 0
    found = 1
    first = _DOCUMENT_LINE.match("\n" + text[:4])
    starts = itertools.chain([0] if first else [], (match.start() + 1 for match in _DOCUMENT_LINE.finditer(text)))
    for start in starts:
        found += 1
        if found > left:
            budget.documents = most + 1
            return start
    budget.documents += found
    return None


def list_items_problem(count: int, budget: RunBudget) -> int | None:
    """Charge the run's document budget with the items of one `kind: *List` document beyond the one document it was
    charged as (each item is an object, as a document is); the position of the first item past the budget, or
    None. A List of 400,000 `{}` items took 37 s and printed 400,000 findings."""
    most = run_limits().documents
    left = most - budget.documents
    if count - 1 <= left:
        budget.documents += max(count - 1, 0)
        return None
    budget.documents = most + 1
    return max(left + 1, 0)
