"""Where `mxjob render`'s bytes go: standard output, held back until the whole input is valid, or the `-o DIR`
transaction, staged as the jobs come and committed only when the whole input was valid.

`finish` is the command's verdict (cli/render.py): it reports every diagnostic and raises when the input is not
valid, so that what was held back or staged is dropped; `report` is its printer of diagnostics."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from mxjob_gitops.compiler.base.run import Run, current_run
from mxjob_gitops.compiler.io.errors import Exit
from mxjob_gitops.compiler.io.streamed import StreamedInput
from mxjob_gitops.compiler.io.verbosity import quiet
from mxjob_gitops.compiler.render.options import RenderOptions

if TYPE_CHECKING:
    from mxjob_gitops.compiler.base.diagnostics import Diagnostic
    from mxjob_gitops.compiler.io.shards import ShardLayout
    from mxjob_gitops.compiler.io.unitmeter import Meter

T = TypeVar("T")
Finish = Callable[[StreamedInput], None]
Report = Callable[[Sequence["Diagnostic"]], None]  # the command's printer of diagnostics (warnings of the size guard)


def render_stream(
    paths: tuple[str, ...],
    options: RenderOptions,
    fmt: str,
    guard: bool,
    finish: Finish,
    report: Report,
    *,
    run: Run | None = None,
) -> None:
    """Render to standard output one job at a time (compiler.stream), the output held back until all is valid;
    with `guard`, MXJ330 when the output passes what one Argo CD Application or Flux Kustomization holds."""
    from mxjob_gitops.compiler.io.heldout import HeldOutput, regular_stdout
    from mxjob_gitops.compiler.render.emit import json_list_item, write_json_texts, write_yaml_texts

    streamed = StreamedInput(paths, options, [], check_first=not regular_stdout(), run=run)
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
    _warn_size(meter, options, report, directory=False)


def render_to_dir(
    paths: tuple[str, ...],
    options: RenderOptions,
    fmt: str,
    output_dir: Path,
    follow_symlink: bool,
    layout: ShardLayout | None,
    guard: bool,
    finish: Finish,
    report: Report,
    *,
    run: Run | None = None,
) -> None:
    """Render into DIR one job at a time: files are staged as they come and committed only when the whole input
    was valid (io.output_dir), in shards when a `layout` is given. A failed render leaves no directory it created
    behind."""
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
    from mxjob_gitops.compiler.io.unitmeter import Meter, entry_size
    from mxjob_gitops.compiler.render.emit import to_json

    lock_timeout(LOCK_TIMEOUT_SECONDS)  # a bad MXJOB_LOCK_TIMEOUT is a usage error before anything is read or made
    run = run if run is not None else current_run()
    streamed = StreamedInput(paths, options, [output_dir], check_first=False, run=run)
    if not streamed.ok:
        finish(streamed)  # an input that does not parse: not even the directory is created
    serialise, suffix = (to_json, ".json") if fmt == "json" else (streamed.emitter.to_yaml, ".yaml")
    missing = missing_directories(output_dir)
    vouching = Vouching()
    each = functools.partial(file_entry, serialise=serialise, suffix=suffix, vouching=vouching)
    meter = Meter(entry_size(output_dir)) if guard and layout is None else None
    grouped = streamed.grouped(each, layout.vouching(vouching)) if layout is not None else None
    entries: Iterator[Any] = _checked_outputs(streamed, grouped or _metered(streamed, each, meter), finish)
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
    _warn_size(meter, options, report, directory=True)
    if (notes := run.notes).wanted():
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


def _checked_outputs(streamed: StreamedInput, outputs: Iterator[T], finish: Finish) -> Iterator[T]:
    """outputs (of streamed.outputs or .grouped), then finish(): a consumer that stops at the exception has seen
    nothing invalid."""
    yield from outputs
    finish(streamed)


def _metered(streamed: StreamedInput, each: Callable[[dict[str, Any]], T], meter: Meter | None) -> Iterator[T]:
    """streamed.outputs(each), measured by `meter` when there is one (the size guard)."""
    return streamed.outputs(each) if meter is None else meter.count(streamed.outputs(meter.each(each)))


def _warn_size(meter: Meter | None, options: RenderOptions, report: Report, *, directory: bool) -> None:
    """MXJ330 when an unsharded render passes what one Argo CD Application or Flux Kustomization holds."""
    if meter is not None:
        from mxjob_gitops.compiler.integrations.unitlimits import unit_warnings

        report(unit_warnings(options.target, meter.measure, directory=directory))
