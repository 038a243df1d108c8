"""Optional second opinion: run a `kubeconform` binary found on PATH and merge its findings (never required)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, format_path, pointer_parts
from mxjob_gitops.compiler.compile.documents import Plan
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.render.emit import write_yaml_stream
from mxjob_gitops.compiler.rules.schema import schema_dir
from mxjob_gitops.compiler.validate.validation import Finding, ObjectResult

OUR_LOCATION = "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
TIMEOUT_SECONDS = 300


def command(manifest_file: Path, version: str, strict: bool, locations: Sequence[str]) -> list[str]:
    binary = shutil.which("kubeconform")
    if binary is None:
        raise CommandError("--kubeconform: no kubeconform binary on PATH (it is optional; drop the flag)")
    args = [binary, "-output", "json", "-summary", "-kubernetes-version", f"{version}.0"]
    if strict:
        args.append("-strict")
    for location in [*locations, str(schema_dir() / "kubeconform" / OUR_LOCATION)]:
        args.extend(["-schema-location", location])
    return [*args, str(manifest_file)]


def run_kubeconform(
    results: list[ObjectResult], plan: Plan, version: str, strict: bool, locations: Sequence[str]
) -> list[ObjectResult]:
    with tempfile.TemporaryDirectory(prefix="mxjob-kubeconform-") as folder:
        manifest_file = Path(folder) / "rendered.yaml"
        with manifest_file.open("w", encoding="utf-8") as handle:
            write_yaml_stream((m for item in plan.items for m in plan.item_manifests(item)), handle)
        try:
            done = subprocess.run(
                command(manifest_file, version, strict, locations),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise CommandError(f"kubeconform did not finish within {TIMEOUT_SECONDS} s") from None
    try:
        resources = json.loads(done.stdout or "{}").get("resources") or []
    except json.JSONDecodeError:
        raise CommandError(
            f"kubeconform printed no JSON (exit {done.returncode}): {done.stderr.strip()[:500]}"
        ) from None
    return merge(results, resources)


def merge(results: list[ObjectResult], resources: list[dict[str, Any]]) -> list[ObjectResult]:
    """Add kubeconform's invalid/error records to the matching object results (by kind and name)."""
    extra: dict[tuple[str, str], list[Finding]] = {}
    for record in resources:
        status = str(record.get("status", ""))
        if status not in ("statusInvalid", "statusError", "INVALID", "ERROR"):
            continue
        key = (str(record.get("kind", "")), str(record.get("name", "")))
        errors = record.get("validationErrors") or []
        findings = [_finding(str(e.get("path", "")), str(e.get("msg", ""))) for e in errors]
        extra.setdefault(key, []).extend(findings or [_finding("", str(record.get("msg", "")))])
    return [result.with_findings(tuple(extra.get((result.kind, result.name), ()))) for result in results]


def _finding(pointer: str, message: str) -> Finding:
    """kubeconform's JSON pointer (/spec/containers/0/image) in the report's path style, under MXJ109."""
    return Finding(
        format_path(pointer_parts(pointer)),
        message,
        source="kubeconform",
        code=Code.SCHEMA,
        hint="kubeconform's finding against its schema location",
    )
