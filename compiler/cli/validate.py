"""`mxjob validate`: the compiler's input checks plus strict, offline schema checks of everything it renders."""

from __future__ import annotations

import dataclasses
import functools
import sys

import click

from mxjob_gitops.compiler.base.diagnostics import Code, Severity
from mxjob_gitops.compiler.base.printcap import printed_limit
from mxjob_gitops.compiler.cli.exits import FINDINGS, OK, USAGE, Exit, fail
from mxjob_gitops.compiler.cli.flags import (
    filename_option,
    format_option,
    kustomize_option,
    paths_or_stdin,
    quiet,
    verbosity,
    verbosity_options,
)
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.compiler.cli.render_flags import render_options
from mxjob_gitops.compiler.io.startup import paused_gc
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.report.validate import FORMATS


@click.command(short_help="Check MXJob specs and what they render against strict schemas, offline.")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@kustomize_option
@filename_option
@format_option(FORMATS, "text", "How to print the report.")
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
@click.option(
    "--reject-missing-schemas",
    is_flag=True,
    help="Objects no schema checks (custom resources of unknown kinds) are errors, as in kubeconform's default; "
    "without it each is named in a note (MXJ010).",
)
@render_options
@verbosity_options
def validate(
    paths: tuple[str, ...],
    fmt: str,
    strict: bool,
    use_kubeconform: bool,
    kubeconform_locations: tuple[str, ...],
    skip_non_kubernetes: bool,
    reject_missing_schemas: bool,
    options: RenderOptions,
) -> None:
    """Validate PATH... (files, directories, or - for stdin): exit 0 all valid, 1 something invalid.

    Reports every problem: MXJob input errors at file:line:column, and schema violations of every
    rendered object (Pods, Services, ConfigMaps, PodGroups, the MXJob, and objects passed through).
    """
    from mxjob_gitops.compiler.base.diagnostics import has_errors
    from mxjob_gitops.compiler.compile.documents import compile_documents
    from mxjob_gitops.compiler.io.inputs import kubernetes_files_only, read_inputs
    from mxjob_gitops.compiler.io.origins import relocate_report
    from mxjob_gitops.compiler.io.units import split_rendered, stale_renderings
    from mxjob_gitops.compiler.read.source import parse_text
    from mxjob_gitops.compiler.report.validate import reporter
    from mxjob_gitops.compiler.validate.kubeschema import VersionUnavailable, schema_version
    from mxjob_gitops.compiler.validate.pacing import validate_paced
    from mxjob_gitops.compiler.validate.validation import Report, unchecked, vouch_for

    paths = paths_or_stdin(paths)
    with guarded(), paused_gc():
        try:
            version = schema_version(options.kubernetes_version)
        except VersionUnavailable as exc:
            raise fail(str(exc), USAGE) from None
        # Objects given as they are are checked while they are read, in the processes that read a large input
        # (compiler.fanout); what passes is not checked again (compiler.validation.vouch_for).
        inputs = read_inputs(paths, parse=functools.partial(parse_text, vouch=vouch_for(version, strict)))
        if skip_non_kubernetes:
            inputs = kubernetes_files_only(inputs)
        # Rendered output (a `render` stream or `-o` directory) carries each job's ConfigMap: its MXJob is checked
        # as the object it is, not expanded a second time (the same rule as `mxjob diff`). A committed `render -o`
        # directory beside the specs is checked as a unit of its own (cli.units).
        units = split_rendered(inputs)
        plans = [compile_documents(u.documents, dataclasses.replace(options, keep_rendered=True)) for u in units]
        found = [*inputs.diagnostics, *(d for plan in plans for d in plan.diagnostics)]
        found.extend(stale_renderings(plans) if not has_errors(found) else [])
        if quiet():  # -q: errors only, in every format (warnings and notes are left out of the report)
            found = [d for d in found if d.severity is Severity.ERROR]
        report = Report(version, strict, found, files=inputs.files, print_limit=printed_limit(verbosity()))
        # Over a resource limit, checking every rendered object is the very work the limit is there to stop.
        limited = any(d.code is Code.LIMIT_EXCEEDED for d in found)
        for plan in plans if not limited else []:
            results = validate_paced(plan, version, strict)
            if use_kubeconform:
                from mxjob_gitops.compiler.io.kubeconform import run_kubeconform

                results = run_kubeconform(results, plan, version, strict, kubeconform_locations)
            report.objects.extend(results)
        report.diagnostics.extend(unchecked(report, reject_missing_schemas))
        relocate_report(report)
        reporter(fmt).write(report, sys.stdout)
        raise Exit(OK if report.ok else FINDINGS)
