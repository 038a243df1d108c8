"""`mxjob render`: MXJob specs in, ConfigMap + Services + Pods + MXJob out (stdout or an output directory)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from mxjob_gitops.compiler.cli.common import FORMATS, NO_OBJECTS, paused_gc
from mxjob_gitops.compiler.cli.exits import FINDINGS, USAGE, Exit, fail, guarded
from mxjob_gitops.compiler.cli.flags import paths_or_stdin, quiet, verbosity_options
from mxjob_gitops.compiler.cli.options import (
    ENGINE_OPTION,
    EXIT_CODES_OPTION,
    kubernetes_version_option,
    render_options,
    with_engine,
)
from mxjob_gitops.compiler.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.job import CompiledJob
    from mxjob_gitops.compiler.pipeline import Manifest

T = TypeVar("T")

# kubectl's `-o json` prints JSON; ours names a directory. A directory called like an output format is
# almost always that habit, so it is refused unless written as a path (./json) or already there.
_FORMAT_WORDS = frozenset({"yaml", "yml", "json", "wide", "name"})
# With the collector paused (paused_gc), the young generations are collected every so many streamed items:
# a job's rendering leaves reference cycles (json.dumps with indent builds its encoder from closures).
_COLLECT_EVERY = 200


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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="yaml",
    show_default=True,
    help="How to print: a YAML stream, or a JSON v1 List.",
)
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
@kubernetes_version_option(
    "Render the API shapes of this Kubernetes version where they differ (the scheduling.k8s.io "
    "gang API of --gang-scheduler kubernetes); default: the newest, 1.37."
)
@ENGINE_OPTION
@EXIT_CODES_OPTION
@render_options
@verbosity_options
def render(
    paths: tuple[str, ...],
    fmt: str,
    output_dir: Path | None,
    follow_output_symlink: bool,
    kubernetes_version: str | None,
    engine: str,
    exit_codes: str | None,
    options: RenderOptions,
) -> None:
    """Render MXJob specs in PATH... (files, directories, or - for stdin; no PATH reads a piped stdin)
    into explicit manifests.

    Other Kubernetes objects in the input pass through unchanged. Nothing is printed or written
    unless every input is valid.
    """
    paths = paths_or_stdin(paths)
    options = dataclasses.replace(with_engine(options, engine, exit_codes), kubernetes_version=kubernetes_version)
    with guarded(), paused_gc():
        if output_dir is None:
            _render_stream(paths, options, fmt)
        else:
            _render_to_dir(paths, options, fmt, output_dir, follow_output_symlink)


class _Streamed:
    """The inputs read into a StreamedRender, and what each valid item renders into, checked to the end
    (compiler.stream: the items may be compiled and rendered in other processes)."""

    def __init__(self, paths: tuple[str, ...], options: RenderOptions, skip: list[Path], check_first: bool) -> None:
        from mxjob_gitops.compiler.cli.heldout import SPILL_LIMIT
        from mxjob_gitops.compiler.cli.inputs import input_texts, unreadable
        from mxjob_gitops.compiler.emit import Emitter
        from mxjob_gitops.compiler.source import ParseStream
        from mxjob_gitops.compiler.stream import StreamedRender

        self.options = options
        self.render = StreamedRender(options, check_first_above=SPILL_LIMIT if check_first else None)
        for label, text in input_texts(paths, skip):
            if isinstance(text, str):
                self.render.read(ParseStream(text, label))
            else:
                self.render.parse_diagnostics.append(unreadable(text, label))
        self.emitter = Emitter()
        self._rendered = 0

    def outputs(self, each: Callable[[dict[str, Any]], T]) -> Iterator[T]:
        """each(manifest) of every manifest while the input is valid; after the first error, the rest is only
        checked. `each` may run in another process (compiler.stream.rendered), its results sent back."""
        return self.render.rendered(functools.partial(self._item_outputs, each))

    def _item_outputs(self, each: Callable[[dict[str, Any]], T], item: CompiledJob | Manifest) -> Iterator[T]:
        from mxjob_gitops.compiler.pipeline import item_manifests

        self._rendered += 1
        if not self._rendered % _COLLECT_EVERY:
            gc.collect(1)
        return map(each, item_manifests(item, self.options, self.emitter.expect_prefix))

    def finish(self) -> None:
        """Report every diagnostic; exit 1 on errors, 2 when the input held no object."""
        from mxjob_gitops.compiler.cli.report import report
        from mxjob_gitops.compiler.diagnostics import has_errors

        report(self.render.diagnostics, quiet=quiet())
        if has_errors(self.render.diagnostics):
            raise Exit(FINDINGS)
        if not self.render.valid_items:
            raise fail(NO_OBJECTS, USAGE)

    def checked_outputs(self, each: Callable[[dict[str, Any]], T]) -> Iterator[T]:
        """outputs(), then finish(): a consumer that stops at the exception has seen nothing invalid."""
        yield from self.outputs(each)
        self.finish()


def _render_stream(paths: tuple[str, ...], options: RenderOptions, fmt: str) -> None:
    """Render to standard output one job at a time (compiler.stream), the output held back until all is valid."""
    from mxjob_gitops.compiler.cli.heldout import HeldOutput, regular_stdout
    from mxjob_gitops.compiler.emit import json_list_item, write_json_texts, write_yaml_texts

    streamed = _Streamed(paths, options, [], check_first=not regular_stdout())
    held = HeldOutput(checked=lambda: streamed.render.checked)
    try:
        if fmt == "json":
            write_json_texts(streamed.outputs(json_list_item), held)
        else:
            write_yaml_texts(streamed.outputs(streamed.emitter.to_yaml), held)
        streamed.finish()
    except BaseException:
        held.discard()
        raise
    held.release()


def _render_to_dir(
    paths: tuple[str, ...], options: RenderOptions, fmt: str, output_dir: Path, follow_symlink: bool
) -> None:
    """Render into DIR one job at a time: files are staged as they come and committed only when the whole input
    was valid (cli.output_dir). A failed render leaves no directory it created behind."""
    from mxjob_gitops.compiler.cli.flags import lock_timeout
    from mxjob_gitops.compiler.cli.output_dir import (
        LOCK_TIMEOUT_SECONDS,
        OutputError,
        Vouching,
        file_entry,
        write_output_dir,
    )
    from mxjob_gitops.compiler.emit import to_json

    lock_timeout(LOCK_TIMEOUT_SECONDS)  # a bad MXJOB_LOCK_TIMEOUT is a usage error before anything is read or made
    streamed = _Streamed(paths, options, [output_dir], check_first=False)
    if not streamed.render.ok:
        streamed.finish()  # an input that does not parse: not even the directory is created
    serialise, suffix = (to_json, ".json") if fmt == "json" else (streamed.emitter.to_yaml, ".yaml")
    missing = _missing_directories(output_dir)
    vouching = Vouching()
    entries = streamed.checked_outputs(
        functools.partial(file_entry, serialise=serialise, suffix=suffix, vouching=vouching)
    )
    in_parts = vouching if streamed.render.in_parts else None
    try:
        summary = write_output_dir(output_dir, entries, follow_symlink=follow_symlink, in_parts=in_parts)
    except (Exit, OutputError) as exc:
        _remove_empty(missing)
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
        from mxjob_gitops.compiler.escape import terminal

        click.echo(
            f"mxjob: {output_dir}: kept {len(summary.kept)} file(s) an earlier render wrote and this one no longer "
            f"does, because they changed since (or an older mxjob recorded them): {terminal(', '.join(summary.kept))}"
            "; remove them if they are not needed",
            err=True,
        )


def _missing_directories(directory: Path) -> list[Path]:
    """`directory` and those of its parents that do not exist yet, deepest first."""
    missing: list[Path] = []
    for path in (directory, *directory.parents):
        if os.path.lexists(path):
            break
        missing.append(path)
    return missing


def _remove_empty(directories: list[Path]) -> None:
    for path in directories:
        with contextlib.suppress(OSError):
            path.rmdir()
