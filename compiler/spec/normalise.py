"""Normalise a v1 MXJob as the operator did before validating it: replica-type case, server-populated fields."""

from __future__ import annotations

from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, warning
from mxjob_gitops.compiler.spec import constants as c
from mxjob_gitops.compiler.spec.convert import Conversion


def normalise(conversion: Conversion) -> None:
    """Mutates conversion.data (already a private copy) in place; records a warning for each change."""
    data = conversion.data
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        dropped = [key for key in c.SERVER_POPULATED_METADATA if key in metadata]
        for key in dropped:
            del metadata[key]
        if dropped:
            conversion.diagnostics.append(
                warning(
                    Code.SERVER_FIELDS_DROPPED,
                    f"metadata.{', metadata.'.join(dropped)} are set by the API server and were dropped",
                    ("metadata", dropped[0]),
                    "remove them from the file in Git",
                )
            )
    if "status" in data:
        del data["status"]
        conversion.diagnostics.append(
            warning(
                Code.SERVER_FIELDS_DROPPED,
                "status is written by the reconciler and was dropped",
                ("status",),
                "remove status from the file in Git",
            )
        )
    spec = data.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("mxReplicaSpecs"), dict):
        _normalise_replica_types(conversion, spec["mxReplicaSpecs"])


def _normalise_replica_types(conversion: Conversion, replicas: dict[str, Any]) -> None:
    """Scheduler, Server and Worker keys are matched case-insensitively, like the operator's defaulter."""
    for canonical in c.CASE_NORMALISED_TYPES:
        for key in list(replicas):
            if key != canonical and key.lower() == canonical.lower():
                if canonical in replicas:
                    conversion.diagnostics.append(
                        warning(
                            Code.REPLICA_TYPE_CASE,
                            f"replica type {key!r} replaces {canonical!r}, as the operator did",
                            ("spec", "mxReplicaSpecs", key),
                            f"keep a single {canonical} entry",
                        )
                    )
                else:
                    conversion.diagnostics.append(
                        warning(
                            Code.REPLICA_TYPE_CASE,
                            f"replica type {key!r} was read as {canonical!r}",
                            ("spec", "mxReplicaSpecs", key),
                            f"write {canonical}",
                        )
                    )
                replicas[canonical] = replicas.pop(key)
                conversion.rename(("spec", "mxReplicaSpecs", canonical), ("spec", "mxReplicaSpecs", key))
                break
