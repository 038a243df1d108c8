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
    from mxjob_gitops.compiler.base.diagnostics import Code as Code
    from mxjob_gitops.compiler.base.diagnostics import Diagnostic as Diagnostic
    from mxjob_gitops.compiler.base.diagnostics import Location as Location
    from mxjob_gitops.compiler.base.diagnostics import Severity as Severity
    from mxjob_gitops.compiler.compile.documents import Plan as Plan
    from mxjob_gitops.compiler.compile.documents import compile_documents as compile_documents
    from mxjob_gitops.compiler.compile.documents import identity as identity
    from mxjob_gitops.compiler.compile.job import compile_job as compile_job
    from mxjob_gitops.compiler.read.source import SourceDocument as SourceDocument
    from mxjob_gitops.compiler.read.source import parse_text as parse_text
    from mxjob_gitops.compiler.render.job import JobRendering as JobRendering
    from mxjob_gitops.compiler.render.options import RenderOptions as RenderOptions
    from mxjob_gitops.compiler.spec.model import MXJob as MXJob
    from mxjob_gitops.compiler.spec.model import Replica as Replica
    from mxjob_gitops.compiler.spec.targets import Target as Target

_EXPORTS = {
    "Code": "mxjob_gitops.compiler.base.diagnostics",
    "Diagnostic": "mxjob_gitops.compiler.base.diagnostics",
    "Location": "mxjob_gitops.compiler.base.diagnostics",
    "Severity": "mxjob_gitops.compiler.base.diagnostics",
    "JobRendering": "mxjob_gitops.compiler.render.job",
    "compile_job": "mxjob_gitops.compiler.compile.job",
    "MXJob": "mxjob_gitops.compiler.spec.model",
    "Replica": "mxjob_gitops.compiler.spec.model",
    "Plan": "mxjob_gitops.compiler.compile.documents",
    "RenderOptions": "mxjob_gitops.compiler.render.options",
    "compile_documents": "mxjob_gitops.compiler.compile.documents",
    "identity": "mxjob_gitops.compiler.compile.documents",
    "SourceDocument": "mxjob_gitops.compiler.read.source",
    "parse_text": "mxjob_gitops.compiler.read.source",
    "Target": "mxjob_gitops.compiler.spec.targets",
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
