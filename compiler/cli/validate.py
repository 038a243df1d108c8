"""`mxjob validate`: the compiler's input checks plus strict, offline schema checks of everything it renders."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from mxjob_gitops.compiler.base.diagnostics import Code
from mxjob_gitops.compiler.cli.exits import FINDINGS, OK, USAGE, Exit, fail
from mxjob_gitops.compiler.cli.flags import format_option, paths_or_stdin, verbosity_options
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import ENGINE_OPTION, EXIT_CODES_OPTION, render_options, with_engine
from mxjob_gitops.compiler.cli.startup import paused_gc
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.report.validate import FORMATS
from mxjob_gitops.compiler.validate.kubeschema import DEFAULT_KUBERNETES_VERSION

if TYPE_CHECKING:
    from mxjob_gitops.compiler.validate.validation import ObjectResult

_COLLECT_EVERY = 4_000  # rendered objects; about 200 jobs of the benchmark's kind


@click.command(short_help="Check MXJob specs and what they render against strict schemas, offline.")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@format_option(FORMATS, "text", "How to print the report.")
@click.option(
    "--kubernetes-version",
    default=DEFAULT_KUBERNETES_VERSION,
    show_default=True,
    envvar="MXJOB_KUBERNETES_VERSION",
    show_envvar=True,
    help="Kubernetes schemas and rules to check against (offline; 1.20 to 1.24 and the default are built in, 1.25 "
    "to 1.37 come with the [schemas] extra).",
)
@click.option(
    "--strict/--no-strict",
    default=True,
    show_default=True,
    help="Unknown fields are errors (as kubectl --validate=strict).",
)
@click.option(
    "--kubeconform",
    "use_kubeconform",
    is_flag=True,
    help="Also run the kubeconform binary on the rendered output and merge its findings.",
)
@click.option(
    "--kubeconform-schema-location",
    "kubeconform_locations",
    multiple=True,
    default=("default",),
    show_default=True,
    help="Kubernetes schema location(s) for kubeconform; ours are always added.",
)
@click.option(
    "--skip-non-kubernetes",
    is_flag=True,
    help="Skip, with a note, files holding no Kubernetes object (no document with apiVersion and kind), "
    "such as package.json or mkdocs.yml; for pre-commit, which passes every YAML and JSON file.",
)
@ENGINE_OPTION
@EXIT_CODES_OPTION
@render_options
@verbosity_options
def validate(
    paths: tuple[str, ...],
    fmt: str,
    kubernetes_version: str,
    strict: bool,
    use_kubeconform: bool,
    kubeconform_locations: tuple[str, ...],
    skip_non_kubernetes: bool,
    engine: str,
    exit_codes: str | None,
    options: RenderOptions,
) -> None:
    """Validate PATH... (files, directories, or - for stdin): exit 0 all valid, 1 something invalid.

    Reports every problem: MXJob input errors at file:line:column, and schema violations of every
    rendered object (Pods, Services, ConfigMaps, PodGroups, the MXJob, and objects passed through).
    """
    from mxjob_gitops.compiler.compile.documents import compile_documents
    from mxjob_gitops.compiler.io.inputs import kubernetes_files_only, read_inputs
    from mxjob_gitops.compiler.read.source import parse_text
    from mxjob_gitops.compiler.report.validate import reporter
    from mxjob_gitops.compiler.validate.kubeschema import VersionUnavailable, resolve_version
    from mxjob_gitops.compiler.validate.validation import Report, validate_plan, vouch_for

    paths = paths_or_stdin(paths)
    options = with_engine(options, engine, exit_codes)
    with guarded(), paused_gc():
        try:
            version = resolve_version(kubernetes_version)
        except VersionUnavailable as exc:
            raise fail(str(exc), USAGE) from None
        # Objects given as they are are checked while they are read, in the processes that read a large input
        # (compiler.fanout); what passes is not checked again (compiler.validation.vouch_for).
        inputs = read_inputs(paths, parse=functools.partial(parse_text, vouch=vouch_for(version, strict)))
        if skip_non_kubernetes:
            inputs = kubernetes_files_only(inputs)
        # Rendered output (a `render` stream or `-o` directory) carries each job's ConfigMap: its MXJob is checked
        # as the object it is, not expanded a second time (the same rule as `mxjob diff`).
        # The shapes rendered (the scheduling.k8s.io gang API) are those of the version checked against.
        plan = compile_documents(
            inputs.documents, dataclasses.replace(options, keep_rendered=True, kubernetes_version=version)
        )
        found = [*inputs.diagnostics, *plan.diagnostics]
        report = Report(version, strict, found, files=inputs.files)
        # Over a resource limit, checking every rendered object is the very work the limit is there to stop.
        limited = any(d.code is Code.LIMIT_EXCEEDED for d in found)
        if not limited:
            with young_only_collections():
                report.objects.extend(collecting(validate_plan(plan, version, strict)))
        if use_kubeconform and not limited:
            from mxjob_gitops.compiler.io.kubeconform import run_kubeconform

            report.objects[:] = run_kubeconform(report.objects, plan, version, strict, kubeconform_locations)
        reporter(fmt).write(report, sys.stdout)
        raise Exit(OK if report.ok else FINDINGS)


def collecting(results: Iterator[ObjectResult]) -> Iterator[ObjectResult]:
    """The results, with the young generations collected every few thousand objects while the collector is
    paused: rendering a job leaves a few reference cycles behind (json's encoder closures), the rest is freed
    by reference counting. As render does (cli/render.py), at about the same pace."""
    for count, result in enumerate(results, 1):
        if not count % _COLLECT_EVERY:
            gc.collect(1)
        yield result


@contextlib.contextmanager
def young_only_collections() -> Iterator[None]:
    """Keep the periodic collections to what checking allocates: the documents read and compiled (a million
    containers for 22,000 objects) stay alive to the end, and the first collection that met them cost a tenth
    of the whole command. They are moved out of the collector's reach (gc.freeze) and handed back after."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
