"""mxjob-gitops compiler: MXJob specs in, explicit Kubernetes manifests out; pure, no cluster or network.

Entry points: `compile_job(dict, RenderOptions)` for one job (the reconciler, library users; see compiler.job),
`parse_text` + `compile_documents` for files of many documents (the CLI and the KRM function). Besides the
names below, `compiler.constants` and `compiler.replicas` (the operator's vocabulary) are public;
tests/test_layering.py holds the reconciler to exactly these.

The public names are imported on first use, so `mxjob --help` does not pay for the schema machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mxjob_gitops.compiler.diagnostics import Code as Code
    from mxjob_gitops.compiler.diagnostics import Diagnostic as Diagnostic
    from mxjob_gitops.compiler.diagnostics import Location as Location
    from mxjob_gitops.compiler.diagnostics import Severity as Severity
    from mxjob_gitops.compiler.job import JobRendering as JobRendering
    from mxjob_gitops.compiler.job import compile_job as compile_job
    from mxjob_gitops.compiler.model import MXJob as MXJob
    from mxjob_gitops.compiler.model import Replica as Replica
    from mxjob_gitops.compiler.options import RenderOptions as RenderOptions
    from mxjob_gitops.compiler.pipeline import Plan as Plan
    from mxjob_gitops.compiler.pipeline import compile_documents as compile_documents
    from mxjob_gitops.compiler.pipeline import identity as identity
    from mxjob_gitops.compiler.source import SourceDocument as SourceDocument
    from mxjob_gitops.compiler.source import parse_text as parse_text
    from mxjob_gitops.compiler.targets import Target as Target

_EXPORTS = {
    "Code": "mxjob_gitops.compiler.diagnostics",
    "Diagnostic": "mxjob_gitops.compiler.diagnostics",
    "Location": "mxjob_gitops.compiler.diagnostics",
    "Severity": "mxjob_gitops.compiler.diagnostics",
    "JobRendering": "mxjob_gitops.compiler.job",
    "compile_job": "mxjob_gitops.compiler.job",
    "MXJob": "mxjob_gitops.compiler.model",
    "Replica": "mxjob_gitops.compiler.model",
    "Plan": "mxjob_gitops.compiler.pipeline",
    "RenderOptions": "mxjob_gitops.compiler.options",
    "compile_documents": "mxjob_gitops.compiler.pipeline",
    "identity": "mxjob_gitops.compiler.pipeline",
    "SourceDocument": "mxjob_gitops.compiler.source",
    "parse_text": "mxjob_gitops.compiler.source",
    "Target": "mxjob_gitops.compiler.targets",
}

__all__ = [
    "Code",
    "Diagnostic",
    "JobRendering",
    "Location",
    "MXJob",
    "Plan",
    "RenderOptions",
    "Replica",
    "Severity",
    "SourceDocument",
    "Target",
    "compile_documents",
    "compile_job",
    "identity",
    "parse_text",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
