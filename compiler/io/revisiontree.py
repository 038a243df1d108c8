"""Read PATHs (and -k DIRs) at a Git revision through a checkout of it (cli.checkout), with the very reader of the
working tree (cli.inputs): links, kustomizations and submodules follow the same rules on both sides of a diff.
Files are named `REVISION:path` and builds `<kustomize build REVISION:DIR>`, as cli.gitsource names them."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.inputs import (
    InputError,
    Inputs,
    Parser,
    input_texts,
    parsed_inputs,
    renderings_of,
)


def read_checkout(
    revision: str, commit: str, top: Path, paths: Sequence[str], relative: Sequence[str], parse: Parser
) -> Inputs:
    """Every input under PATHS (RELATIVE: the same, from TOP) in COMMIT, read from a checkout of it. A path the
    revision does not have reads as nothing (the side of a diff where it was added or removed)."""
    from mxjob_gitops.compiler.io import kustomize, origins
    from mxjob_gitops.compiler.io.checkout import checked_out

    builds = any(isinstance(p, kustomize.Kustomization) for p in paths)
    with checked_out(top, commit, revision, None if builds else relative) as tree:
        inside = []
        for path, rel in zip(paths, relative, strict=True):
            where = tree / rel
            if os.path.lexists(where):
                inside.append(
                    kustomize.Kustomization(where) if isinstance(path, kustomize.Kustomization) else str(where)
                )
        inputs = Inputs()
        try:
            texts = list(input_texts(inside, allow_empty=True, root=tree))
        except CommandError as exc:
            message = str(exc).replace(f"-k {tree}/", "-k ").replace(f"{tree}/", f"{revision}:")
            raise InputError(message.replace(str(tree), f"{revision}:.")) from None
        labelled = [(_label(label, tree, top, revision), text) for label, text in texts]
        for (old, _), (new, _) in zip(texts, labelled, strict=True):
            origins.relabel(old, new, lambda label: _label(label, tree, top, revision))
        found = renderings_of(label for label, _ in texts)
        for (old, _), (new, _) in zip(texts, labelled, strict=True):
            home = Path(old).parent.as_posix()
            if home in found:
                inputs.renderings.add(Path(new).parent.as_posix())
            elif Path(old).parent.parent.as_posix() in found:  # a shard directory's file
                inputs.renderings.add(Path(new).parent.parent.as_posix())
    return parsed_inputs(labelled, parse, inputs)


def _label(label: str, tree: Path, top: Path, revision: str) -> str:
    """A label of the checkout (a file below TREE, or a kustomize build of a directory below it) named as in the
    repository at REVISION."""
    from mxjob_gitops.compiler.io import kustomize
    from mxjob_gitops.compiler.io.shown import shown

    built = kustomize.label("")[:-1]
    if label.startswith(built) and label.endswith(">"):
        directory = Path(label[len(built) : -1])
        return kustomize.label(shown(top / directory.relative_to(tree)), revision)
    return f"{revision}:{shown(top / Path(os.path.abspath(label)).relative_to(tree))}"
