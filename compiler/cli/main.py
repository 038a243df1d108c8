"""The `mxjob` entry point: a click group whose commands are imported only when they run (fast --help)."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

import click

# Built-in commands; other packages (the reconciler) add theirs through the `mxjob.commands` entry point group,
# so the compiler never imports them.
BUILTIN = {
    "render": ("compiler.cli.render:render", "Render MXJob specs into Kubernetes manifests."),
    "convert": ("compiler.cli.convert:convert", "Print MXJob specs converted to kubeflow.org/v1."),
    "diff": ("compiler.cli.diff:diff",
             "Show what a change to MXJob specs would change in the cluster, object by object."),
    "integrations": ("compiler.cli.integrations:integrations",
                     "Print GitOps integration snippets (MXJob health checks for Argo CD and Flux)."),
    "krm": ("compiler.cli.krm:krm", "Run as a KRM function (ResourceList on stdin and stdout)."),
    "validate": ("compiler.cli.validate:validate",
                 "Check MXJob specs and what they render against strict schemas, offline."),
}


class LazyGroup(click.Group):
    def _targets(self) -> dict[str, tuple[str, str]]:
        targets = dict(BUILTIN)
        for entry in entry_points(group="mxjob.commands"):
            targets.setdefault(entry.name, (entry.value, ""))
        return targets

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._targets())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = BUILTIN.get(cmd_name) or self._targets().get(cmd_name)
        if target is None:
            return None
        module, _, attribute = target[0].partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name, (_, summary) in sorted(self._targets().items()):
            if not summary:
                command = self.get_command(ctx, name)
                summary = command.get_short_help_str() if command else ""
            rows.append((name, summary))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="mxjob-gitops", prog_name="mxjob")
def cli() -> None:
    """Turn Kubeflow MXJob specs into explicit, deterministic Kubernetes manifests for Argo CD and Flux.

    Exit codes: 0 ok, 1 findings (invalid input), 2 usage or input error, 3 internal error.
    """


def main(args: Any = None) -> None:
    cli.main(args=args, prog_name="mxjob")
