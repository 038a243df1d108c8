"""What render and convert share: read the inputs, compile, report every diagnostic, write the stream."""

from __future__ import annotations

import contextlib
import gc
import io
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from compiler.cli.exits import FINDINGS, USAGE, Exit, fail
from compiler.cli.inputs import read_inputs
from compiler.cli.report import report
from compiler.diagnostics import has_errors
from compiler.emit import write_json_list, write_yaml_stream
from compiler.gang import GangScheduler
from compiler.pipeline import Plan, RenderOptions, compile_documents

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
FORMATS = ("yaml", "json")


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """A one-shot render allocates millions of acyclic dicts; cyclic GC passes over them cost ~30% of the run."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_gang(_ctx: click.Context, _param: click.Parameter, value: str | None) -> GangScheduler | None:
    if value is None:
        return None
    try:
        return GangScheduler.parse(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


def parse_priorities(_ctx: click.Context, _param: click.Parameter,
                     values: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    parsed: list[tuple[str, int]] = []
    for value in values:
        name, _, number = value.partition("=")
        try:
            parsed.append((name, int(number)))
        except ValueError:
            raise click.BadParameter(f"{value!r}: use NAME=VALUE, VALUE an integer") from None
        if not name:
            raise click.BadParameter(f"{value!r}: use NAME=VALUE")
    return tuple(parsed)


def check_namespace(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and (len(value) > 63 or not _DNS1123_LABEL.fullmatch(value)):
        raise click.BadParameter(f"{value!r} is not a valid namespace name")
    return value


def build_plan(paths: Sequence[str], options: RenderOptions, *, quiet: bool, defaults: bool = True,
               skip: Sequence[Path] = ()) -> Plan:
    """Compile every input; on any error print all diagnostics and stop with exit 1 before writing anything."""
    inputs = read_inputs(paths, skip)
    plan = compile_documents(inputs.documents, options, defaults=defaults)
    diagnostics = [*inputs.diagnostics, *plan.diagnostics]
    report(diagnostics, quiet=quiet)
    if has_errors(diagnostics):
        raise Exit(FINDINGS)
    if not plan.items:
        raise fail("the input holds no Kubernetes objects; refusing to print an empty stream "
                   "(Argo CD would prune everything)", USAGE)
    return plan


def write_stream(manifests: Iterable[dict[str, Any]], fmt: str) -> None:
    """Write to stdout through one large UTF-8 buffer; the plan is already valid, so nothing can stop halfway."""
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n", write_through=False)
    try:
        if fmt == "json":
            write_json_list(manifests, out)
        else:
            write_yaml_stream(manifests, out)
        out.flush()
    finally:
        out.detach()
