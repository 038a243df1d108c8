"""The JobSet engine against real components: the JobSet CRD (with its CEL rules) on a 1.36 CRD server takes every
rendering of every example by server-side apply with strict field validation, and each embedded Pod template
passes the 1.36 Pod validation (core-validate), wrapped in a Pod as the Job controller makes one.

The session fixture starts its own etcd and crd-apiserver on free 127.0.0.1 ports.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, run_cli
from tests.fakeapi import free_port
from tests.realcomp import realcomp_bin, realcomp_share

# Every example that holds an MXJob spec (kustomize overlays are patches; their base is here).
EXAMPLES = sorted(p for p in (REPO / "examples").rglob("*.yaml") if "mxReplicaSpecs:" in p.read_text(encoding="utf-8"))
VARIANTS: tuple[tuple[str, list[str]], ...] = (
    ("plain", []),
    ("kueue", ["--gang-scheduler", "kueue=team-a"]),
    ("exit-codes", ["--exit-codes", "137=permanent,3=retryable,Evicted=permanent"]),
    ("argocd", ["--target", "argocd"]),
)


class CrdServer:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.processes: list[subprocess.Popen[bytes]] = []
        self.logs: list[Any] = []
        client, peer, metrics, secure = (free_port() for _ in range(4))
        etcd = str(realcomp_bin("etcd"))
        self.processes.append(
            self._start(
                "etcd",
                [
                    etcd,
                    "--data-dir",
                    str(root / "etcd"),
                    "--listen-client-urls",
                    f"http://127.0.0.1:{client}",
                    "--advertise-client-urls",
                    f"http://127.0.0.1:{client}",
                    "--listen-peer-urls",
                    f"http://127.0.0.1:{peer}",
                    "--initial-advertise-peer-urls",
                    f"http://127.0.0.1:{peer}",
                    "--initial-cluster",
                    f"default=http://127.0.0.1:{peer}",
                    "--listen-metrics-urls",
                    f"http://127.0.0.1:{metrics}",
                ],
            )
        )
        self.processes.append(
            self._start(
                "crd-apiserver",
                [
                    str(realcomp_bin("crd-apiserver")),
                    f"--etcd-servers=http://127.0.0.1:{client}",
                    "--bind-address=127.0.0.1",
                    f"--secure-port={secure}",
                    f"--cert-dir={root / 'certs'}",
                    "--anonymous-admin",
                ],
            )
        )
        self.kubectl_args = [
            str(realcomp_bin("kubectl")),
            "--server",
            f"https://127.0.0.1:{secure}",
            "--insecure-skip-tls-verify",
            "--token=anonymous",
        ]
        deadline = time.monotonic() + 60
        while self.kubectl("get", "--raw", "/readyz", check=False).returncode != 0:
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                self.stop()
                raise RuntimeError(f"the CRD server did not start: {self._logs()}")
            time.sleep(0.2)

    def _start(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.root / f"{name}.log", "wb")  # noqa: SIM115 (kept open for the process's life)
        self.logs.append(log)
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)

    def _logs(self) -> str:
        return "".join((self.root / f"{n}.log").read_text(errors="replace")[-2000:] for n in ("etcd", "crd-apiserver"))

    def kubectl(self, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([*self.kubectl_args, *args], input=stdin, capture_output=True, text=True, timeout=120)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)[:200]}: {result.stderr[:3000]}")
        return result

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in self.logs:
            log.close()


@pytest.fixture(scope="session")
def jobset_server() -> Iterator[CrdServer]:
    crd = realcomp_share() / "crds" / "jobset" / "jobset.x-k8s.io_jobsets.yaml"
    with tempfile.TemporaryDirectory(prefix="jobset-crd-") as root:
        server = CrdServer(Path(root))
        try:
            server.kubectl("apply", "--server-side", "-f", str(crd))
            path = "jsonpath={.status.conditions[?(@.type=='Established')].status}"
            deadline = time.monotonic() + 60
            while server.kubectl("get", "crd", "jobsets.jobset.x-k8s.io", "-o", path, check=False).stdout != "True":
                assert time.monotonic() < deadline, "the JobSet CRD did not become Established"
                time.sleep(0.2)
            yield server
        finally:
            server.stop()


def _render(example: Path, flags: list[str]) -> list[dict[str, Any]]:
    result = run_cli(["render", "--engine", "jobset", *flags, str(example)])
    assert result.exit_code == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


@pytest.mark.parametrize("flags", [v[1] for v in VARIANTS], ids=[v[0] for v in VARIANTS])
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.parent.name + "/" + p.stem for p in EXAMPLES])
def test_the_crd_server_takes_every_rendering(jobset_server: CrdServer, example: Path, flags: list[str]) -> None:
    documents = _render(example, flags)
    assert [d["kind"] for d in documents] == ["JobSet"]
    namespace = documents[0]["metadata"].get("namespace") or "t-" + example.stem.replace("_", "-")
    text = yaml.safe_dump_all(documents)
    jobset_server.kubectl(
        "apply",
        "--server-side",
        "--validate=strict",  # fieldValidation=Strict on the request
        "--field-manager=mxjob",
        "-n",
        namespace,
        "-f",
        "-",
        stdin=text,
    )
    name = documents[0]["metadata"]["name"]
    stored = json.loads(jobset_server.kubectl("get", "-n", namespace, "jobset", name, "-o", "json").stdout)
    # Nothing we wrote was pruned or changed by the schema (the server adds only defaults we leave out).
    assert _contains(stored["spec"], documents[0]["spec"]), stored["spec"]
    jobset_server.kubectl("delete", "-n", namespace, "jobset", name)


def _contains(stored: Any, written: Any) -> bool:
    if isinstance(written, dict):
        return isinstance(stored, dict) and all(k in stored and _contains(stored[k], v) for k, v in written.items())
    if isinstance(written, list):
        return isinstance(stored, list) and len(stored) == len(written) and all(map(_contains, stored, written))
    return bool(stored == written)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.parent.name + "/" + p.stem for p in EXAMPLES])
def test_every_pod_template_passes_pod_validation(example: Path, tmp_path: Path) -> None:
    validate = realcomp_bin("core-validate")
    pods = []
    for document in _render(example, []):
        name = document["metadata"]["name"]
        for rjob in document["spec"]["replicatedJobs"]:
            template = rjob["template"]["spec"]["template"]
            # As the Job controller creates them: the template, a name, and the subdomain JobSet sets.
            metadata = {**template["metadata"], "name": f"{name}-{rjob['name']}-0-0"}
            spec = {**template["spec"], "subdomain": document["spec"]["network"]["subdomain"]}
            pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    path = tmp_path / "pods.yaml"
    path.write_text(yaml.safe_dump_all(pods), encoding="utf-8")
    result = subprocess.run([str(validate), str(path)], capture_output=True, text=True, timeout=60)
    verdicts = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert len(verdicts) == len(pods), result.stderr
    assert all(not v.get("errors") for v in verdicts), verdicts
    assert result.returncode == 0
