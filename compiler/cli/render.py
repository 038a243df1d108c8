"""`mxjob render`: MXJob specs in, ConfigMap + Services + Pods + MXJob out (stdout or an output directory)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mxjob_gitops.compiler.cli.common import FORMATS, NO_OBJECTS
from mxjob_gitops.compiler.cli.exits import USAGE, fail
from mxjob_gitops.compiler.cli.flags import (
    filename_option,
    format_option,
    kustomize_option,
    paths_or_stdin,
    quiet,
    verbosity_options,
)
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import render_options, shard_options, unit_options
from mxjob_gitops.compiler.io.startup import paused_gc
from mxjob_gitops.compiler.render.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.base.diagnostics import Diagnostic
    from mxjob_gitops.compiler.io.streamed import StreamedInput
    from mxjob_gitops.compiler.render.gitopsunits import UnitSettings

# kubectl's `-o json` prints JSON; ours names a directory. A directory called like an output format is
# almost always that habit, so it is refused unless written as a path (./json) or already there.
_FORMAT_WORDS = frozenset({"yaml", "yml", "json", "wide", "name"})


def check_output_dir(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Path | None:
    if value is None:
        return None
    if value in _FORMAT_WORDS and not Path(value).is_dir():
        wanted = "json" if value == "json" else "yaml"
        raise click.BadParameter(
            f"-o is the output directory here, not kubectl's output format: did you mean "
            f"--format {wanted}? (to write into a directory named {value}, give -o ./{value})"
        )
    return Path(value)


@click.command(short_help="Render MXJob specs into Kubernetes manifests.")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@kustomize_option
@filename_option
@format_option(FORMATS, "yaml", "How to print: a YAML stream, or a JSON v1 List.")
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(file_okay=False),
    callback=check_output_dir,
    metavar="DIR",
    help="Write one file per object plus kustomization.yaml into DIR instead of printing.",
)
@click.option(
    "--follow-output-symlink",
    is_flag=True,
    help="Let DIR or a directory above it be a symbolic link (refused by default: in a checked-out pull "
    "request one can send the files anywhere).",
)
@unit_options
@shard_options
@render_options
@verbosity_options
def render(
    paths: tuple[str, ...],
    fmt: str,
    output_dir: Path | None,
    follow_output_symlink: bool,
    options: RenderOptions,
    shard_size: int | None,
    move_jobs: tuple[str, ...],
    units: UnitSettings | None,
    repo_path: str | None,
) -> None:
    """Render MXJob specs in PATH... (files, directories, or - for stdin; no PATH reads a piped stdin)
    into explicit manifests.

    Other Kubernetes objects in the input pass through unchanged. Nothing is printed or written
    unless every input is valid.
    """
    if shard_size is not None and output_dir is None:
        raise click.UsageError("--shard-size lays out the output directory: give -o DIR with it")
    if move_jobs and shard_size is None:
        raise click.UsageError("--move-job moves a job between shards: give -o DIR --shard-size N with it")
    from mxjob_gitops.compiler.io.renderout import render_stream, render_to_dir
    from mxjob_gitops.compiler.io.runcontext import built_run

    paths = paths_or_stdin(paths)
    guard = shard_size is None and options.target.value in ("argocd", "flux")  # the size guard: MXJ330
    with guarded(), paused_gc():
        if output_dir is None:
            render_stream(paths, options, fmt, guard, finish, _report, run=built_run())
            return
        from mxjob_gitops.compiler.io.unitlayout import output_layout

        layout = output_layout(shard_size, move_jobs, options, units, output_dir, repo_path)
        render_to_dir(
            paths, options, fmt, output_dir, follow_output_symlink, layout, guard, finish, _report, run=built_run()
        )


def finish(streamed: StreamedInput) -> None:
    """Report every diagnostic; exit 1 on errors, 2 when the input held no object."""
    from mxjob_gitops.compiler.cli.common import report_or_stop

    report_or_stop(streamed.diagnostics, quiet=quiet())
    if not streamed.render.valid_items:
        raise fail(NO_OBJECTS, USAGE)


def _report(diagnostics: Sequence[Diagnostic]) -> None:
    from mxjob_gitops.compiler.cli.common import report

    report(diagnostics, quiet=quiet())
