"""Where `mxjob render`'s bytes go: standard output, held back until the whole input is valid, or the `-o DIR`
transaction, staged as the jobs come and committed only when the whole input was valid.

`finish` is the command's verdict (cli/render.py): it reports every diagnostic and raises when the input is not
valid, so that what was held back or staged is dropped."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from mxjob_gitops.compiler.base.run import current_run
from mxjob_gitops.compiler.io.errors import Exit
from mxjob_gitops.compiler.io.streamed import StreamedInput
from mxjob_gitops.compiler.render.options import RenderOptions

T = TypeVar("T")
Finish = Callable[[StreamedInput], None]


def render_stream(paths: tuple[str, ...], options: RenderOptions, fmt: str, finish: Finish) -> None:
    """Render to standard output one job at a time (compiler.stream), the output held back until all is valid."""
    from mxjob_gitops.compiler.io.heldout import HeldOutput, regular_stdout
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


def render_to_dir(
    paths: tuple[str, ...],
    options: RenderOptions,
    fmt: str,
    output_dir: Path,
    follow_symlink: bool,
    finish: Finish,
) -> None:
    """Render into DIR one job at a time: files are staged as they come and committed only when the whole input
    was valid (io.output_dir). A failed render leaves no directory it created behind."""
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
    from mxjob_gitops.compiler.render.emit import to_json

    lock_timeout(LOCK_TIMEOUT_SECONDS)  # a bad MXJOB_LOCK_TIMEOUT is a usage error before anything is read or made
    streamed = StreamedInput(paths, options, [output_dir], check_first=False)
    if not streamed.render.ok:
        finish(streamed)  # an input that does not parse: not even the directory is created
    serialise, suffix = (to_json, ".json") if fmt == "json" else (streamed.emitter.to_yaml, ".yaml")
    missing = missing_directories(output_dir)
    vouching = Vouching()
    entries = _checked_outputs(
        streamed, functools.partial(file_entry, serialise=serialise, suffix=suffix, vouching=vouching), finish
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
    if (notes := current_run().notes).wanted():
        notes.say(
            f"mxjob: {output_dir}: {summary.written} written, {summary.unchanged} unchanged, {summary.removed} removed"
        )
    if summary.kept:
        from mxjob_gitops.compiler.base.escape import terminal

        click.echo(
            f"mxjob: {output_dir}: kept {len(summary.kept)} file(s) an earlier render wrote and this one no longer "
            f"does, because they changed since (or an older mxjob recorded them): {terminal(', '.join(summary.kept))}"
            "; remove them if they are not needed",
            err=True,
        )


def _checked_outputs(streamed: StreamedInput, each: Callable[[dict[str, Any]], T], finish: Finish) -> Iterator[T]:
    """outputs(), then finish(): a consumer that stops at the exception has seen nothing invalid."""
    yield from streamed.outputs(each)
    finish(streamed)
