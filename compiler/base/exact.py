"""MXJOB_EXACT, the one switch of the fast paths: each shortcut gives way to its exact twin when it is off.

`MXJOB_EXACT=1` turns every one off (for bug reports: a difference with and without is a shortcut's bug);
a comma-separated list of the names below turns off those alone (bench/exact_bench.py prices each one that
way). The command line reads the variable once per invocation into its run (base.run.Run.off, built by
io/runcontext.py); the rooms ask `exact(NAME)` where a shortcut stands beside the exact path it must equal.
"""

from __future__ import annotations

from typing import Final

from mxjob_gitops.compiler.base.run import Run, current_run

# Every fast path, by name, and where its exact twin is.
SHORTCUTS: Final = {
    "reader": "read.fastread (rapidyaml, text-cut documents) beside read.source's PyYAML reading",
    "memo": "rules.kubevalidate.memo (pod specs found valid before) beside checking every spec",
    "acceptance": "validate.kubeschema.accepted_fast (the compiled validator) beside jsonschema's",
    "parts": "forked workers (base.fanout, io.forked) beside one process",
    "shared": "a diff's shared parses and compile memo (io.inputs.SharedParses, compile.jobcache) beside none",
    "statcache": "render -o's stat record (io.statcache) beside reading every file it owns",
    "representatives": "compile.judge judging the pods and Services of each type's highest index beside every one",
}


def exact(shortcut: str, run: Run | None = None) -> bool:
    """Whether the named fast path is off in `run` (None: the current run)."""
    return shortcut in (run if run is not None else current_run()).off


def shortcuts_off(setting: str) -> frozenset[str]:
    """MXJOB_EXACT's value read: empty or `0` keeps every fast path, `1` (or `all`) turns every one off, else the
    comma-separated names in SHORTCUTS; ValueError names one that is not."""
    names = {name.strip() for name in setting.split(",") if name.strip()} - {"0"}
    if names & {"1", "all"}:
        return frozenset(SHORTCUTS)
    unknown = sorted(names - set(SHORTCUTS))
    if unknown:
        raise ValueError(f"{unknown[0]!r} is no fast path: use 1 (all), or names among {', '.join(SHORTCUTS)}")
    return frozenset(names)


def set_exact(setting: str) -> None:
    """Turn off in the current run the fast paths `setting` names, as MXJOB_EXACT does (shortcuts_off); the others
    come back on. For library callers and tests; the command line builds its run with them (io/runcontext.py)."""
    current_run().off = shortcuts_off(setting)
