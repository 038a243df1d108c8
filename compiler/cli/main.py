"""The `mxjob` entry point: imports the click group (cli/group.py) and then the command it runs, both with the
cyclic collector paused (io/startup.py)."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.io.startup import import_paused


def main(args: Any = None) -> None:
    import_paused("mxjob_gitops.compiler.cli.group")
    from mxjob_gitops.compiler.cli.group import cli

    cli.main(args=args, prog_name="mxjob")
