"""`render -o DIR --shard-size N --repo-url URL`: the shard layout (io.shards) that also writes the GitOps objects
syncing the shards (render.gitopsunits) into DIR, beside the record and outside every shard, through the same
transaction; and output_layout, which of the layouts a `render -o` uses."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mxjob_gitops.compiler.integrations.gitopsinput import clean_repo_path
from mxjob_gitops.compiler.io.output_dir import OutputError
from mxjob_gitops.compiler.io.repopath import repo_path
from mxjob_gitops.compiler.io.shards import ShardLayout
from mxjob_gitops.compiler.render.gitopsunits import ARGOCD_FILE, FLUX_FILE, UnitSettings, unit_file
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.spec.targets import Target


class UnitLayout(ShardLayout):
    """A ShardLayout whose closing files also hold `target`'s GitOps objects for the shards it laid out."""

    def __init__(self, size: int, moves: Iterable[str], target: Target, settings: UnitSettings) -> None:
        super().__init__(size, moves)
        self.target = target
        self.settings = settings
        self.reserved = ShardLayout.reserved | {ARGOCD_FILE, FLUX_FILE}
        self.note = ""  # said after the write (unit_layout: DIR in no Git work tree)

    def closing(self, names: list[str]) -> list[tuple[str, bytes]]:
        closing = super().closing(names)
        if self.placement is None:  # pragma: no cover - super().closing raised already
            raise RuntimeError("closing() before arrange() was consumed")
        try:
            name, text = unit_file(self.target, self.placement.record.shard_names(), self.settings)
        except ValueError as exc:
            raise OutputError(str(exc)) from None
        return [*closing, (name, text.encode("utf-8"))]

    def report(self, quiet: bool) -> list[str]:
        return [*super().report(quiet), *([self.note] if self.note and not quiet else [])]


def unit_layout(
    size: int,
    moves: Iterable[str],
    options: RenderOptions,
    settings: UnitSettings,
    output_dir: Path,
    given_path: str | None,
) -> UnitLayout:
    """The layout for --repo-url: DIR's repository path is --repo-path when given, else read with git; when DIR is
    in no work tree, DIR is taken as the repository's root, and the layout's report says so (with the fix). -n is
    where Argo CD puts objects without a namespace."""
    from dataclasses import replace

    path = clean_repo_path(given_path) if given_path is not None else repo_path(output_dir)
    note = ""
    if path is None:
        path = "."
        note = (
            "warning: not inside a Git work tree, so the shards' paths in "
            f"{ARGOCD_FILE if options.target is Target.ARGOCD else FLUX_FILE} are written as if it were the "
            "repository's root; give --repo-path PATH (its path from the repository's root) if it is not"
        )
    settings = replace(settings, repo_path=path, destination_namespace=options.namespace)
    layout = UnitLayout(size, moves, options.target, settings)
    layout.note = note
    return layout


def output_layout(
    size: int | None,
    moves: tuple[str, ...],
    options: RenderOptions,
    settings: UnitSettings | None,
    output_dir: Path,
    given_path: str | None,
) -> ShardLayout | None:
    """render -o's layout: none without --shard-size; the shards (io.shards), with --move-job's jobs moved; with
    --repo-url, also the GitOps objects that sync them (unit_layout)."""
    if size is None:
        return None
    if settings is not None:
        return unit_layout(size, moves, options, settings, output_dir, given_path)
    from mxjob_gitops.compiler.compile.shards import job_unit

    return ShardLayout(size, [unit for unit in map(job_unit, moves) if unit is not None])
