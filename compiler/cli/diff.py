"""`mxjob diff`: render two sides (Git revisions, or two paths) and report what would change, object by object."""

from __future__ import annotations

import dataclasses
import functools
import sys
import time
from pathlib import Path

import click

from mxjob_gitops.compiler.base.diagnostics import has_errors
from mxjob_gitops.compiler.cli.common import compile_inputs
from mxjob_gitops.compiler.cli.common import report as report_diagnostics
from mxjob_gitops.compiler.cli.exits import FINDINGS, OK, USAGE, Exit, fail
from mxjob_gitops.compiler.cli.flags import (
    WholeRange,
    cluster_options,
    filename_option,
    format_option,
    kustomize_option,
    paths_or_stdin,
    verbosity_options,
)
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import render_options
from mxjob_gitops.compiler.io.live import LiveCluster
from mxjob_gitops.compiler.io.sides import live_sides, sides
from mxjob_gitops.compiler.io.startup import paused_gc
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.report.diff import FORMATS


@click.command(short_help="Show what a change to MXJob specs would change in the cluster, object by object.")
@click.argument("paths", nargs=-1, metavar="PATH...")
@kustomize_option
@filename_option
@click.option("--base", metavar="REF", help="Git revision of the old side (read from Git, no checkout).")
@click.option("--head", metavar="REF", help="Git revision of the new side (default: the working tree).")
@click.option("--live", is_flag=True, help="Compare the cluster's objects (old side) with the rendered PATH....")
@cluster_options
@click.option(
    "--prune-scope",
    type=click.Choice(["jobs", "namespace"]),
    default="jobs",
    show_default=True,
    help="With --live, which cluster objects missing from PATH... show as removed: those of the jobs "
    "PATH... renders (by their job-name label), or everything mxjob manages in the namespaces.",
)
@format_option(FORMATS, "text", "How to print the differences.")
@click.option(
    "--ignore-path",
    "ignore_paths",
    multiple=True,
    metavar="POINTER",
    help="Ignore a field (JSON pointer; keyed list items by key; * one segment, ** any).",
)
@click.option(
    "--ignore-kind",
    "ignore_kinds",
    multiple=True,
    metavar="KIND",
    help="Ignore objects of a kind (Kind or group/Kind).",
)
@click.option(
    "--no-default-ignores",
    is_flag=True,
    help="Also compare status, managedFields, resourceVersion, tracking annotations and the like.",
)
@click.option(
    "-U",
    "--unified",
    "context_lines",
    default=3,
    show_default=True,
    type=WholeRange(0, 50),
    metavar="N",
    help="Lines of context in each object's diff (as diff -U).",
)
@click.option(
    "--color",
    "colour",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the text format (auto: only on a terminal, never with NO_COLOR set).",
)
@click.option(
    "--split",
    "split_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="markdown: write every comment part as DIR/part-N-of-M.md.",
)
@click.option(
    "--max-length",
    default=65_536,
    show_default=True,
    type=WholeRange(4_096),
    help="markdown: the most characters in one comment.",
)
@click.option("--summary-only", is_flag=True, help="markdown: only the summary table.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are differences (errors still exit 2).")
@render_options
@verbosity_options
def diff(
    paths: tuple[str, ...],
    base: str | None,
    head: str | None,
    live: bool,
    kubeconfig: str | None,
    kube_context: str | None,
    prune_scope: str,
    fmt: str,
    ignore_paths: tuple[str, ...],
    ignore_kinds: tuple[str, ...],
    no_default_ignores: bool,
    context_lines: int,
    colour: str,
    split_dir: Path | None,
    max_length: int,
    summary_only: bool,
    exit_zero: bool,
    options: RenderOptions,
) -> None:
    """Compare renderings: `--base REF [--head REF] PATH...` reads Git objects, `OLD NEW` two paths, or
    `--live PATH...` the cluster against what PATH... renders (server-populated fields and status ignored).

    Each job the change restarts is named; with --kubeconfig/--context (or KUBECONFIG), with its running pods
    and how long they have run.

    Paths may be MXJob specs, directories, or already-rendered manifests. Exit 0 no differences,
    1 differences, 2 error or an update the API server would refuse (as kubectl diff: >1 is trouble).
    """
    from mxjob_gitops.compiler.compile.documents import sort_diagnostics
    from mxjob_gitops.compiler.diff.changes import DiffOptions, diff_manifests
    from mxjob_gitops.compiler.diff.diffview import ViewOptions
    from mxjob_gitops.compiler.diff.restarts import plan_restarts
    from mxjob_gitops.compiler.io.runcontext import built_run
    from mxjob_gitops.compiler.io.running import observed_restarts
    from mxjob_gitops.compiler.io.splitparts import write_parts
    from mxjob_gitops.compiler.io.startup import import_paused
    from mxjob_gitops.compiler.io.stdstreams import colour_wanted
    from mxjob_gitops.compiler.report.diagnostics import write_refusals
    from mxjob_gitops.compiler.report.diff import DiffReport, Presentation, reporter

    if live:
        paths = paths_or_stdin(paths)
    with guarded(), paused_gc():
        try:
            view = ViewOptions.build(ignore_paths, defaults=not no_default_ignores)
        except ValueError as exc:
            raise fail(f"--ignore-path {exc}", USAGE) from None
        options = dataclasses.replace(options, keep_rendered=True)
        if live:
            cluster = LiveCluster(kubeconfig, kube_context, prune_scope)
            side = functools.partial(compile_inputs, quiet=True, failure=USAGE, run=built_run())
            old, new, base_label, head_label, refused, invalid, uncompared = live_sides(
                paths, base, head, cluster, options, side, run=built_run()
            )
        else:
            printer = functools.partial(report_diagnostics, quiet=True)
            old, new, base_label, head_label, refused, invalid, uncompared = sides(
                paths, base, head, options, printer, run=built_run()
            )
        if old or new:
            # compiler.changes compares differing objects with DeepDiff. Its import also imports pydantic when
            # installed (deepdiff/helper.py, to tell pydantic models apart), half of its 0.09 s; objects here
            # are JSON values, never models.
            import_paused("deepdiff", hidden=("pydantic",))
        changes = diff_manifests(old, new, DiffOptions(view, frozenset(ignore_kinds)))
        restarts = plan_restarts(changes)
        if live or kubeconfig or kube_context:  # a cluster: which of the pods concerned run, since when
            restarts = observed_restarts(restarts, kubeconfig, kube_context, time.time())
        from mxjob_gitops.compiler.io.origins import relocated

        refused = relocated(refused)  # a refusal in a kustomize build, at its source file and line
        refusals = tuple(sort_diagnostics(refused))
        report = DiffReport(
            changes, base_label, head_label, context_lines, refusals, tuple(restarts), tuple(invalid), uncompared
        )
        split = None if split_dir is None else functools.partial(write_parts, split_dir)
        presentation = Presentation(colour_wanted(sys.stdout, colour), max_length, split, summary_only)
        reporter(fmt, presentation).write(report, sys.stdout)
        # An update the API server would refuse (a CRD transition rule: compiler.updates) is an error on stderr,
        # exit 2 (kubectl diff's "trouble", even with --exit-zero), the report printed all the same: the sync of
        # this change fails, and a CI gate that accepts 1 for "differences" must not pass it.
        write_refusals(report.refused, sys.stderr)
        if invalid:  # a side with errors: what could be compared is reported, and the command fails (exit 2)
            click.echo(f"mxjob: {len(uncompared)} file(s) with errors were not compared", err=True)
        if has_errors(refused) or invalid:
            raise Exit(USAGE)
        raise Exit(FINDINGS if report.differences and not exit_zero else OK)
