"""The options every rendering command shares (render, validate, krm), read with RenderOptions' field codec."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import click

from compiler.gang import GangScheduler
from compiler.options import RenderOptions, parse_field, priority_pairs
from compiler.targets import Target

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def parse_gang(_ctx: click.Context, _param: click.Parameter, value: str | None) -> GangScheduler | None:
    if value is None:
        return None
    try:
        gang: GangScheduler | None = parse_field("gangScheduler", value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    return gang


def parse_priorities(_ctx: click.Context, _param: click.Parameter,
                     values: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    try:
        return priority_pairs(values)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def check_namespace(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and (len(value) > 63 or not _DNS1123_LABEL.fullmatch(value)):
        raise click.BadParameter(f"{value!r} is not a valid namespace name")
    return value


_OPTIONS = (
    click.option("-n", "--namespace", callback=check_namespace,
                 help="Namespace for jobs that do not set metadata.namespace."),
    click.option("--target", type=click.Choice([t.value for t in Target]), default=Target.PLAIN.value,
                 show_default=True, envvar="MXJOB_TARGET", show_envvar=True,
                 help="Add the annotations Argo CD or Flux need (sync waves, force replace, substitution)."),
    click.option("--gang-scheduler", "gang", callback=parse_gang, envvar="MXJOB_GANG_SCHEDULER", show_envvar=True,
                 metavar="volcano|scheduler-plugins[=NAME]",
                 help="Render a PodGroup per job and join its pods (a job's mxjob.kubeflow.org/gang-scheduler "
                      "annotation wins)."),
    click.option("--priority-class", "priorities", multiple=True, callback=parse_priorities, metavar="NAME=VALUE",
                 help="A PriorityClass value, for ordering pods when minResources is computed (repeatable)."),
    click.option("--job/--no-job", "include_job", default=True, show_default=True,
                 help="Also emit the MXJob itself, where the reconciler keeps .status."),
)


def render_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared options to a click command; it receives them as one `options: RenderOptions`."""

    @functools.wraps(command)
    def wrapper(*args: Any, namespace: str | None, target: str, gang: GangScheduler | None,
                priorities: tuple[tuple[str, int], ...], include_job: bool, **kwargs: Any) -> Any:
        options = RenderOptions(namespace=namespace, include_job=include_job, target=parse_field("target", target),
                                gang_scheduler=gang, priority_classes=priorities)
        return command(*args, options=options, **kwargs)

    decorated: Callable[..., Any] = wrapper
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    return decorated
