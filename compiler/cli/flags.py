"""The flags every command shares (-q/-v, reading stdin) and those of every command that talks to a cluster."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from mxjob_gitops.compiler.base.asciinum import decimal, whole
from mxjob_gitops.compiler.io.kustomize import ENVIRONMENT as KUSTOMIZE_ENVIRONMENT
from mxjob_gitops.compiler.io.kustomize import Kustomization
from mxjob_gitops.compiler.io.verbosity import LEVEL as _META
from mxjob_gitops.compiler.io.verbosity import quiet as quiet
from mxjob_gitops.compiler.io.verbosity import verbosity as verbosity

F = TypeVar("F", bound=Callable[..., Any])
# Every environment variable that changes behaviour; listed in `mxjob --help` (the flags' own help shows theirs).
ENVIRONMENT = (
    ("MXJOB_TARGET", "--target of render, validate, diff, krm"),
    ("MXJOB_GANG_SCHEDULER", "--gang-scheduler of render, validate, diff, krm"),
    ("MXJOB_KUBERNETES_VERSION", "--kubernetes-version of render, validate, diff, krm"),
    ("MXJOB_KUSTOMIZE", "-k of render, validate, diff, convert: the kustomize binary (else kustomize, kubectl)"),
    ("KUBECONFIG", "--kubeconfig of diff --live and reconcile"),
    ("POD_NAMESPACE", "--leader-election-namespace of reconcile"),
    ("POD_NAME", "reconcile: this replica's identity in the leader-election Lease"),
    ("MXJOB_LOCK_TIMEOUT", "render -o: seconds to wait for another render writing the same directory"),
    ("MXJOB_MAX_DOCUMENTS", "documents one run reads, every input together (default 100,000; docs/limits.md)"),
    ("MXJOB_MAX_PRINTED_DIAGNOSTICS", "diagnostics printed before `N more not shown` (default 1,000; -v: all)"),
    ("MXJOB_MAX_DIRECTORY_DEPTH", "directory levels read below a PATH, work tree and Git (default 100)"),
    ("MXJOB_MAX_IN_PLACE_JOBS", "MXJobs one convert --in-place rewrites (default 1,000)"),
    (
        "MXJOB_RENDER_CACHE",
        "render -o: folder for what each DIR's files were (default $XDG_CACHE_HOME/mxjob-gitops/render-o)",
    ),
    ("XDG_CACHE_HOME", "the cache root, ~/.cache when unset (render -o keeps what each DIR's files were there)"),
    ("MXJOB_JOBS", "processes that read a large input at once (1 to 8; default: the CPUs this process may use)"),
    ("MXJOB_DEBUG", "set to 1: as -v (a traceback on an internal error)"),
    ("MXJOB_EXACT", "1: every fast path off, its exact twin used (same output; for bug reports); or names"),
    ("NO_COLOR", "set: never colour diff output"),
)


class WholeRange(click.IntRange):
    """click.IntRange, its bounds, help and messages, for a flag written in ASCII digits only (compiler.asciinum):
    `٣`, `1_0`, `-1`, `0x10` or ` 3` is a usage error (exit 2) that names the flag."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = _ascii_number(self, value, whole, "a whole number in the digits 0-9", param, ctx)
        return super().convert(number, param, ctx)


class DecimalRange(click.FloatRange):
    """click.FloatRange for a flag written as ASCII digits with an optional point (`2`, `0.5`): no sign,
    exponent, `inf` or `nan` (compiler.asciinum.decimal)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = _ascii_number(self, value, decimal, "a number of the form 2 or 0.5", param, ctx)
        return super().convert(number, param, ctx)


def _ascii_number(
    kind: click.IntRange | click.FloatRange,
    value: Any,
    read: Callable[[str], float | None],
    form: str,
    param: click.Parameter | None,
    ctx: click.Context | None,
) -> Any:
    """A flag's text read by `read` (click's range type then checks the bounds); a value that is no text (a
    default) is left as it is."""
    if not isinstance(value, str):
        return value
    number = read(value)
    if number is None:
        kind.fail(f"{value!r} is not {form}.", param, ctx)
    return number


def _remember(ctx: click.Context, param: click.Parameter, value: int | bool) -> None:
    """-q sets the level to -1, each -v adds one; given both, -q wins."""
    level = ctx.meta.get(_META, 0)
    if param.name == "quiet" and value:
        level = -1
    elif param.name == "verbose" and value and level >= 0:
        level = int(value)
    ctx.meta[_META] = level


def verbosity_options(command: F) -> F:
    """-q/--quiet and -v/--verbose, the same on every command; read them with verbosity()."""
    command = click.option(
        "-v",
        "--verbose",
        count=True,
        expose_value=False,
        callback=_remember,
        is_eager=True,
        help="Say more: notes, and a traceback on an internal error (also MXJOB_DEBUG=1).",
    )(command)
    command = click.option(
        "-q",
        "--quiet",
        is_flag=True,
        expose_value=False,
        callback=_remember,
        is_eager=True,
        help="Print errors only: no warnings or notes.",
    )(command)
    return command


def cluster_options(command: F) -> F:
    """--kubeconfig and --context (a kubeconfig context), the same wherever a cluster is involved."""
    command = click.option(
        "--context",
        "kube_context",
        metavar="NAME",
        help="The kubeconfig context to use (default: its current-context).",
    )(command)
    command = click.option(
        "--kubeconfig",
        type=click.Path(dir_okay=False),
        envvar="KUBECONFIG",
        show_envvar=True,
        help="kubeconfig file (default: KUBECONFIG, ~/.kube/config, else in-cluster).",
    )(command)
    return command


def filename_option(command: F) -> F:
    """-f/--filename PATH (repeatable), kubectl's spelling of a PATH argument; the command receives every one of
    them, in order, before its PATH arguments, as `paths`."""

    @functools.wraps(command)
    def wrapper(*args: Any, filenames: tuple[str, ...], paths: tuple[str, ...], **kwargs: Any) -> Any:
        return command(*args, paths=(*filenames, *paths), **kwargs)

    option = click.option(
        "-f",
        "--filename",
        "filenames",
        multiple=True,
        metavar="PATH",
        help="A file, directory or - to read, as a PATH argument (repeatable; kubectl's spelling).",
    )
    return option(wrapper)  # type: ignore[return-value]  # click's decorator keeps the signature it is given


def paths_or_stdin(paths: tuple[str, ...]) -> tuple[str, ...]:
    """No PATH means standard input when something is piped in; on a terminal it is a usage error."""
    if paths:
        return paths
    if sys.stdin is None or sys.stdin.isatty():
        raise click.UsageError("give PATH... (files, directories, or - for standard input), or pipe the input in")
    return ("-",)


def format_option(choices: Sequence[str], default: str, help: str) -> Callable[[F], F]:
    """--format (how to print), one definition for every command; each names its choices, default and help."""
    return click.option(
        "--format", "fmt", type=click.Choice(tuple(choices)), default=default, show_default=True, help=help
    )


def kustomize_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """-k/--kustomize DIR (repeatable) on a command with PATHs: each is added to `paths` as a Kustomization."""

    @functools.wraps(command)
    def wrapper(*args: Any, paths: tuple[str, ...], kustomize: Sequence[str], **kwargs: Any) -> Any:
        return command(*args, paths=(*paths, *map(Kustomization, kustomize)), **kwargs)

    return click.option(
        "-k",
        "--kustomize",
        multiple=True,
        metavar="DIR",
        help="Build the kustomization in DIR with kustomize (kustomize on PATH, else kubectl kustomize, or "
        f"${KUSTOMIZE_ENVIRONMENT}) and read what it builds (repeatable; as kubectl -k).",
    )(wrapper)
