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
from mxjob_gitops.compiler.cli.render_flags import render_options
from mxjob_gitops.compiler.cli.startup import paused_gc
from mxjob_gitops.compiler.render.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.io.streamed import StreamedInput

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
@render_options
@verbosity_options
def render(
    paths: tuple[str, ...],
    fmt: str,
    output_dir: Path | None,
    follow_output_symlink: bool,
    options: RenderOptions,
) -> None:
    """Render MXJob specs in PATH... (files, directories, or - for stdin; no PATH reads a piped stdin)
    into explicit manifests.

    Other Kubernetes objects in the input pass through unchanged. Nothing is printed or written
    unless every input is valid.
    """
    paths = paths_or_stdin(paths)
    with guarded(), paused_gc():
        if output_dir is None:
            _render_stream(paths, options, fmt)
        else:
            _render_to_dir(paths, options, fmt, output_dir, follow_output_symlink)


def finish(streamed: StreamedInput) -> None:
    """Report every diagnostic; exit 1 on errors, 2 when the input held no object."""
    from mxjob_gitops.compiler.base.diagnostics import has_errors
    from mxjob_gitops.compiler.cli.stderr import report

    report(streamed.diagnostics, quiet=quiet())
    if has_errors(streamed.diagnostics):
        raise Exit(FINDINGS)
    if not streamed.render.valid_items:
        raise fail(NO_OBJECTS, USAGE)


def checked_outputs(streamed: StreamedInput, each: Callable[[dict[str, Any]], T]) -> Iterator[T]:
    """outputs(), then finish(): a consumer that stops at the exception has seen nothing invalid."""
    yield from streamed.outputs(each)
    finish(streamed)


def _render_stream(paths: tuple[str, ...], options: RenderOptions, fmt: str) -> None:
    """Render to standard output one job at a time (compiler.stream), the output held back until all is valid."""
    from mxjob_gitops.compiler.io.heldout import HeldOutput, regular_stdout
    from mxjob_gitops.compiler.io.streamed import StreamedInput
    from mxjob_gitops.compiler.render.emit import json_list_item, write_json_texts, write_yaml_texts

    streamed = StreamedInput(paths, options, [], check_first=not regular_stdout())
    held = HeldOutput(checked=lambda: streamed.render.checked)
    try:
        if fmt == "json":
            write_json_texts(streamed.outputs(json_list_item), held)
        else:
            write_yaml_texts(streamed.outputs(streamed.emitter.to_yaml), held)
        finish(streamed)
    except BaseException:
        held.discard()
        raise
    held.release()


def _render_to_dir(
    paths: tuple[str, ...], options: RenderOptions, fmt: str, output_dir: Path, follow_symlink: bool
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
    if not streamed.ok:
        finish(streamed)  # an input that does not parse: not even the directory is created
    serialise, suffix = (to_json, ".json") if fmt == "json" else (streamed.emitter.to_yaml, ".yaml")
    missing = missing_directories(output_dir)
    vouching = Vouching()
    entries = checked_outputs(
        streamed, functools.partial(file_entry, serialise=serialise, suffix=suffix, vouching=vouching)
    )
    in_parts = vouching if streamed.render.in_parts else None
    try:
        summary = write_output_dir(output_dir, entries, follow_symlink=follow_symlink, in_parts=in_parts)
    except (Exit, OutputError) as exc:
        remove_empty(missing)
        if isinstance(exc, OutputError):
            for _entry in entries:  # errors in the rest of the input come first (exit 1)
                pass
        raise
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
