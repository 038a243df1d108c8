"""How much one Argo CD Application or one Flux Kustomization can hold, and the warning (MXJ330) that an unsharded
`render --target argocd|flux` gives when its output passes it, with the --shard-size that fits.

Pure: the render measures its output (objects, bytes, the bytes of Flux inventory entries, each from
inventory_entry_bytes) and asks unit_warnings. The limits and where they come from (docs/argocd.md, docs/flux.md):

- Argo CD, objects: an Application of about 3,000 resources fails to sync, its status (one entry per resource in
  `status.resources` and in the sync result) outgrowing etcd's request limit (argoproj/argo-cd issue 14486).
- Argo CD, bytes of a directory: `reposerver.max.combined.directory.manifests.size`, default "10M" = 10,000,000
  bytes of manifest files (cmd/argocd-repo-server/commands/argocd_repo_server.go; counted file by file in
  reposerver/repository/repository.go, getPotentiallyValidManifests).
- Argo CD, plugin output: a config-management plugin's answer is one gRPC message of at most
  ARGOCD_GRPC_MAX_SIZE_MB, default 100 MiB (cmpserver/apiclient/clientset.go, MaxGRPCMessageSize).
- Flux: a Kustomization lists every object it applied in `status.inventory.entries`, each
  `{"id":"<namespace>_<name>_<group>_<kind>","v":"<version>"}` (fluxcd/kustomize-controller api/v1/
  inventory_types.go, ResourceRef), and the object is stored whole in one etcd request of at most 1.5 MiB
  (etcd's --max-request-bytes default, 1,572,864 bytes). 64 KiB are left for the rest of the Kustomization.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, warning
from mxjob_gitops.compiler.spec.targets import Target

ARGOCD_MAX_OBJECTS = 3_000
ARGOCD_MAX_DIRECTORY_BYTES = 10_000_000
ARGOCD_MAX_PLUGIN_BYTES = 100 * 1024 * 1024
ETCD_MAX_REQUEST_BYTES = 1_572_864
FLUX_MAX_INVENTORY_BYTES = ETCD_MAX_REQUEST_BYTES - 64 * 1024
# `{"id":"` + `","v":"` + `"}` + the comma between entries
_ENTRY_FRAME = 17
# A shard is kept well below a limit: jobs grow, and kustomize's build time grows faster than the directory
# (400 objects build in 0.4 s, 5,054 in 44 s), so no recommendation is above these (docs/shards.md's N: a third of
# the Application that failed for Argo CD; for Flux, whose status holds only the inventory, twice that).
MAX_RECOMMENDED_SHARD = {Target.ARGOCD: 1_000, Target.FLUX: 2_000}
_MARGIN = 0.8


@dataclass(frozen=True, slots=True)
class Measure:
    """What a render produced: objects, bytes (of the files, or of the stream), Flux inventory bytes."""

    objects: int = 0
    bytes: int = 0
    inventory_bytes: int = 0

    def plus(self, objects: int, size: int, inventory: int) -> Measure:
        return Measure(self.objects + objects, self.bytes + size, self.inventory_bytes + inventory)


def inventory_entry_bytes(manifest: Mapping[str, Any]) -> int:
    """The bytes of the object's entry in a Flux Kustomization's status.inventory, as stored (compact JSON; the
    parts of an object's identity hold no character JSON escapes)."""
    api_version = manifest.get("apiVersion")
    kind = manifest.get("kind")
    metadata = manifest.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    group, _, version = api_version.rpartition("/") if isinstance(api_version, str) else ("", "", "")
    parts = (metadata.get("namespace"), metadata.get("name"), group, kind)
    identifier = "_".join(part if isinstance(part, str) else "" for part in parts)
    return _ENTRY_FRAME + len(identifier.encode()) + len(version.encode())


@dataclass(frozen=True, slots=True)
class Limit:
    """One size an engine is known to fail past: what it counts, which measure, and the bound."""

    what: str
    measure: str  # a field of Measure
    bound: int

    def of(self, measure: Measure) -> int:
        value: int = getattr(measure, self.measure)
        return value


_OBJECTS = Limit("objects in one Application", "objects", ARGOCD_MAX_OBJECTS)
_DIRECTORY = Limit(
    "bytes of manifests in one directory (reposerver.max.combined.directory.manifests.size)",
    "bytes",
    ARGOCD_MAX_DIRECTORY_BYTES,
)
_PLUGIN = Limit("bytes of one plugin's output (ARGOCD_GRPC_MAX_SIZE_MB)", "bytes", ARGOCD_MAX_PLUGIN_BYTES)
_INVENTORY = Limit(
    "bytes of one Kustomization's status.inventory (etcd's 1.5 MiB request limit)",
    "inventory_bytes",
    FLUX_MAX_INVENTORY_BYTES,
)
_ENGINE = {Target.ARGOCD: "Argo CD", Target.FLUX: "Flux"}


def limits(target: Target, *, directory: bool) -> tuple[Limit, ...]:
    """The limits of `target`'s engine for output written with -o (`directory`) or printed for a plugin."""
    if target is Target.ARGOCD:
        return (_OBJECTS, _DIRECTORY if directory else _PLUGIN)
    if target is Target.FLUX:
        return (_INVENTORY,)
    return ()


def unit_warnings(target: Target, measure: Measure, *, directory: bool) -> list[Diagnostic]:
    """MXJ330 for each limit of `target`'s engine that the unsharded output passes (`directory`: written with -o,
    so Argo CD reads a directory; else the stream a config-management plugin prints)."""
    passed = [limit for limit in limits(target, directory=directory) if limit.of(measure) > limit.bound]
    if not passed:
        return []
    size = recommended_shard_size(target, measure, directory=directory)
    hint = f"use --shard-size N with -o DIR, recommended N = {size}: each shard is one Application or Kustomization"
    if not directory:
        hint += ", synced instead of this stream"
    return [
        warning(
            Code.UNIT_TOO_LARGE,
            f"{_ENGINE[target]} fails past {limit.bound:,} {limit.what}; this output has {limit.of(measure):,}",
            hint=hint,
        )
        for limit in passed
    ]


def recommended_shard_size(target: Target, measure: Measure, *, directory: bool = True) -> int:
    """The --shard-size that keeps every shard at most 80% of each limit at this output's mean object size,
    rounded down to a hundred, between 100 and the engine's MAX_RECOMMENDED_SHARD."""
    objects = max(measure.objects, 1)
    fits = [
        limit.bound if limit is _OBJECTS else limit.bound * objects // max(limit.of(measure), 1)
        for limit in limits(target, directory=directory)
    ]
    most = MAX_RECOMMENDED_SHARD.get(target, 1_000)
    best = int(min(fits, default=most) * _MARGIN) // 100 * 100
    return max(100, min(best, most))
