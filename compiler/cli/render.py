"""`mxjob render`: MXJob specs in, ConfigMap + Services + Pods + MXJob out (stdout or an output directory)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from mxjob_gitops.compiler.cli.common import FORMATS, NO_OBJECTS
from mxjob_gitops.compiler.cli.exits import FINDINGS, USAGE, Exit, fail
from mxjob_gitops.compiler.cli.flags import (
    filename_option,
    format_option,
    kustomize_option,
    paths_or_stdin,
    quiet,
    verbosity_options,
)
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import render_options, shard_layout, shard_options, unit_options
from mxjob_gitops.compiler.cli.startup import paused_gc
from mxjob_gitops.compiler.render.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.io.shards import ShardLayout
    from mxjob_gitops.compiler.io.streamed import StreamedInput
    from mxjob_gitops.compiler.io.unitmeter import Meter
    from mxjob_gitops.compiler.render.gitopsunits import UnitSettings

T = TypeVar("T")

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
    paths = paths_or_stdin(paths)
    guard = shard_size is None and options.target.value in ("argocd", "flux")  # the size guard: MXJ330
    with guarded(), paused_gc():
        if output_dir is None:
            _render_stream(paths, options, fmt, guard)
            return
        layout = shard_layout(shard_size, move_jobs)
        if units is not None and shard_size is not None:
            from mxjob_gitops.compiler.io.unitlayout import unit_layout

            layout = unit_layout(shard_size, move_jobs, options, units, output_dir, repo_path)
        _render_to_dir(paths, options, fmt, output_dir, follow_output_symlink, layout, guard)


def finish(streamed: StreamedInput) -> None:
    """Report every diagnostic; exit 1 on errors, 2 when the input held no object."""
    from mxjob_gitops.compiler.base.diagnostics import has_errors
    from mxjob_gitops.compiler.cli.stderr import report

    report(streamed.render.diagnostics, quiet=quiet())
    if has_errors(streamed.render.diagnostics):
        raise Exit(FINDINGS)
    if not streamed.render.valid_items:
        raise fail(NO_OBJECTS, USAGE)


def checked_outputs(streamed: StreamedInput, outputs: Iterator[T]) -> Iterator[T]:
    """outputs (of streamed.outputs or .grouped), then finish(): a consumer that stops at the exception has seen
    nothing invalid."""
    yield from outputs
    finish(streamed)


def _metered(streamed: StreamedInput, each: Callable[[dict[str, Any]], T], meter: Meter | None) -> Iterator[T]:
    """streamed.outputs(each), measured by `meter` when there is one (the size guard)."""
    return streamed.outputs(each) if meter is None else meter.count(streamed.outputs(meter.each(each)))


def _warn_size(meter: Meter | None, options: RenderOptions, directory: bool) -> None:
    """MXJ330 when an unsharded render passes what one Argo CD Application or Flux Kustomization holds."""
    if meter is not None:
        from mxjob_gitops.compiler.cli.stderr import report
        from mxjob_gitops.compiler.integrations.unitlimits import unit_warnings

        report(unit_warnings(options.target, meter.measure, directory=directory), quiet=quiet())


def _render_stream(paths: tuple[str, ...], options: RenderOptions, fmt: str, guard: bool) -> None:
    """Render to standard output one job at a time (compiler.stream), the output held back until all is valid."""
    from mxjob_gitops.compiler.io.heldout import HeldOutput, regular_stdout
    from mxjob_gitops.compiler.io.streamed import StreamedInput
    from mxjob_gitops.compiler.render.emit import json_list_item, write_json_texts, write_yaml_texts

    streamed = StreamedInput(paths, options, [], check_first=not regular_stdout())
    held = HeldOutput(checked=lambda: streamed.render.checked)
    meter = None
    if guard:
        from mxjob_gitops.compiler.io.unitmeter import Meter, text_size

        meter = Meter(text_size)
    try:
        if fmt == "json":
            write_json_texts(_metered(streamed, json_list_item, meter), held)
        else:
            write_yaml_texts(_metered(streamed, streamed.emitter.to_yaml, meter), held)
        finish(streamed)
    except BaseException:
        held.discard()
        raise
    held.release()
    _warn_size(meter, options, directory=False)


def _render_to_dir(
    paths: tuple[str, ...],
    options: RenderOptions,
    fmt: str,
    output_dir: Path,
    follow_symlink: bool,
    layout: ShardLayout | None,
    guard: bool,
) -> None:
    """Render into DIR one job at a time: files are staged as they come and committed only when the whole input
    was valid (cli.output_dir). A failed render leaves no directory it created behind."""
    from mxjob_gitops.compiler.io.output_dir import (
        LOCK_TIMEOUT_SECONDS,
        OutputError,
        Vouching,
        file_entry,
        lock_timeout,
        missing_directories,
        remove_empty,
        write_output_dir,
    )
    from mxjob_gitops.compiler.io.streamed import StreamedInput
    from mxjob_gitops.compiler.render.emit import to_json

    lock_timeout(LOCK_TIMEOUT_SECONDS)  # a bad MXJOB_LOCK_TIMEOUT is a usage error before anything is read or made
    streamed = StreamedInput(paths, options, [output_dir], check_first=False)
    if not streamed.render.ok:
        finish(streamed)  # an input that does not parse: not even the directory is created
    serialise, suffix = (to_json, ".json") if fmt == "json" else (streamed.emitter.to_yaml, ".yaml")
    missing = missing_directories(output_dir)
    vouching = Vouching()
    each = functools.partial(file_entry, serialise=serialise, suffix=suffix, vouching=vouching)
    from mxjob_gitops.compiler.io.unitmeter import Meter, entry_size

    meter = Meter(entry_size(output_dir)) if guard and layout is None else None
    grouped = streamed.grouped(each, layout.vouching(vouching)) if layout is not None else None
    entries: Iterator[Any] = checked_outputs(streamed, grouped or _metered(streamed, each, meter))
    in_parts = vouching if streamed.render.in_parts else None
    try:
        summary = write_output_dir(output_dir, entries, follow_symlink=follow_symlink, in_parts=in_parts, layout=layout)
    except (Exit, OutputError) as exc:
        remove_empty(missing)
        if isinstance(exc, OutputError):
            for _entry in entries:  # errors in the rest of the input come first (exit 1)
                pass
        raise
    for line in layout.report(quiet()) if layout is not None else ():
        click.echo(f"mxjob: {output_dir}: {line}", err=True)
    _warn_size(meter, options, directory=True)
    if not quiet():
        click.echo(
            f"mxjob: {output_dir}: {summary.written} written, {summary.unchanged} unchanged, {summary.removed} removed",
            err=True,
        )
    if summary.kept:
        from mxjob_gitops.compiler.base.escape import terminal

        click.echo(
            f"mxjob: {output_dir}: kept {len(summary.kept)} file(s) an earlier render wrote and this one no longer "
            f"does, because they changed since (or an older mxjob recorded them): {terminal(', '.join(summary.kept))}"
            "; remove them if they are not needed",
            err=True,
        )
