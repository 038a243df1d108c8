"""`mxjob validate`'s run over its inputs: read them (objects given as they are are checked while they are read),
check a committed `render -o` directory as a unit of its own, compile each unit, check every rendered object
against the schemas (and with kubeconform when asked), and gather everything into one validate Report.
cli/validate.py resolves the schema version, prints the report and maps it to the exit code."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from mxjob_gitops.compiler.base.diagnostics import Code, Severity, has_errors
from mxjob_gitops.compiler.base.run import Run
from mxjob_gitops.compiler.compile.documents import compile_documents
from mxjob_gitops.compiler.io.inputs import kubernetes_files_only, read_inputs
from mxjob_gitops.compiler.io.origins import relocate_report
from mxjob_gitops.compiler.io.units import split_rendered, stale_renderings
from mxjob_gitops.compiler.read.source import parse_text
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.validate.pacing import validate_paced
from mxjob_gitops.compiler.validate.validation import Report, unchecked


def validate_paths(
    paths: Sequence[str],
    options: RenderOptions,
    version: str,
    *,
    strict: bool,
    skip_non_kubernetes: bool,
    reject_missing_schemas: bool,
    kubeconform_locations: tuple[str, ...] | None,
    errors_only: bool,
    print_limit: int,
    run: Run | None = None,
) -> Report:
    """The report of every input and every object it renders (`kubeconform_locations`: None without --kubeconform;
    `errors_only`: -q, warnings and notes left out of the report in every format; `run`: the run the inputs are
    read and compiled under, None for the installed run)."""
    inputs = read_inputs(paths, parse=functools.partial(parse_text, run=run), run=run)
    if skip_non_kubernetes:
        inputs = kubernetes_files_only(inputs, run)
    # Rendered output (a `render` stream or `-o` directory) carries each job's ConfigMap: its MXJob is checked
    # as the object it is, not expanded a second time (the same rule as `mxjob diff`). A committed `render -o`
    # directory beside the specs is checked as a unit of its own (io.units).
    units = split_rendered(inputs)
    plans = [compile_documents(u.documents, dataclasses.replace(options, keep_rendered=True), run=run) for u in units]
    found = [*inputs.diagnostics, *(d for plan in plans for d in plan.diagnostics)]
    found.extend(stale_renderings(plans) if not has_errors(found) else [])
    if errors_only:
        found = [d for d in found if d.severity is Severity.ERROR]
    report = Report(version, strict, found, files=inputs.files, print_limit=print_limit)
    # Over a resource limit, checking every rendered object is the very work the limit is there to stop.
    limited = any(d.code is Code.LIMIT_EXCEEDED for d in found)
    for plan in plans if not limited else []:
        results = validate_paced(plan, version, strict)
        if kubeconform_locations is not None:
            from mxjob_gitops.compiler.io.kubeconform import run_kubeconform

            results = run_kubeconform(results, plan, version, strict, kubeconform_locations)
        report.objects.extend(results)
    report.diagnostics.extend(unchecked(report, reject_missing_schemas))
    relocate_report(report)
    return report
