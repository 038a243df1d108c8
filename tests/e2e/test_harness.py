"""The e2e harness itself: kubelet's env rules, and namespaces that are gone after a failure."""

from __future__ import annotations

import subprocess

import pytest

from tests.e2e.netns import ETC_NETNS, PodNet, hosts_file, network
from tests.e2e.pods import container_env, expand, plan


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$(A)", "1"),
        ("x$(A)y$(B)", "x1y2"),
        ("$(MISSING)", "$(MISSING)"),
        ("$$(A)", "$(A)"),
        ("$$", "$"),
        ("$A $", "$A $"),
        ("$(A", "$(A"),
        ("$()", "$()"),
    ],
)
def test_expand_follows_kubelet(text: str, expected: str) -> None:
    assert expand(text, {"A": "1", "B": "2"}) == expected


def test_last_entry_of_a_name_wins_and_values_see_earlier_entries() -> None:
    container = {"env": [{"name": "A", "value": "first"}, {"name": "B", "value": "$(A)-$(C)"},
                         {"name": "C", "value": "late"}, {"name": "A", "value": "second"}]}
    assert container_env(container) == {"A": "second", "B": "first-$(C)", "C": "late"}


def test_command_and_args_expand_against_the_whole_env() -> None:
    pod = {"metadata": {"name": "j-worker-0", "labels": {}},
           "spec": {"hostname": "h", "containers": [
               {"name": "sidecar", "command": ["x"]},
               {"name": "mxnet", "command": ["sh", "-c"], "args": ["echo $(Z) $(Y)"],
                "env": [{"name": "Y", "value": "y"}, {"name": "Z", "value": "$(Y)z"}]}]}}
    planned = plan(pod)
    assert (planned.argv, planned.hostname, planned.namespace) == (["sh", "-c", "echo yz y"], "h", "default")


def test_hosts_file_maps_services_in_every_form() -> None:
    text = hosts_file(PodNet("ns", "10.1.2.3", "me"), {"svc": "10.1.2.4"}, "ml")
    assert "10.1.2.3\tme\n" in text
    assert "10.1.2.4\tsvc svc.ml svc.ml.svc svc.ml.svc.cluster.local\n" in text


def listed() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=20, check=True).stdout


@pytest.mark.usefixtures("namespaces")
def test_everything_is_removed_when_the_block_fails() -> None:
    with pytest.raises(KeyboardInterrupt), network({"p-0": "p-0", "p-1": "p-1"}, {"p-0": "p-0"}, "default") as net:
        names = [pod.netns for pod in net.pods.values()] + [net.hub]
        assert all(name in listed() for name in names)
        assert (ETC_NETNS / net.pods["p-0"].netns / "hosts").exists()
        raise KeyboardInterrupt
    assert not any(name in listed() for name in names)
    assert not any((ETC_NETNS / name).exists() for name in names)
