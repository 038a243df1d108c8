"""`mxjob render`: MXJob specs in, ConfigMap + Services + Pods + MXJob out (stdout or an output directory)."""

from __future__ import annotations

from pathlib import Path

import click

from compiler.cli.common import FORMATS, build_plan, paused_gc, write_stream
from compiler.cli.exits import guarded
from compiler.cli.options import render_options
from compiler.options import RenderOptions


@click.command(short_help="Render MXJob specs into Kubernetes manifests.")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="yaml", show_default=True,
              help="How to print: a YAML stream, or a JSON v1 List.")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one file per object plus kustomization.yaml into DIR instead of printing.")
@render_options
@click.option("-q", "--quiet", is_flag=True, help="Print errors only, no warnings.")
def render(paths: tuple[str, ...], fmt: str, output_dir: Path | None, options: RenderOptions, quiet: bool) -> None:
    """Render MXJob specs in PATH... (files, directories, or - for stdin) into explicit manifests.

    Other Kubernetes objects in the input pass through unchanged. Nothing is printed or written
    unless every input is valid.
    """
    from compiler.emit import Emitter, to_json

    with guarded(), paused_gc():
        plan = build_plan(paths, options, quiet=quiet, skip=[output_dir] if output_dir else [])
        emitter = Emitter()
        manifests = plan.manifests(emitter.expect_prefix)
        if output_dir is None:
            write_stream(manifests, fmt, emitter)
            return
        from compiler.cli.output_dir import write_output_dir

        serialise, suffix = (to_json, ".json") if fmt == "json" else (emitter.to_yaml, ".yaml")
        summary = write_output_dir(output_dir, manifests, serialise, suffix)
        if not quiet:
            click.echo(f"mxjob: {output_dir}: {summary.written} written, {summary.unchanged} unchanged, "
                       f"{summary.removed} removed", err=True)
