"""`mxjob render`: MXJob specs in, ConfigMap + Services + Pods + MXJob out (stdout or an output directory)."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Iterator
from pathlib import Path

import click

from mxjob_gitops.compiler.cli.common import FORMATS, NO_OBJECTS, build_plan, paused_gc
from mxjob_gitops.compiler.cli.exits import FINDINGS, USAGE, Exit, fail, guarded
from mxjob_gitops.compiler.cli.flags import paths_or_stdin, quiet, verbosity_options
from mxjob_gitops.compiler.cli.options import parse_kubernetes_version, render_options
from mxjob_gitops.compiler.options import RenderOptions

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
    "--kubernetes-version",
    callback=parse_kubernetes_version,
    envvar="MXJOB_KUBERNETES_VERSION",
    show_envvar=True,
    metavar="1.N",
    help="Render the API shapes of this Kubernetes version where they differ (the scheduling.k8s.io "
    "gang API of --gang-scheduler kubernetes); default: the newest, 1.37.",
)
@render_options
@verbosity_options
def render(
    paths: tuple[str, ...], fmt: str, output_dir: Path | None, kubernetes_version: str | None, options: RenderOptions
) -> None:
    """Render MXJob specs in PATH... (files, directories, or - for stdin; no PATH reads a piped stdin)
    into explicit manifests.

    Other Kubernetes objects in the input pass through unchanged. Nothing is printed or written
    unless every input is valid.
    """
    from mxjob_gitops.compiler.emit import Emitter, to_json

    paths = paths_or_stdin(paths)
    options = dataclasses.replace(options, kubernetes_version=kubernetes_version)
    with guarded(), paused_gc():
        if output_dir is None:
            _render_stream(paths, options, fmt)
            return
        plan = build_plan(paths, options, quiet=quiet(), skip=[output_dir])
        emitter = Emitter()
        manifests = plan.manifests(emitter.expect_prefix)
        from mxjob_gitops.compiler.cli.output_dir import write_output_dir

        serialise, suffix = (to_json, ".json") if fmt == "json" else (emitter.to_yaml, ".yaml")
        summary = write_output_dir(output_dir, manifests, serialise, suffix)
        if not quiet():
            click.echo(
                f"mxjob: {output_dir}: {summary.written} written, {summary.unchanged} unchanged, "
                f"{summary.removed} removed",
                err=True,
            )


def _render_stream(paths: tuple[str, ...], options: RenderOptions, fmt: str) -> None:
    """Render to standard output one job at a time (compiler.stream), the output held back until all is valid."""
    from mxjob_gitops.compiler.cli.heldout import LIMIT, HeldOutput, regular_stdout
    from mxjob_gitops.compiler.cli.inputs import input_texts, unreadable
    from mxjob_gitops.compiler.cli.report import report
    from mxjob_gitops.compiler.diagnostics import has_errors
    from mxjob_gitops.compiler.emit import Emitter, write_json_list
    from mxjob_gitops.compiler.pipeline import Manifest, item_manifests
    from mxjob_gitops.compiler.source import ParseStream
    from mxjob_gitops.compiler.stream import StreamedRender

    streamed = StreamedRender(options, check_first_above=None if regular_stdout() else LIMIT)
    for label, text in input_texts(paths):
        if isinstance(text, str):
            streamed.read(ParseStream(text, label))
        else:
            streamed.parse_diagnostics.append(unreadable(text, label))
    emitter, items = Emitter(), [0]

    def manifests() -> Iterator[Manifest]:
        for item in streamed.items():
            items[0] += 1
            if not items[0] % _COLLECT_EVERY:
                gc.collect(1)
            if streamed.ok:  # after the first error, only check the rest
                yield from item_manifests(item, options, emitter.expect_prefix)

    held = HeldOutput(checked=lambda: streamed.checked)
    try:
        if fmt == "json":
            write_json_list(manifests(), held)
        else:
            emitter.write_yaml_stream(manifests(), held)
        report(streamed.diagnostics, quiet=quiet())
        if has_errors(streamed.diagnostics):
            raise Exit(FINDINGS)
        if not items[0]:
            raise fail(NO_OBJECTS, USAGE)
    except BaseException:
        held.discard()
        raise
    held.release()
