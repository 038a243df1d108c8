"""mxjob-gitops compiler: MXJob specs in, explicit Kubernetes manifests out; pure, no cluster or network."""

from compiler.diagnostics import Code, Diagnostic, Location, Severity
from compiler.pipeline import Plan, RenderOptions, compile_documents
from compiler.source import SourceDocument, parse_text
from compiler.targets import Target

__all__ = [
    "Code",
    "Diagnostic",
    "Location",
    "Plan",
    "RenderOptions",
    "Severity",
    "SourceDocument",
    "Target",
    "compile_documents",
    "parse_text",
]
