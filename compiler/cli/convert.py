"""`mxjob convert`: print MXJob specs of any supported version in the kubeflow.org/v1 form."""

from __future__ import annotations

import click

from mxjob_gitops.compiler.cli.common import FORMATS, build_plan, paused_gc, write_stream
from mxjob_gitops.compiler.cli.exits import guarded
from mxjob_gitops.compiler.cli.flags import filename_option, paths_or_stdin, quiet, verbosity_options


@click.command(short_help="Print MXJob specs converted to kubeflow.org/v1.")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@filename_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="yaml",
    show_default=True,
    help="How to print: a YAML stream, or a JSON v1 List.",
)
@click.option(
    "-i",
    "--in-place",
    is_flag=True,
    help="Rewrite the files instead of printing: only the MXJobs that change, keeping comments, key "
    "order and formatting of everything else; nothing is written unless every file converts.",
)
@verbosity_options
def convert(paths: tuple[str, ...], fmt: str, in_place: bool) -> None:
    """Convert v1alpha1, v1alpha2, v1beta1 and flat-v1 MXJobs in PATH... to kubeflow.org/v1.

    Defaults are not filled in; other documents are printed unchanged. The result is validated first.
    """
    from mxjob_gitops.compiler.options import RenderOptions

    paths = paths_or_stdin(paths)
    if in_place:
        _in_place(paths)
        return
    with guarded(), paused_gc():
        plan = build_plan(paths, RenderOptions(), quiet=quiet(), defaults=False)
        write_stream(plan.converted(), fmt)


def _in_place(paths: tuple[str, ...]) -> None:
    from mxjob_gitops.compiler.cli.exits import FINDINGS, Exit
    from mxjob_gitops.compiler.cli.inplace import convert_in_place
    from mxjob_gitops.compiler.cli.report import report
    from mxjob_gitops.compiler.diagnostics import has_errors

    with guarded():
        changed, unchanged, diagnostics = convert_in_place(paths, quiet())
        report(diagnostics, quiet=quiet())
        if has_errors(diagnostics):
            raise Exit(FINDINGS)
        if not quiet():
            click.echo(f"mxjob: {changed} file{'s' if changed != 1 else ''} converted, {unchanged} unchanged", err=True)
