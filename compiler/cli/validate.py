"""`mxjob validate`: the compiler's input checks plus strict, offline schema checks of everything it renders."""

from __future__ import annotations

import sys

import click

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
    from mxjob_gitops.compiler.io.runcontext import built_run
    from mxjob_gitops.compiler.io.validating import validate_paths
    from mxjob_gitops.compiler.report.validate import reporter
    from mxjob_gitops.compiler.validate.kubeschema import VersionUnavailable, schema_version

    paths = paths_or_stdin(paths)
    with guarded(), paused_gc():
        try:
            version = schema_version(options.kubernetes_version)
        except VersionUnavailable as exc:
            raise fail(str(exc), USAGE) from None
        report = validate_paths(
            paths,
            options,
            version,
            strict=strict,
            skip_non_kubernetes=skip_non_kubernetes,
            reject_missing_schemas=reject_missing_schemas,
            kubeconform_locations=kubeconform_locations if use_kubeconform else None,
            errors_only=quiet(),
            print_limit=printed_limit(verbosity()),
            run=built_run(),
        )
        reporter(fmt).write(report, sys.stdout)
        raise Exit(OK if report.ok else FINDINGS)
