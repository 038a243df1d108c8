"""One network namespace per pod, joined by veth pairs to a bridge inside a private hub namespace."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# `ip netns exec NAME` bind-mounts every file of /etc/netns/NAME over /etc (iproute2 ip/ipnetns.c, netns_exec →
# bind_etc), which is how each pod gets its own hosts file: our stand-in for the cluster DNS.
ETC_NETNS = Path("/etc/netns")
RUN_NETNS = Path("/run/netns")  # where `ip netns add` keeps the named namespaces
PREFIX = "mxe2e"
IP_TIMEOUT = 20.0
# Every name is `mxe2e-<pid of the test process>-<random token>-…`: the random token keeps concurrent runs apart, the
# pid tells a later run whose namespaces were left behind by a test process that was killed (see sweep()).
OWNED = re.compile(rf"^{PREFIX}-(\d+)-")


class NetnsError(RuntimeError):
    """An `ip` command failed while building or removing the pods' network."""


@dataclass(frozen=True)
class PodNet:
    """Where one pod lives: its network namespace, its address and its hostname."""

    netns: str
    ip: str
    hostname: str


def ip(*args: str) -> None:
    """Run one `ip` command with a hard time bound; a failure is a NetnsError with its stderr."""
    try:
        done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=IP_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise NetnsError(f"ip {' '.join(args)}: no answer in {IP_TIMEOUT:.0f}s") from exc
    if done.returncode != 0:
        raise NetnsError(f"ip {' '.join(args)}: {done.stderr.strip()}")


def unavailable_reason() -> str | None:
    """Why this machine cannot create network namespaces, or None when it can (probed by making one)."""
    if shutil.which("ip") is None or shutil.which("unshare") is None:
        return "the `ip` (iproute2) and `unshare` (util-linux) commands are needed to create network namespaces"
    probe = f"{PREFIX}-{os.getpid()}-probe-{secrets.token_hex(4)}"
    try:
        ip("netns", "add", probe)
    except NetnsError as exc:
        return f"cannot create a network namespace here: {exc}"
    ip("netns", "del", probe)
    return None


def hosts_file(own: PodNet, services: Mapping[str, str], namespace: str) -> str:
    """The pod's /etc/hosts: localhost, the pod itself (as kubelet writes it), then every Service name and FQDN form."""
    lines = ["127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback", f"{own.ip}\t{own.hostname}"]
    for name, address in sorted(services.items()):
        forms = [name, f"{name}.{namespace}", f"{name}.{namespace}.svc", f"{name}.{namespace}.svc.cluster.local"]
        lines.append(f"{address}\t{' '.join(forms)}")
    return "\n".join(lines) + "\n"


class Network:
    """The namespaces of one run; names carry a random token so concurrent runs never meet."""

    def __init__(self, pods: Mapping[str, str]) -> None:
        """`pods` maps each pod's name to its hostname."""
        token = secrets.token_hex(4)
        self.hub = f"{PREFIX}-{os.getpid()}-{token}-hub"
        # A private /24 that exists only inside the namespaces made here (nothing is added to the host's namespace).
        subnet = f"10.{200 + int(token[:2], 16) % 50}.{int(token[2:4], 16)}"
        self.pods = {
            name: PodNet(f"{PREFIX}-{os.getpid()}-{token}-{index}", f"{subnet}.{index + 2}", host)
            for index, (name, host) in enumerate(pods.items())
        }
        self.created: list[str] = []

    def build(self, services: Mapping[str, str], namespace: str) -> None:
        """Create the hub bridge, one namespace and veth per pod, and hosts files (`services`: Service → pod name)."""
        addresses = {service: self.pods[pod].ip for service, pod in services.items()}
        self.created.append(self.hub)  # recorded first, so an interrupt right after `add` still removes it
        ip("netns", "add", self.hub)
        ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        ip("-n", self.hub, "link", "set", "br0", "up")
        for index, pod in enumerate(self.pods.values()):
            self.created.append(pod.netns)
            ip("netns", "add", pod.netns)
            ip("-n", pod.netns, "link", "set", "lo", "up")
            ip("-n", pod.netns, "link", "add", "eth0", "type", "veth", "peer", "name", f"p{index}", "netns", self.hub)
            ip("-n", pod.netns, "addr", "add", f"{pod.ip}/24", "dev", "eth0")
            ip("-n", pod.netns, "link", "set", "eth0", "up")
            ip("-n", self.hub, "link", "set", f"p{index}", "master", "br0", "up")
            etc = ETC_NETNS / pod.netns
            etc.mkdir(parents=True, exist_ok=True)
            (etc / "hosts").write_text(hosts_file(pod, addresses, namespace))
            # No nameserver: a name missing from hosts fails at once instead of asking the host's resolver.
            (etc / "resolv.conf").write_text("options timeout:1 attempts:1\n")

    def remove(self) -> list[str]:
        """Delete every namespace and /etc/netns folder made here; returns what could not be removed."""
        problems = []
        for name in reversed(self.created):
            try:
                if (RUN_NETNS / name).exists():
                    ip("netns", "del", name)
            except NetnsError as exc:
                problems.append(str(exc))
            shutil.rmtree(ETC_NETNS / name, ignore_errors=True)
        self.created.clear()
        return problems


def sweep() -> list[str]:
    """Remove the namespaces (and /etc/netns folders) of test processes that no longer exist: what a run killed by
    SIGKILL, which no `finally` survives, left behind. Namespaces of live processes, other runs included, stay."""
    names = {entry.name for root in (RUN_NETNS, ETC_NETNS) if root.is_dir() for entry in root.iterdir()}
    removed = []
    for name in sorted(names):
        owner = OWNED.match(name)
        if owner is None or Path(f"/proc/{owner.group(1)}").exists():
            continue
        if (RUN_NETNS / name).exists():
            ip("netns", "del", name)
        shutil.rmtree(ETC_NETNS / name, ignore_errors=True)
        removed.append(name)
    return removed


@contextmanager
def network(pods: Mapping[str, str], services: Mapping[str, str], namespace: str) -> Iterator[Network]:
    """A built Network that is removed on the way out, whatever ends the block (KeyboardInterrupt included)."""
    net = Network(pods)
    try:
        net.build(services, namespace)
        yield net
    except BaseException:
        net.remove()
        raise
    problems = net.remove()
    if problems:
        raise NetnsError("; ".join(problems))
