"""`mxjob reconcile`: registered through the `mxjob.commands` entry point, so the compiler never imports it."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

import click

from mxjob_gitops.compiler.base.asciinum import decimal, whole
from mxjob_gitops.compiler.cli.exits import FINDINGS, USAGE, fail
from mxjob_gitops.compiler.cli.flags import DecimalRange, WholeRange, cluster_options, verbosity, verbosity_options
from mxjob_gitops.compiler.cli.guard import guarded
from mxjob_gitops.reconciler.jobs import DEFAULT_MAX_PODS
from mxjob_gitops.reconciler.vocabulary import RestartMode


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname.lower(),
            "message": record.getMessage(),
        }
        for key in ("job", "action", "conditions"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        return json.dumps(entry)


class _TextFormatter(logging.Formatter):
    """`2026-11-27T11:08:42Z info [namespace/job] message`: ISO 8601 times in UTC, as kubectl and the API print."""

    converter = staticmethod(time.gmtime)  # logging's documented hook: times in UTC

    def format(self, record: logging.LogRecord) -> str:
        job = f" [{record.job}]" if hasattr(record, "job") else ""
        return f"{self.formatTime(record, '%Y-%m-%dT%H:%M:%SZ')} {record.levelname.lower()}{job} {record.getMessage()}"


def configure_logging(fmt: str, verbosity: int = 0) -> None:
    """Logs go to stderr; -q keeps warnings and errors, -v adds debug records."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter() if fmt == "json" else _TextFormatter())
    logger = logging.getLogger("mxjob")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.ERROR if verbosity < 0 else logging.DEBUG if verbosity > 0 else logging.INFO)
    logger.propagate = False


def _address(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """[HOST]:PORT for reconciler.health, the port in ASCII digits from 0 to its MAX_PORT (a usage error otherwise)."""
    from mxjob_gitops.reconciler.health import MAX_PORT, port_of

    if port_of(value) is None:
        raise click.BadParameter(f"{value!r}: give [HOST]:PORT, the port a whole number from 0 to {MAX_PORT}")
    return value


@click.command(short_help="Turn pod exit codes into MXJob status and restarts (a small controller).")
@cluster_options
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    multiple=True,
    help="Watch this namespace (repeatable). Default, as kubectl's: the in-cluster namespace, else the kubeconfig "
    "context's, else `default`, so that a namespace-scoped Role is enough.",
)
@click.option(
    "-A", "--all-namespaces", is_flag=True, help="Watch every namespace (needs a ClusterRole, as overlays/base has)."
)
@click.option(
    "--once",
    is_flag=True,
    help="One full pass over every job, then exit (cron, CI). With leader election on (the default) the pass "
    "first takes the Lease, and holds it until it ends, so it never acts beside a running reconciler: exit 2 if "
    "another holder keeps it for a whole lease duration.",
)
@click.option("--dry-run", is_flag=True, help="Log what would be done; change nothing.")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--restart-mode",
    type=click.Choice([m.value for m in RestartMode]),
    default=RestartMode.RECREATE.value,
    show_default=True,
    help="recreate: delete a failed pod and create it again from the rendering; gitops: only delete "
    "and let Argo CD or Flux recreate it.",
)
@click.option(
    "--exit-codes",
    default="",
    metavar="CODE=CLASS,...",
    help="Override the exit-code table, e.g. 1=retryable,137=permanent,OOMKilled=retryable.",
)
@click.option(
    "--argocd-namespace",
    default="argocd",
    show_default=True,
    help="Where Argo CD Applications live, for refresh nudges in gitops mode.",
)
@click.option(
    "--flux-namespace",
    default="flux-system",
    show_default=True,
    help="Where Flux Kustomizations live (besides the job's own namespace), for reconcile nudges in gitops mode.",
)
@click.option(
    "--metrics-address", default=":8080", show_default=True, callback=_address, help="Prometheus /metrics address."
)
@click.option(
    "--health-address", default=":8081", show_default=True, callback=_address, help="/healthz and /readyz address."
)
@click.option(
    "--leader-election/--no-leader-election",
    default=True,
    show_default=True,
    help="Act only while holding a coordination.k8s.io Lease (run two replicas safely).",
)
@click.option(
    "--leader-election-namespace",
    envvar="POD_NAMESPACE",
    show_envvar=True,
    help="Where the Lease lives (default: the in-cluster namespace, else the kubeconfig context's).",
)
@click.option(
    "--leader-election-timings",
    default="15,10,2",
    show_default=True,
    metavar="LEASE,RENEW,RETRY",
    help="Lease duration, renew deadline and retry period in seconds (lease > renew > retry).",
)
@click.option(
    "--workers",
    type=WholeRange(1, 64),
    default=16,
    show_default=True,
    help="Jobs reconciled at the same time (one job is never worked on twice at once): their requests are what a "
    "burst of exits waits on.",
)
@click.option(
    "--watch-timeout",
    type=WholeRange(1, 3600),
    default=60,
    show_default=True,
    help="Server-side watch timeout (s); a watch silent this long plus 10 s is re-listed, and "
    "/healthz fails after twice this plus 30 s of silence.",
)
@click.option(
    "--max-pods",
    type=WholeRange(1),
    default=DEFAULT_MAX_PODS,
    show_default=True,
    help="Refuse (Event + Refused condition) a job with more pods, or more replicas of one type.",
)
@click.option(
    "--pass-timeout",
    type=DecimalRange(1),
    default=60.0,
    show_default=True,
    help="--once: seconds each job may spend (its own requests and waits, retries and restarts included).",
)
@verbosity_options
def reconcile(
    kubeconfig: str | None,
    kube_context: str | None,
    namespaces: tuple[str, ...],
    all_namespaces: bool,
    once: bool,
    dry_run: bool,
    log_format: str,
    restart_mode: str,
    exit_codes: str,
    argocd_namespace: str,
    flux_namespace: str,
    metrics_address: str,
    health_address: str,
    leader_election: bool,
    leader_election_namespace: str | None,
    leader_election_timings: str,
    workers: int,
    watch_timeout: int,
    max_pods: int,
    pass_timeout: float,
) -> None:
    """Watch MXJobs and their pods; write status, restart pods whose exit code is retryable.

    Exit codes: 0 done (--once: every job reconciled); 1 (--once) some jobs could not be reconciled (each
    is named on stderr: invalid, refused as too large, or an API error that outlasted the pass's retries);
    2 usage or environment (bad flags, no cluster; with --once, jobs that cannot be listed); 3 a bug in mxjob.
    Without --once a failing list or watch is retried with back-off (up to 30 s) and /readyz fails meanwhile."""
    from mxjob_gitops.compiler.io.extras import require

    with guarded():
        require("cluster", "mxjob reconcile")
    from mxjob_gitops.compiler.spec.exitcodes import ExitTable
    from mxjob_gitops.reconciler.apply import ApplySettings
    from mxjob_gitops.reconciler.jobs import Bounds
    from mxjob_gitops.reconciler.kube import Cluster, ClusterError
    from mxjob_gitops.reconciler.runner import Reconciler, Settings

    with guarded():
        configure_logging(log_format, verbosity())
        try:
            table = ExitTable.parse(exit_codes)
        except ValueError as exc:
            raise fail(f"--exit-codes {exc}", USAGE) from None
        timings = _timings(leader_election_timings)
        if all_namespaces and namespaces:
            raise fail("give -n/--namespace or -A/--all-namespaces, not both", USAGE)
        settings = Settings(
            () if all_namespaces else namespaces or (lease_namespace(kubeconfig, kube_context),),
            table,
            ApplySettings(dry_run, RestartMode(restart_mode) is RestartMode.RECREATE, argocd_namespace, flux_namespace),
            Bounds(max_pods, max_pods),
        )
        try:
            from mxjob_gitops.reconciler.apply import EVENT_SENDERS
            from mxjob_gitops.reconciler.controller import identity

            # Every worker and event sender, the two watches of each namespace, and the Lease may each hold a
            # connection at once.
            connections = workers + EVENT_SENDERS + 2 * max(len(settings.namespaces), 1) + 1
            cluster = Cluster.connect(
                kubeconfig, kube_context, f"mxjob-reconciler/{identity()}", connections=connections
            )
            cluster.require_mxjobs()
            reconciler = Reconciler(cluster, settings)
            cluster.count_requests(lambda verb: reconciler.metrics.api_requests.labels(verb).inc())
            logging.getLogger("mxjob.reconcile").info(
                f"watching {', '.join(settings.namespaces) if settings.namespaces else 'every namespace'}"
            )
            from mxjob_gitops.reconciler.leader import LeaderElector

            elector = None
            if leader_election:
                namespace = leader_election_namespace or lease_namespace(kubeconfig, kube_context)
                elector = LeaderElector(cluster, namespace, identity(), reconciler.clock, *timings)
            if once:
                from mxjob_gitops.reconciler.leading import LeaseHeld, holding

                try:
                    with holding(elector, reconciler):
                        _once(reconciler, pass_timeout)
                except LeaseHeld as exc:
                    raise fail(str(exc), USAGE) from None
                return
            from mxjob_gitops.reconciler.controller import serve

            serve(reconciler, metrics_address, health_address, elector, workers=workers, watch_timeout=watch_timeout)
        except ClusterError as exc:
            raise fail(str(exc), USAGE) from None


def _once(reconciler: Any, timeout: float) -> None:
    problems = reconciler.run_once(timeout)
    logger = logging.getLogger("mxjob.reconcile")
    for (namespace, name), problem in sorted(problems.items()):
        logger.error(f"not reconciled: {problem}", extra={"job": f"{namespace}/{name}"})
    if problems:
        raise fail(f"{len(problems)} job(s) could not be reconciled in this pass", FINDINGS)
    logger.info("one pass done: every job reconciled")


def _timings(text: str) -> tuple[int, float, float]:
    """LEASE,RENEW,RETRY in ASCII digits, `15,10,2` or `15,10,0.5`: no spaces, signs, exponents, `inf` or `nan`."""
    parts = text.split(",")
    lease, renew, retry = (
        (whole(parts[0]), decimal(parts[1]), decimal(parts[2])) if len(parts) == 3 else (None, None, None)
    )
    if lease is None or renew is None or retry is None:
        raise fail(f"--leader-election-timings {text!r}: LEASE,RENEW,RETRY (whole seconds, then seconds)", USAGE)
    if not 0 < retry < renew < lease:
        raise fail(
            "--leader-election-timings: the lease must outlast the renew deadline, which must outlast the retry period",
            USAGE,
        )
    return lease, renew, retry


IN_CLUSTER_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


def lease_namespace(kubeconfig: str | None, context: str | None, in_cluster_file: str = IN_CLUSTER_NAMESPACE) -> str:
    """The in-cluster namespace file (the Role that grants the Lease lives there), else the namespace of the
    kubeconfig context, else `default` — the order client-go's clientcmd uses for a namespace."""
    try:
        with open(in_cluster_file, encoding="utf-8") as handle:
            found = handle.read().strip()
        if found:
            return found
    except OSError:
        pass
    from mxjob_gitops.reconciler.kube import context_namespace

    return context_namespace(kubeconfig, context) or "default"
