"""The guard around every command: known failures become exit codes, anything else an internal error (exit 3).

Standard error is escaped line by line while a command runs (io.stdstreams.EscapedLines), so no name printed can
forge a line.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TextIO, cast

import click

from mxjob_gitops.compiler.base.escape import terminal
from mxjob_gitops.compiler.cli.exits import INTERNAL, USAGE, Exit
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.stdstreams import EscapedLines, drop_stdout
from mxjob_gitops.compiler.io.verbosity import verbosity


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Map known failures to exit codes; anything unexpected is an internal error (exit 3) with a short note."""
    stderr = sys.stderr
    sys.stderr = cast(TextIO, EscapedLines(stderr))
    try:
        yield
    except Exit as exc:
        sys.exit(exc.code)
    except click.ClickException:
        raise  # usage errors: click prints them with the usage line, exit 2
    except CommandError as exc:
        click.echo(f"mxjob: {terminal(str(exc))}", err=True)
        sys.exit(USAGE)
    except BrokenPipeError:
        drop_stdout()
        sys.exit(USAGE)
    except OSError as exc:
        # The environment, not a bug: a full disk (`> /dev/full`), a permission, a path that is not a directory.
        # Files are opened by path (the error names it); a write without a name went to standard output.
        where = os.fsdecode(exc.filename) if exc.filename else "standard output"
        click.echo(terminal(f"mxjob: {where}: {exc.strerror or exc}"), err=True)
        drop_stdout()
        sys.exit(USAGE)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        if verbosity() > 0:
            import traceback  # only for -v: the module and textwrap cost ~1.5 ms of every start-up

            traceback.print_exc()
        click.echo(
            terminal(f"mxjob: internal error: {type(exc).__name__}: {exc} ")
            + "(run again with -v for a traceback and please report it)",
            err=True,
        )
        sys.exit(INTERNAL)
    finally:
        sys.stderr = stderr
