"""The run context of one command invocation (base.run.Run), built from the environment: the fast paths MXJOB_EXACT
turns off, forked workers (io.forked; as many as MXJOB_JOBS or the CPUs allow, one when `parts` is off), and file
descriptor 2 silenced around native parses (io.quietfd). cli.group builds it before the command runs and installs
it for the command's duration; a bad variable is a CommandError (exit 2). Its notes go to standard error unless
-q (StderrNotes)."""

from __future__ import annotations

import os

import click

from mxjob_gitops.compiler.base.exact import shortcuts_off
from mxjob_gitops.compiler.base.limits import set_run_limits
from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.forked import configured_workers, run_forked
from mxjob_gitops.compiler.io.limitenv import limits_from
from mxjob_gitops.compiler.io.quietfd import quiet_stderr
from mxjob_gitops.compiler.io.verbosity import quiet

# Where cli.group keeps the run it built for the command (click's context meta, shared by the command's context).
RUN_KEY = "mxjob_gitops.run"


def built_run() -> Run:
    """The run cli.group built for the running command, which the commands pass to the compiler's entry points
    (the installed run outside a command)."""
    ctx = click.get_current_context(silent=True)
    run = ctx.meta.get(RUN_KEY) if ctx is not None else None
    return run if isinstance(run, Run) else current_run()


class StderrNotes:
    """Notes on standard error, none with -q (the level is read when a note is due: the command's own flags are
    read after its run is built)."""

    def wanted(self) -> bool:
        return not quiet()

    def say(self, text: str) -> None:
        click.echo(text, err=True)


def command_run() -> Run:
    """A new run for one command: its own budget, MXJOB_EXACT's switch, MXJOB_JOBS's workers."""
    try:
        off = shortcuts_off(os.environ.get("MXJOB_EXACT", ""))
    except ValueError as exc:
        raise CommandError(f"MXJOB_EXACT: {exc}") from None
    # MXJOB_MAX_*: a bad value is a usage error naming it. The limits are set apart from the run for now
    # (base.limits.set_run_limits; docs/architecture.md, "The run context").
    set_run_limits(limits_from(os.environ))
    workers = configured_workers()
    workers = 1 if "parts" in off else workers
    return Run(off=off, runner=run_forked, workers=workers, native_guard=quiet_stderr, notes=StderrNotes())
