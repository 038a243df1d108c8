"""`mxjob integrations`: print the MXJob health checks for Argo CD (argocd-cm) and Flux (healthCheckExprs), and the
pull-request check script of the CI integrations."""

from __future__ import annotations

from typing import Any

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
    from mxjob_gitops.compiler.integrations.snippets import argocd_lua, argocd_patch

    with guarded():
        if fmt == "lua":
            if engine == "all":
                raise click.BadParameter("--format lua prints one script: choose --engine pods or jobset")
            click.echo(argocd_lua(engine), nl=False)
            return
        _print(argocd_patch(namespace, engine), fmt)


@integrations.command("flux-health", short_help="The Flux Kustomization health check for kubeflow.org/MXJob.")
@format_option(("yaml", "json"), "yaml", "How to print the Kustomization spec fragment.")
@ENGINE
@verbosity_options
def flux_health(fmt: str, engine: str) -> None:
    """Print `healthCheckExprs` (CEL, kustomize-controller v1.5+) for a Flux Kustomization's spec."""
    from mxjob_gitops.compiler.integrations.snippets import flux_fragment

    with guarded():
        _print(flux_fragment(engine), fmt)


@integrations.command("pr-check", short_help="The pull-request check script the GitHub Action and GitLab template run.")
@verbosity_options
def pr_check() -> None:
    """Print the bash script that validates, renders and diffs with one set of render options and writes the PR
    comment parts (action.yml and ci/gitlab/mxjob.gitlab-ci.yml run it; settings in its header)."""
    from mxjob_gitops.compiler.integrations.snippets import pr_check_script

    with guarded():
        click.echo(pr_check_script(), nl=False)


def _print(snippet: dict[str, Any], fmt: str) -> None:
    from mxjob_gitops.compiler.render.emit import to_json, to_yaml

    click.echo(to_json(snippet) if fmt == "json" else to_yaml(snippet), nl=False)
