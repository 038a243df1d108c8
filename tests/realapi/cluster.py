"""Start a real etcd + kube-apiserver on 127.0.0.1 the envtest way, and talk to it with kubectl and HTTPS."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.processes import die_with_parent, stop_processes

# Where `make envtest` (.ci/envtest.sh) installs the binaries it builds.
CACHE_BIN = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mxjob-gitops" / "envtest" / "bin"
ADMIN = "admin"
START_TIMEOUT = 120.0


class ClusterUnavailable(Exception):
    """The binaries are not installed (the tier is skipped, or fails under CI=true)."""


def find_binary(name: str) -> Path:
    """Look a binary up as controller-runtime's envtest does, then in our build cache, then on PATH.

    controller-runtime pkg/envtest (binaries.go, setupBinaries / process.BinPathFinder): an explicit
    TEST_ASSET_<NAME> variable wins, then the KUBEBUILDER_ASSETS directory.
    """
    explicit = os.environ.get("TEST_ASSET_" + name.upper().replace("-", "_"))
    candidates = [Path(explicit)] if explicit else []
    if os.environ.get("KUBEBUILDER_ASSETS"):
        candidates.append(Path(os.environ["KUBEBUILDER_ASSETS"]) / name)
    candidates.append(CACHE_BIN / name)
    on_path = shutil.which(name)
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    looked = ", ".join(str(c) for c in candidates) or "nowhere"
    raise ClusterUnavailable(f"no {name} binary (looked at {looked}); run `make envtest` or set KUBEBUILDER_ASSETS")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until(predicate: Callable[[], bool], timeout: float, what: str, interval: float = 0.1) -> None:
    """Poll a condition until it holds; fail with `what` when the bounded timeout passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")


def server_minor(apiserver: Path) -> int:
    """The minor version `kube-apiserver --version` prints (e.g. 20 for `Kubernetes v1.20.2`)."""
    out = subprocess.run([str(apiserver), "--version"], capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1].lstrip("v").split(".")[1])


@dataclass
class RealCluster:
    """etcd + kube-apiserver processes in a temporary directory; `with RealCluster() as c:` starts and stops."""

    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="mxjob-realapi-")))
    port: int = 0
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    minor: int = 0
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> Path:
        return self.workdir / "kubeconfig"

    @property
    def ca_file(self) -> Path:
        return self.workdir / "certs" / "apiserver.crt"

    def __enter__(self) -> RealCluster:
        etcd, apiserver = find_binary("etcd"), find_binary("kube-apiserver")
        self.minor = server_minor(apiserver)
        try:
            etcd_url = self._start_etcd(etcd)
            self._start_apiserver(apiserver, etcd_url)
            self._write_kubeconfig(self.kubeconfig, {"token": self.token})
            self.ensure_namespace("default")
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> None:
        stop_processes(self.processes, timeout=20)
        self.processes.clear()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def _spawn(self, name: str, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        log = (self.workdir / f"{name}.log").open("wb")
        process = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent
        )
        log.close()
        self.processes.append(process)
        return process

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.workdir / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def _start_etcd(self, etcd: Path) -> str:
        client, peer = free_port(), free_port()
        url = f"http://127.0.0.1:{client}"
        process = self._spawn(
            "etcd",
            [
                str(etcd),
                "--data-dir",
                str(self.workdir / "etcd"),
                "--name",
                "envtest",
                "--listen-client-urls",
                url,
                "--advertise-client-urls",
                url,
                "--listen-peer-urls",
                f"http://127.0.0.1:{peer}",
                "--initial-advertise-peer-urls",
                f"http://127.0.0.1:{peer}",
                "--initial-cluster",
                f"envtest=http://127.0.0.1:{peer}",
                "--log-level",
                "warn",
            ],
        )
        self._wait_http(process, "etcd", f"{url}/health", context=None)
        return url

    def _apiserver_args(self, etcd_url: str) -> list[str]:
        certs = self.workdir / "certs"
        certs.mkdir()
        key = certs / "sa.key"
        subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
        (certs / "tokens.csv").write_text(f'{self.token},{ADMIN},{ADMIN},"system:masters"\n')
        self.port = free_port()
        args = [
            f"--etcd-servers={etcd_url}",
            f"--cert-dir={certs}",
            f"--secure-port={self.port}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            "--service-cluster-ip-range=10.96.0.0/24",
            "--authorization-mode=RBAC",
            f"--token-auth-file={certs / 'tokens.csv'}",
            "--allow-privileged=true",
            f"--service-account-key-file={key}",
            f"--service-account-signing-key-file={key}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--api-audiences=https://kubernetes.default.svc.cluster.local",
            "--endpoint-reconciler-type=none",
        ]
        if self.minor < 21:
            # Without a controller-manager no token Secret is ever minted; 1.20 needs this (then alpha) gate
            # for the ServiceAccount admission plugin to project tokens instead (beta and on by default in 1.21).
            args += ["--feature-gates=BoundServiceAccountTokenVolume=true", "--insecure-port=0"]
        return args

    def _start_apiserver(self, apiserver: Path, etcd_url: str) -> None:
        process = self._spawn("kube-apiserver", [str(apiserver), *self._apiserver_args(etcd_url)])
        wait_until(self.ca_file.exists, START_TIMEOUT, "kube-apiserver's self-signed certificate")
        context = ssl.create_default_context(cafile=str(self.ca_file))
        self._wait_http(process, "kube-apiserver", f"{self.url}/readyz", context)

    def _wait_http(self, process: subprocess.Popen[bytes], name: str, url: str, context: ssl.SSLContext | None) -> None:
        def ready() -> bool:
            if process.poll() is not None:
                raise ClusterUnavailable(f"{name} exited with {process.returncode}:\n{self.log_tail(name)}")
            request = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token}"})
            try:
                with urllib.request.urlopen(request, timeout=5, context=context) as response:
                    return bool(response.status == 200)
            except (urllib.error.URLError, OSError):
                return False

        wait_until(ready, START_TIMEOUT, f"{name} at {url}", interval=0.2)

    def _write_kubeconfig(self, path: Path, user: dict[str, str], namespace: str = "default") -> Path:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "envtest",
            "clusters": [
                {"name": "envtest", "cluster": {"server": self.url, "certificate-authority": str(self.ca_file)}}
            ],
            "users": [{"name": "envtest", "user": user}],
            "contexts": [
                {"name": "envtest", "context": {"cluster": "envtest", "user": "envtest", "namespace": namespace}}
            ],
        }
        path.write_text(yaml.safe_dump(config))
        return path

    def kubeconfig_for_token(self, path: Path, token: str, namespace: str = "default") -> Path:
        return self._write_kubeconfig(path, {"token": token}, namespace)

    # --- talking to it -------------------------------------------------------------------------------------

    def kubectl(
        self, *args: str, stdin: str | None = None, check: bool = True, kubeconfig: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        kubectl = shutil.which("kubectl")
        if kubectl is None:
            raise ClusterUnavailable("kubectl is not on PATH")
        result = subprocess.run(
            [kubectl, "--kubeconfig", str(kubeconfig or self.kubeconfig), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} exited {result.returncode}:\n{result.stderr}")
        return result

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json"
    ) -> tuple[int, dict[str, Any]]:
        """One HTTPS request as the admin; returns the status code and the decoded JSON body."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": content_type,
                "Accept": "application/json",
            },
        )
        context = ssl.create_default_context(cafile=str(self.ca_file))
        try:
            with urllib.request.urlopen(request, timeout=30, context=context) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            with error:
                return error.code, json.loads(error.read() or b"{}")

    def replay(self, path: str) -> list[dict[str, Any]]:
        """The watch events of a collection after the `resourceVersion` given in `path`, as the server's watch cache
        replays them; the watch is asked to end after a second, which is when this returns."""
        request = urllib.request.Request(
            f"{self.url}{path}&watch=1&timeoutSeconds=1",
            headers={"Authorization": f"Bearer {self.token}", "Accept": "application/json"},
        )
        context = ssl.create_default_context(cafile=str(self.ca_file))
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            return [json.loads(line) for line in response.read().splitlines() if line.strip()]

    def get(self, path: str) -> dict[str, Any] | None:
        code, body = self.request("GET", path)
        if code == 404:
            return None
        assert code == 200, body
        return body

    def wait_established(self, crd: str, timeout: float = 60) -> None:
        """Poll until a CRD is Established (kubectl wait errors out while status.conditions is still null)."""

        def established() -> bool:
            found = self.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}") or {}
            conditions = (found.get("status") or {}).get("conditions") or []
            return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)

        wait_until(established, timeout, f"CRD {crd} to be Established")

    def ensure_namespace(self, name: str) -> None:
        """A namespace with the `default` ServiceAccount a controller-manager would have created."""
        for path, obj in (
            ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
            (
                f"/api/v1/namespaces/{name}/serviceaccounts",
                {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}},
            ),
        ):
            code, body = self.request("POST", path, obj)
            assert code in (201, 409), body
