"""The options that change what is rendered, shared by every command that renders (render, validate, diff, krm),
with one default each, read with RenderOptions' field codec."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from mxjob_gitops.compiler.base.limits import DEFAULT_MAX_PODS
from mxjob_gitops.compiler.cli.flags import WholeRange
from mxjob_gitops.compiler.render.gang.plan import GangScheduler, gang_forms
from mxjob_gitops.compiler.render.options import RenderOptions, parse_field, priority_pairs
from mxjob_gitops.compiler.spec.targets import Target


def parse_priorities(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> tuple[tuple[str, int], ...]:
    try:
        return priority_pairs(values)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def check_field(key: str) -> Callable[[click.Context, click.Parameter, str | None], Any]:
    """A click callback that reads a flag with the record codec's parser, as a functionConfig is read."""

    def callback(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
        if value is None:
            return None
        try:
            return parse_field(key, value)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None

    return callback


_OPTIONS = (
    click.option(
        "-n",
        "--namespace",
        callback=check_field("namespace"),
        help="Namespace for jobs that do not set metadata.namespace.",
    ),
    click.option(
        "--target",
        type=click.Choice([t.value for t in Target]),
        default=Target.PLAIN.value,
        show_default=True,
        envvar="MXJOB_TARGET",
        show_envvar=True,
        help="Add the annotations Argo CD or Flux need (pods replaced, never patched; no sync waves).",
    ),
    click.option(
        "--gang-scheduler",
        "gang",
        callback=check_field("gangScheduler"),
        envvar="MXJOB_GANG_SCHEDULER",
        show_envvar=True,
        metavar=gang_forms(),
        help="Gang-schedule each job's pods: a PodGroup (Volcano, scheduler-plugins, Kubernetes) or a Kueue "
        "pod group (a job's mxjob.kubeflow.org/gang-scheduler annotation wins).",
    ),
    click.option(
        "--priority-class",
        "priorities",
        multiple=True,
        callback=parse_priorities,
        metavar="NAME=VALUE",
        help="A PriorityClass value, for ordering pods when minResources is computed (repeatable).",
    ),
    click.option(
        "--job/--no-job",
        "include_job",
        default=True,
        show_default=True,
        help="Also emit the MXJob itself, where the reconciler keeps .status.",
    ),
    click.option(
        "--kubernetes-version",
        callback=check_field("kubernetesVersion"),
        envvar="MXJOB_KUBERNETES_VERSION",
        show_envvar=True,
        metavar="1.N",
        help="Render the API shapes and apply the rules of this Kubernetes version where they differ (the "
        "scheduling.k8s.io gang API, the MXJob CRD's CEL rules from 1.25); validate checks its schemas. Default: "
        "the newest (validate: against the newest schemas installed).",
    ),
    click.option(
        "--engine",
        type=click.Choice(("pods", "jobset")),
        default="pods",
        show_default=True,
        help="What runs each job: pods (with `mxjob reconcile`), or one JobSet (jobset.x-k8s.io/v1alpha2, "
        "docs/jobset.md).",
    ),
    click.option(
        "--exit-codes",
        default="",
        callback=check_field("exitCodes"),
        metavar="CODE=CLASS,...",
        help="jobset engine: exit-code classes over the built-in table, e.g. 137=permanent,3=retryable "
        "(as `mxjob reconcile --exit-codes`).",
    ),
    click.option(
        "--max-pods",
        "max_pods",
        default=str(DEFAULT_MAX_PODS),
        show_default=True,
        callback=check_field("maxPods"),
        metavar="N",
        help="Most pods one job may have (MX_CONFIG makes the rendering grow with its square).",
    ),
)


def render_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared options to a click command; it receives them as one `options: RenderOptions`."""

    @functools.wraps(command)
    def wrapper(
        *args: Any,
        namespace: str | None,
        target: str,
        gang: GangScheduler | None,
        priorities: tuple[tuple[str, int], ...],
        include_job: bool,
        max_pods: int,
        kubernetes_version: str | None,
        engine: str,
        exit_codes: str | None,
        **kwargs: Any,
    ) -> Any:
        if engine == "jobset" and gang is not None and gang.kind != "kueue":
            raise click.BadParameter(
                "the jobset engine gang-schedules with Kueue only", param_hint="'--gang-scheduler'"
            )
        options = RenderOptions(
            namespace=namespace,
            include_job=include_job,
            target=parse_field("target", target),
            gang_scheduler=gang,
            priority_classes=priorities,
            max_pods=max_pods,
            kubernetes_version=kubernetes_version,
            engine=engine,
            exit_codes=exit_codes or "",
        )
        from mxjob_gitops.compiler.cli.guard import guarded
        from mxjob_gitops.compiler.io.repoconfig import applied

        with guarded():  # a malformed .mxjob.yaml is a usage error, exit 2
            options = applied(options, kwargs.get("paths", ()))
        return command(*args, options=options, **kwargs)

    decorated: Callable[..., Any] = wrapper
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    return decorated


def _check_move(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    if not values:
        return values
    from mxjob_gitops.compiler.compile.shards import job_unit

    for value in values:
        if job_unit(value) is None:
            raise click.BadParameter(f"{value!r}: give NAMESPACE/NAME of a job (NAME for a job without a namespace)")
    return values


def shard_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """render -o's layout options (they change where files go, not what is rendered): --shard-size, --move-job."""
    from mxjob_gitops.compiler.base.limits import MAX_SHARD_SIZE

    command = click.option(
        "--move-job",
        "move_jobs",
        multiple=True,
        callback=_check_move,
        metavar="NAMESPACE/NAME",
        help="With --shard-size: move this job to another shard (repeatable). Moving restarts it: its pods are "
        "pruned by the old shard's Application or Kustomization and re-created by the new one's.",
    )(command)
    return click.option(
        "--shard-size",
        type=WholeRange(1, MAX_SHARD_SIZE),
        metavar="N",
        help="With -o: write shard directories of at most N objects each, whole jobs only, recorded in "
        "DIR/shards.yaml so that no job ever changes shard on a re-render (docs/shards.md).",
    )(command)


def _checked(check: str) -> Callable[[click.Context, click.Parameter, str | None], str | None]:
    """A click callback that refuses a value integrations.gitopsinput's `check` finds a problem with (the value
    escaped in the message); the module is imported when such an option is given."""

    def callback(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
        if value is None:
            return value
        from mxjob_gitops.compiler.integrations import gitopsinput

        if problem := getattr(gitopsinput, check)(value):
            from mxjob_gitops.compiler.base.escape import terminal

            raise click.BadParameter(f"{terminal(value[:120])!r} {problem}")
        return value

    return callback


def unit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """render -o --shard-size's GitOps objects (docs/argocd.md, docs/flux.md): --repo-url and what it takes; the
    command receives them as one `units: UnitSettings | None` (their modules are imported when the command runs:
    a render without them never needs them)."""

    @functools.wraps(command)
    def wrapper(
        *args: Any,
        repo_url: str | None,
        revision: str | None,
        repo_path: str | None,
        project: str | None,
        gitops_namespace: str | None,
        **kwargs: Any,
    ) -> Any:
        flags = {
            "--revision": revision,
            "--repo-path": repo_path,
            "--project": project,
            "--gitops-namespace": gitops_namespace,
        }
        given = [flag for flag, value in flags.items() if value is not None]
        if repo_url is None and not given:
            return command(*args, units=None, repo_path=repo_path, **kwargs)
        from mxjob_gitops.compiler.integrations import gitopsinput as check
        from mxjob_gitops.compiler.render.gitopsunits import DEFAULT_PROJECT, DEFAULT_REVISION, UnitSettings

        if problem := check.misuse(repo_url, given, kwargs.get("shard_size"), kwargs.get("target", "")):
            raise click.UsageError(problem)
        units = None
        if repo_url is not None:
            units = UnitSettings(
                repo_url, ".", revision or DEFAULT_REVISION, project or DEFAULT_PROJECT, gitops_namespace
            )
        return command(*args, units=units, repo_path=repo_path, **kwargs)

    decorated: Callable[..., Any] = wrapper
    for option in reversed(
        (
            click.option("--repo-url", callback=_checked("url_problem"), metavar="URL",
                         help="With -o DIR --shard-size N and --target argocd|flux: also write the objects that sync "
                         "the shards from this Git repository (an ApplicationSet, or Flux Kustomizations and their "
                         "GitRepository) into DIR."),
            click.option("--revision", callback=_checked("revision_problem"), metavar="REV",
                         help="With --repo-url: the branch, refs/... name or commit to sync (default: HEAD, the "
                         "default branch, which Flux is given as the branch main)."),
            click.option("--repo-path", callback=_checked("repo_path_problem"), metavar="PATH",
                         help="With --repo-url: DIR's path from the repository's root (default: read with git; "
                         "outside a Git work tree, DIR is taken as the root)."),
            click.option("--project", callback=_checked("label_problem"), metavar="NAME",
                         help="With --repo-url and --target argocd: the Applications' Argo CD project (default: "
                         "default)."),
            click.option("--gitops-namespace", callback=_checked("label_problem"), metavar="NS",
                         help="With --repo-url: the namespace of the ApplicationSet (default: argocd) or of the Flux "
                         "objects (default: flux-system)."),
        )
    ):  # fmt: skip
        decorated = option(decorated)
    return decorated
