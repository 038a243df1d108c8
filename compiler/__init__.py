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
    from compiler.diagnostics import Code as Code
    from compiler.diagnostics import Diagnostic as Diagnostic
    from compiler.diagnostics import Location as Location
    from compiler.diagnostics import Severity as Severity
    from compiler.job import JobRendering as JobRendering
    from compiler.job import compile_job as compile_job
    from compiler.model import MXJob as MXJob
    from compiler.model import Replica as Replica
    from compiler.options import RenderOptions as RenderOptions
    from compiler.pipeline import Plan as Plan
    from compiler.pipeline import compile_documents as compile_documents
    from compiler.pipeline import identity as identity
    from compiler.source import SourceDocument as SourceDocument
    from compiler.source import parse_text as parse_text
    from compiler.targets import Target as Target

_EXPORTS = {
    "Code": "compiler.diagnostics",
    "Diagnostic": "compiler.diagnostics",
    "Location": "compiler.diagnostics",
    "Severity": "compiler.diagnostics",
    "JobRendering": "compiler.job",
    "compile_job": "compiler.job",
    "MXJob": "compiler.model",
    "Replica": "compiler.model",
    "Plan": "compiler.pipeline",
    "RenderOptions": "compiler.options",
    "compile_documents": "compiler.pipeline",
    "identity": "compiler.pipeline",
    "SourceDocument": "compiler.source",
    "parse_text": "compiler.source",
    "Target": "compiler.targets",
}

__all__ = ["Code", "Diagnostic", "JobRendering", "Location", "MXJob", "Plan", "RenderOptions", "Replica", "Severity",
           "SourceDocument", "Target", "compile_documents", "compile_job", "identity", "parse_text"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
