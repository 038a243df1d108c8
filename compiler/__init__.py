"""mxjob-gitops compiler: MXJob specs in, explicit Kubernetes manifests out; pure, no cluster or network.

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
    from compiler.pipeline import Plan as Plan
    from compiler.pipeline import RenderOptions as RenderOptions
    from compiler.pipeline import compile_documents as compile_documents
    from compiler.source import SourceDocument as SourceDocument
    from compiler.source import parse_text as parse_text
    from compiler.targets import Target as Target

_EXPORTS = {
    "Code": "compiler.diagnostics",
    "Diagnostic": "compiler.diagnostics",
    "Location": "compiler.diagnostics",
    "Severity": "compiler.diagnostics",
    "Plan": "compiler.pipeline",
    "RenderOptions": "compiler.pipeline",
    "compile_documents": "compiler.pipeline",
    "SourceDocument": "compiler.source",
    "parse_text": "compiler.source",
    "Target": "compiler.targets",
}

__all__ = ["Code", "Diagnostic", "Location", "Plan", "RenderOptions", "Severity", "SourceDocument", "Target",
           "compile_documents", "parse_text"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
