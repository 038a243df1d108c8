"""The repository's committed render options: `.mxjob.yaml`, found from the inputs upwards (to the top of the Git
work tree), so that CI, pre-commit, the PR diff, the Argo CD plugin and a hand-run command render alike. A flag or
environment variable given to the command wins over the file; the file wins over the built-in defaults.

    # .mxjob.yaml
    render:
      target: argocd
      gangScheduler: volcano
      kubernetesVersion: "1.33"

The keys are those of a KRM functionConfig (compiler.options.RECORD_KEYS), read with the same parsers.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.render.options import RenderOptions, parse_field

NAME = ".mxjob.yaml"
# click parameter -> (record key, RenderOptions attribute)
FIELDS = {
    "namespace": ("namespace", "namespace"),
    "target": ("target", "target"),
    "gang": ("gangScheduler", "gang_scheduler"),
    "priorities": ("priorityClasses", "priority_classes"),
    "include_job": ("job", "include_job"),
    "max_pods": ("maxPods", "max_pods"),
    "kubernetes_version": ("kubernetesVersion", "kubernetes_version"),
    "engine": ("engine", "engine"),
    "exit_codes": ("exitCodes", "exit_codes"),
}


def find(paths: Sequence[str]) -> Path | None:
    """The `.mxjob.yaml` nearest above the first input (or the working directory), not above the Git work tree."""
    named = next((p for p in paths if p != "-"), None)
    start = Path(os.path.abspath(named)) if named is not None else Path.cwd()
    for directory in (start, *start.parents):
        candidate = directory / NAME
        if candidate.is_file():
            return candidate
        if (directory / ".git").exists():
            return None
    return None


def read(path: Path) -> dict[str, str]:
    """The `render:` mapping of the file, each value as text; a malformed file is a usage error naming it."""
    import yaml

    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CommandError(f"{path}: cannot be read as YAML ({exc})") from None
    render = data.get("render") if isinstance(data, dict) else None
    known = {key for key, _ in FIELDS.values()}
    if not isinstance(render, dict) or not set(render) <= known:
        raise CommandError(f"{path}: give `render:` with keys among {', '.join(sorted(known))}")
    return {
        str(k): ",".join(map(str, v)) if isinstance(v, list) else str(v).lower() if isinstance(v, bool) else str(v)
        for k, v in render.items()
    }


def applied(options: RenderOptions, paths: Sequence[str]) -> RenderOptions:
    """OPTIONS with the repository file's values for every option the command line and environment left at its
    default."""
    ctx = click.get_current_context(silent=True)
    path = find(paths)
    if ctx is None or path is None:
        return options
    values = read(path)
    changes: dict[str, Any] = {}
    for parameter, (key, attribute) in FIELDS.items():
        if key not in values or ctx.get_parameter_source(parameter) is not click.core.ParameterSource.DEFAULT:
            continue
        try:
            changes[attribute] = parse_field(key, values[key])
        except ValueError as exc:
            raise CommandError(f"{path}: render.{key}: {exc}") from None
    return dataclasses.replace(options, **changes) if changes else options
