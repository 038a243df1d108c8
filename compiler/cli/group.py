"""The `mxjob` click group, whose commands are imported only when they run (fast --help); cli/main.py runs it."""

from __future__ import annotations

import click

from mxjob_gitops.compiler.io.startup import import_paused

# Built-in commands; other packages (the reconciler) add theirs through the `mxjob.commands` entry point group,
# so the compiler never imports them.
_CLI = "mxjob_gitops.compiler.cli"
BUILTIN = {
    "render": (f"{_CLI}.render:render", "Render MXJob specs into Kubernetes manifests."),
    "convert": (f"{_CLI}.convert:convert", "Print MXJob specs converted to kubeflow.org/v1."),
    "diff": (f"{_CLI}.diff:diff", "Show what a change to MXJob specs would change in the cluster, object by object."),
    "integrations": (
        f"{_CLI}.integrations:integrations",
        "Print GitOps integration snippets (MXJob health checks for Argo CD and Flux).",
    ),
    "krm": (f"{_CLI}.krm:krm", "Run as a KRM function (ResourceList on stdin and stdout)."),
    "validate": (
        f"{_CLI}.validate:validate",
        "Check MXJob specs and what they render against strict schemas, offline.",
    ),
    "completion": (f"{_CLI}.completion:completion", "Print the shell completion script (bash, zsh, fish)."),
}


_ARGS = "mxjob.command_args"


class LazyGroup(click.Group):
    def _targets(self) -> dict[str, tuple[str, str]]:
        from importlib.metadata import entry_points  # ~30 ms of imports that a built-in command never needs

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
        command: click.Command = getattr(import_paused(module), attribute)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        ctx.meta[_ARGS] = (command, list(rest))  # for a hint when an option is unknown (invoke)
        return name, command, rest

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as exc:
            command, args = ctx.meta.get(_ARGS, (None, []))
            if command is not None:
                from mxjob_gitops.compiler.report.habits import Command, hint

                options = [param for param in command.params if isinstance(param, click.Option)]
                formats = [
                    tuple(map(str, o.type.choices))
                    for o in options
                    if "--format" in o.opts and isinstance(o.type, click.Choice)
                ]
                spellings = {spelling for option in options for spelling in option.opts}
                said_of = Command(command.name or "", spellings, formats[0] if formats else ())
                typed, said = hint(said_of, args, exc.option_name)
                if said:
                    exc.message = f"No such option {typed!r}: {said}"  # type: ignore[misc]  # click marks it Final
                    exc.possibilities = None  # type: ignore[misc]  # click's Final; the hint replaces its guess
            raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name, (_, summary) in sorted(self._targets().items()):
            if not summary:
                command = self.get_command(ctx, name)
                summary = command.get_short_help_str() if command else ""
            rows.append((name, summary))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class _Epilog(LazyGroup):
    """Exit codes, the output rule and the environment variables, after the commands in --help."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from mxjob_gitops.compiler.cli.flags import ENVIRONMENT

        with formatter.section("Exit codes"):
            formatter.write_text(
                "0 ok, 1 findings (invalid input, differences), 2 usage, input or environment error, 3 internal error."
            )
        with formatter.section("Output"):
            formatter.write_text(
                "What a command produces (manifests, a report, a diff) goes to stdout; "
                "diagnostics (errors, warnings, notes, logs) go to stderr."
            )
        with formatter.section("Environment"):
            formatter.write_dl(ENVIRONMENT)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from mxjob_gitops.compiler.io.version import describe

    click.echo(describe())
    ctx.exit()


@click.group(cls=_Epilog, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print the version, and the Git commit this install was built from, and exit.",
)
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Turn Kubeflow MXJob specs into explicit, deterministic Kubernetes manifests for Argo CD and Flux.

    Shell completion: mxjob completion bash|zsh|fish (see its --help).
    """
    from mxjob_gitops.compiler.base.run import running
    from mxjob_gitops.compiler.cli.guard import guarded
    from mxjob_gitops.compiler.io.runcontext import RUN_KEY, command_run

    with guarded():  # a bad MXJOB_EXACT or MXJOB_JOBS is a usage error, exit 2
        run = command_run()
    ctx.meta[RUN_KEY] = run  # passed by the commands to the compiler (io.runcontext.built_run)
    ctx.with_resource(running(run))  # the command's run context (compiler.base.run), until the command ends
