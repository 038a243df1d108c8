"""kustomize builds as an input source: what `-k DIR` (compiler.cli.flags.kustomize_option) asks for, built by the
real kustomize (the `kustomize` binary, else `kubectl kustomize`, or the one MXJOB_KUSTOMIZE names), as `kubectl -k`.

A `-k DIR` request travels among the PATHs as a `Kustomization` (a tagged string), so every channel that reads
inputs (io.inputs for the work tree, io.gitsource and io.revisiontree for a revision) reads it with the same rules.
"""

from __future__ import annotations

import os
from pathlib import Path

from mxjob_gitops.compiler.base.limits import MAX_INPUT_BYTES
from mxjob_gitops.compiler.io.errors import CommandError

# The names kustomize looks for in a kustomization root (kustomize api/konfig/general.go,
# RecognizedKustomizationFileNames).
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
ENVIRONMENT = "MXJOB_KUSTOMIZE"


class Kustomization(str):
    """A directory given with -k: its kustomization is built and the built stream is the input."""

    __slots__ = ()


def kustomization_file(directory: Path) -> str | None:
    """The name of the kustomization file in DIRECTORY, if it holds one (kustomize's own three names)."""
    for name in KUSTOMIZATION_NAMES:
        if (directory / name).is_file():
            return name
    return None


def label(directory: str, revision: str | None = None) -> str:
    """How the built stream is named in findings: `<kustomize build DIR>` (or `REV:DIR`), like `<stdin>`."""
    where = directory if revision is None else f"{revision}:{directory}"
    return f"<kustomize build {where}>"


def command() -> list[str]:
    """The command that builds a kustomization: $MXJOB_KUSTOMIZE (a kustomize binary), else `kustomize` on PATH,
    else `kubectl kustomize`; none of them is a usage error (exit 2) that says what to install."""
    import shutil

    named = os.environ.get(ENVIRONMENT)
    if named:
        found = shutil.which(named)
        if found is None:
            raise CommandError(f"{ENVIRONMENT}={named!r}: no such executable (it names the kustomize binary)")
        return [found, "build"]
    for name, verb in (("kustomize", "build"), ("kubectl", "kustomize")):
        found = shutil.which(name)
        if found is not None:
            return [found, verb]
    raise CommandError(
        "-k builds a kustomization with kustomize, which is not installed: put `kustomize` or `kubectl` on PATH, "
        f"or name the binary in {ENVIRONMENT}"
    )


def build(directory: Path, shown: str) -> str:
    """kustomize's output for the kustomization in DIRECTORY (`shown` names it in errors); a failed build, or a
    directory with no kustomization, is an input error (exit 2) with kustomize's own message."""
    import subprocess

    if not directory.is_dir():
        raise CommandError(f"{shown}: no such directory (-k names a directory with a kustomization.yaml)")
    if kustomization_file(directory) is None:
        raise CommandError(f"{shown}: no kustomization.yaml in it (-k names a directory with a kustomization.yaml)")
    argv = [*command(), str(directory)]
    try:
        done = subprocess.run(argv, capture_output=True, check=False)
    except OSError as exc:
        raise CommandError(f"{argv[0]}: {exc.strerror or exc}") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().replace(str(directory), shown)
        raise CommandError(f"{shown}: kustomize build failed: {message or f'exit {done.returncode}'}")
    if len(done.stdout) > MAX_INPUT_BYTES:
        raise CommandError(f"{shown}: kustomize built more than {MAX_INPUT_BYTES:,} bytes; split it into several runs")
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"{shown}: kustomize printed something that is not UTF-8 text") from None


def lists_only_its_files(directory: Path, name: str) -> bool:
    """Whether the kustomization in DIRECTORY only lists files of DIRECTORY as resources (as `render -o` writes
    it): read raw, the directory gives what kustomize builds from it, so nothing needs -k."""
    import yaml

    try:
        data = yaml.safe_load((directory / name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    if not isinstance(data, dict) or not set(data) <= {"apiVersion", "kind", "resources"}:
        return False
    resources = data.get("resources") or []
    return isinstance(resources, list) and all(
        isinstance(r, str) and "/" not in r and (directory / r).is_file() for r in resources
    )


def builds_more(directory: Path) -> str | None:
    """The name of DIRECTORY's kustomization when building it gives more than its files read raw (cli.inputs)."""
    name = kustomization_file(directory)
    return None if name is None or lists_only_its_files(directory, name) else name


def refuse_raw(path: Path, raw: str) -> None:
    """A directory with a kustomization given as a plain PATH: its files are only half of what kustomize builds
    (patches, images, namespaces are in the kustomization), so it is refused, naming -k."""
    from mxjob_gitops.compiler.base.escape import terminal

    name = builds_more(path)
    if name is not None:
        raise CommandError(
            f"{terminal(raw)} holds a {name}: give it as `-k {terminal(raw)}` to build it with kustomize "
            "(read raw, its patches, images and namespace would be left out)"
        )
