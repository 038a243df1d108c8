"""`mxjob integrations`: print the MXJob health checks for Argo CD (argocd-cm) and Flux (healthCheckExprs)."""

from __future__ import annotations

import click

from mxjob_gitops.compiler.cli.flags import format_option, verbosity_options
from mxjob_gitops.compiler.cli.guard import guarded

# --engine of the health-check commands: which kind's check to print.
ENGINE = click.option(
    "--engine",
    type=click.Choice(("pods", "jobset", "all")),
    default="pods",
    show_default=True,
    help="The kind to check: MXJob (pods engine), JobSet (`render --engine jobset`), or both.",
)


@click.group(short_help="Print GitOps integration snippets (MXJob health checks for Argo CD and Flux).")
@verbosity_options
def integrations() -> None:
    """Print ready-to-use snippets that teach Argo CD and Flux how healthy an MXJob is.

    They read the status `mxjob reconcile` writes; see docs/argocd.md and docs/flux.md for where they go.
    """


@integrations.command("argocd-health", short_help="The Argo CD health check for kubeflow.org/MXJob.")
@format_option(
    ("yaml", "json", "lua"),
    "yaml",
    "yaml/json: an argocd-cm ConfigMap to merge (kubectl patch --type merge, or a kustomize "
    "patch); lua: the script alone.",
)
@click.option(
    "-n", "--namespace", default="argocd", show_default=True, metavar="NAMESPACE", help="Namespace of argocd-cm."
)
@ENGINE
@verbosity_options
def argocd_health(fmt: str, namespace: str, engine: str) -> None:
    """Print the Lua health check as argocd-cm's resource.customizations.health.kubeflow.org_MXJob key
    (with --engine jobset: ...health.jobset.x-k8s.io_JobSet)."""
    from mxjob_gitops.compiler.integrations import jobset_health
    from mxjob_gitops.compiler.integrations.health import argocd_cm, argocd_health_lua
    from mxjob_gitops.compiler.render.emit import to_json, to_yaml

    with guarded():
        if fmt == "lua":
            if engine == "all":
                raise click.BadParameter("--format lua prints one script: choose --engine pods or jobset")
            click.echo(argocd_health_lua() if engine == "pods" else jobset_health.argocd_health_lua(), nl=False)
            return
        patch = argocd_cm(namespace)
        if engine != "pods":
            data = {} if engine == "jobset" else patch["data"]
            patch["data"] = {**data, jobset_health.ARGOCD_CM_KEY: jobset_health.argocd_health_lua()}
        click.echo(to_json(patch) if fmt == "json" else to_yaml(patch), nl=False)


@integrations.command("flux-health", short_help="The Flux Kustomization health check for kubeflow.org/MXJob.")
@format_option(("yaml", "json"), "yaml", "How to print the Kustomization spec fragment.")
@ENGINE
@verbosity_options
def flux_health(fmt: str, engine: str) -> None:
    """Print `healthCheckExprs` (CEL, kustomize-controller v1.5+) for a Flux Kustomization's spec."""
    from mxjob_gitops.compiler.integrations import jobset_health
    from mxjob_gitops.compiler.integrations.health import flux_health_check
    from mxjob_gitops.compiler.render.emit import to_json, to_yaml

    with guarded():
        checks = [flux_health_check()] if engine != "jobset" else []
        if engine != "pods":
            checks.append(jobset_health.flux_health_check())
        fragment = {"healthCheckExprs": checks}
        click.echo(to_json(fragment) if fmt == "json" else to_yaml(fragment), nl=False)
