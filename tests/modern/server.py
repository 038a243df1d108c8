"""One etcd + crd-apiserver v1.36 on 127.0.0.1 (free ports, a temporary directory), driven with kubectl 1.36.

crd-apiserver is upstream k8s.io/apiextensions-apiserver with a main that serves it alone: CRDs and custom
resources, no core API. `--anonymous-admin` makes every request admin, so kubectl gets any token.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import yaml

from tests.processes import die_with_parent, stop_processes
from tests.realapi.cluster import free_port, wait_until
from tests.realapi.test_crd import differences
from tests.realcomp import realcomp_bin

START_TIMEOUT = 60.0


class ModernServer:
    """Context manager: start etcd and crd-apiserver, stop both on exit."""

    def __init__(self) -> None:
        self.etcd = realcomp_bin("etcd")
        self.apiserver = realcomp_bin("crd-apiserver")
        self.kubectl_bin = realcomp_bin("kubectl")
        self._tmp = tempfile.TemporaryDirectory(prefix="mxjob-modern-")
        self.dir = Path(self._tmp.name)
        self._procs: list[subprocess.Popen[bytes]] = []
        self._logs: list[IO[bytes]] = []
        self.url = ""
        self.kubeconfig = self.dir / "kubeconfig"

    def _start(self, argv: list[str], log: str) -> None:
        out = (self.dir / log).open("wb")
        self._logs.append(out)
        self._procs.append(subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, preexec_fn=die_with_parent))

    def __enter__(self) -> ModernServer:
        client, peer, metrics, secure = free_port(), free_port(), free_port(), free_port()
        etcd_url = f"http://127.0.0.1:{client}"
        self._start(
            [
                str(self.etcd),
                "--data-dir", str(self.dir / "etcd"),
                "--listen-client-urls", etcd_url,
                "--advertise-client-urls", etcd_url,
                "--listen-peer-urls", f"http://127.0.0.1:{peer}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
                "--initial-cluster", f"default=http://127.0.0.1:{peer}",
                "--listen-metrics-urls", f"http://127.0.0.1:{metrics}",
            ],
            "etcd.log",
        )  # fmt: skip
        self._start(
            [
                str(self.apiserver),
                f"--etcd-servers={etcd_url}",
                "--bind-address=127.0.0.1",
                f"--secure-port={secure}",
                f"--cert-dir={self.dir / 'certs'}",
                "--anonymous-admin",
            ],
            "apiserver.log",
        )
        self.url = f"https://127.0.0.1:{secure}"
        ca = self.dir / "certs" / "apiserver.crt"  # the self-signed serving certificate, its own CA
        self.kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\ncurrent-context: modern\n"
            f"clusters: [{{name: modern, cluster: {{server: '{self.url}', certificate-authority: '{ca}'}}}}]\n"
            "users: [{name: anonymous, user: {token: anonymous}}]\n"
            "contexts: [{name: modern, context: {cluster: modern, user: anonymous}}]\n",
            encoding="utf-8",
        )
        wait_until(self._ready, START_TIMEOUT, f"crd-apiserver ready at {self.url} (logs in {self.dir})", 0.2)
        return self

    def _ready(self) -> bool:
        for proc in self._procs:
            if proc.poll() is not None:
                log = (self.dir / "apiserver.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"a server process exited ({proc.args!r}): {log}")
        return self.run("get", "--raw", "/readyz").returncode == 0

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        stop_processes(self._procs, timeout=10)
        for out in self._logs:
            out.close()
        self._tmp.cleanup()

    def kubectl_argv(self, *args: str) -> list[str]:
        return [str(self.kubectl_bin), "--server", self.url, "--insecure-skip-tls-verify", "--token=anonymous", *args]

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """kubectl with the given arguments; never raises on a non-zero exit."""
        return subprocess.run(self.kubectl_argv(*args), input=stdin, capture_output=True, text=True, timeout=60)

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        """kubectl that must succeed; its stdout."""
        done = self.run(*args, stdin=stdin)
        assert done.returncode == 0, f"kubectl {' '.join(args)} failed:\n{done.stderr}"
        return done.stdout

    def wait_established(self, crd: str) -> None:
        """Established, and the new resource served (discovery can lag the condition by a moment)."""

        def established() -> bool:
            done = self.run("get", "crd", crd, "-o", "jsonpath={.status.conditions[?(@.type=='Established')].status}")
            return done.stdout.strip() == "True" and self.run("get", crd).returncode == 0

        wait_until(established, 30, f"{crd} established and served", 0.2)


def install(server: ModernServer, path: Path) -> list[str]:
    """Apply the CRDs of `path` server-side and wait until each is Established and served; their names."""
    server.kubectl("apply", "--server-side", "--field-manager=mxjob-tests", "-f", str(path))
    names = [d["metadata"]["name"] for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    for name in names:
        server.wait_established(name)
    return names


def apply_strictly(server: ModernServer, document: dict[str, Any]) -> list[str]:
    """Apply one object server-side with strict field validation (the call must succeed with nothing on stderr)
    and read it back: what its CRD pruned or changed in `spec` (fields the server only added do not count)."""
    done = server.run(
        "apply", "--server-side", "--field-manager=mxjob", "--validate=strict", "-f", "-", stdin=json.dumps(document)
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    stored = json.loads(server.kubectl("get", "-f", "-", "-o", "json", stdin=json.dumps(document)))
    if stored["kind"] == "List":
        [stored] = stored["items"]
    return [d for d in differences(document["spec"], stored["spec"], "spec") if "added by the server" not in d]
