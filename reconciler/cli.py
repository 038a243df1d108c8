"""`mxjob reconcile`: registered through the `mxjob.commands` entry point, so the compiler never imports it."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import click

from compiler.cli.exits import USAGE, fail, guarded


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
                                 "level": record.levelname.lower(), "message": record.getMessage()}
        for key in ("job", "action", "conditions"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        return json.dumps(entry)


class _TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        job = f" [{record.job}]" if hasattr(record, "job") else ""
        extra = f" {record.conditions}" if hasattr(record, "conditions") else ""
        return f"{self.formatTime(record, '%H:%M:%S')} {record.levelname.lower()}{job} {record.getMessage()}{extra}"


def configure_logging(fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter() if fmt == "json" else _TextFormatter())
    logger = logging.getLogger("mxjob")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False


@click.command(short_help="Turn pod exit codes into MXJob status and restarts (a small controller).")
@click.option("--kubeconfig", type=click.Path(dir_okay=False), envvar="KUBECONFIG",
              help="kubeconfig file (default KUBECONFIG, ~/.kube/config, else in-cluster).")
@click.option("--context", "kube_context", help="kubeconfig context.")
@click.option("-n", "--namespace", "namespaces", multiple=True, help="Watch this namespace (repeatable; default all).")
@click.option("--once", is_flag=True, help="One full pass over every job, then exit (cron, CI).")
@click.option("--dry-run", is_flag=True, help="Log what would be done; change nothing.")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--restart-mode", type=click.Choice(["recreate", "gitops"]), default="recreate", show_default=True,
              help="recreate: delete a failed pod and create it again from the rendering; gitops: only delete "
                   "and let Argo CD or Flux recreate it.")
@click.option("--exit-codes", default="", metavar="CODE=CLASS,...",
              help="Override the exit-code table, e.g. 1=retryable,137=permanent,OOMKilled=retryable.")
@click.option("--argocd-namespace", default="argocd", show_default=True,
              help="Where Argo CD Applications live, for refresh nudges in gitops mode.")
@click.option("--metrics-address", default=":8080", show_default=True, help="Prometheus /metrics address.")
@click.option("--health-address", default=":8081", show_default=True, help="/healthz and /readyz address.")
@click.option("--leader-election/--no-leader-election", default=True, show_default=True,
              help="Act only while holding a coordination.k8s.io Lease (run two replicas safely).")
@click.option("--leader-election-namespace", default="default", show_default=True, envvar="POD_NAMESPACE")
def reconcile(kubeconfig: str | None, kube_context: str | None, namespaces: tuple[str, ...], once: bool,
              dry_run: bool, log_format: str, restart_mode: str, exit_codes: str, argocd_namespace: str,
              metrics_address: str, health_address: str, leader_election: bool,
              leader_election_namespace: str) -> None:
    """Watch MXJobs and their pods; write status, restart pods whose exit code is retryable."""
    from reconciler.apply import ApplySettings
    from reconciler.exitcodes import ExitTable
    from reconciler.kube import Cluster, ClusterError
    from reconciler.runner import Reconciler, Settings

    with guarded():
        configure_logging(log_format)
        try:
            table = ExitTable.parse(exit_codes)
        except ValueError as exc:
            raise fail(f"--exit-codes {exc}", USAGE) from None
        settings = Settings(tuple(namespaces), table,
                            ApplySettings(dry_run, restart_mode == "recreate", argocd_namespace))
        try:
            cluster = Cluster.connect(kubeconfig, kube_context)
            reconciler = Reconciler(cluster, settings)
            if once:
                plans = reconciler.run_once()
                logging.getLogger("mxjob.reconcile").info(f"one pass done: {len(plans)} jobs")
                return
            from reconciler.controller import serve

            serve(reconciler, metrics_address, health_address,
                  leader_election_namespace if leader_election else None)
        except ClusterError as exc:
            raise fail(str(exc), USAGE) from None
