"""`mxjob convert`: print MXJob specs of any supported version in the kubeflow.org/v1 form."""

from __future__ import annotations

import click

from mxjob_gitops.compiler.cli.common import FORMATS, build_plan
from mxjob_gitops.compiler.cli.flags import (
    filename_option,
    format_option,
    kustomize_option,
    paths_or_stdin,
    quiet,
    verbosity_options,
)
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.io.heldout import write_stream
from mxjob_gitops.compiler.io.startup import paused_gc


@click.command(short_help="Print MXJob specs converted to kubeflow.org/v1.")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@kustomize_option
@filename_option
@format_option(FORMATS, "yaml", "How to print: a YAML stream, or a JSON v1 List.")
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
    from mxjob_gitops.compiler.render.options import RenderOptions

    paths = paths_or_stdin(paths)
    if in_place:
        from mxjob_gitops.compiler.io.kustomize import Kustomization

        if any(isinstance(p, Kustomization) for p in paths):
            raise click.UsageError("-i rewrites files; what -k builds is no file (convert the base's files)")
        _in_place(paths)
        return
    with guarded(), paused_gc():
        plan = build_plan(paths, RenderOptions(), quiet=quiet(), defaults=False)
        write_stream(plan.converted(), fmt)


def _in_place(paths: tuple[str, ...]) -> None:
    from mxjob_gitops.compiler.cli.common import report_or_stop
    from mxjob_gitops.compiler.io.inplace import convert_in_place

    with guarded():
        changed, unchanged, diagnostics = convert_in_place(paths, quiet())
        report_or_stop(diagnostics, quiet=quiet())
        if not quiet():
            click.echo(f"mxjob: {changed} file{'s' if changed != 1 else ''} converted, {unchanged} unchanged", err=True)
