"""The tier's own machinery: envtest-style binary lookup, the server's identity, service-account tokens."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.realapi.cluster import CACHE_BIN, ClusterUnavailable, RealCluster, find_binary


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_binaries_are_found_the_envtest_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explicit = _executable(tmp_path / "explicit" / "my-etcd")
    assets = _executable(tmp_path / "assets" / "etcd")
    on_path = _executable(tmp_path / "path" / "etcd")
    monkeypatch.setenv("PATH", str(on_path.parent))
    monkeypatch.setenv("KUBEBUILDER_ASSETS", str(assets.parent))
    monkeypatch.setenv("TEST_ASSET_ETCD", str(explicit))
    assert find_binary("etcd") == explicit
    monkeypatch.delenv("TEST_ASSET_ETCD")
    assert find_binary("etcd") == assets
    monkeypatch.delenv("KUBEBUILDER_ASSETS")
    expected = CACHE_BIN / "etcd" if os.access(CACHE_BIN / "etcd", os.X_OK) else on_path
    assert find_binary("etcd") == expected


def test_a_missing_binary_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("KUBEBUILDER_ASSETS", str(tmp_path / "bundle"))
    monkeypatch.setenv("TEST_ASSET_KUBE_APISERVER", str(tmp_path / "nothing"))
    monkeypatch.setattr("tests.realapi.cluster.CACHE_BIN", tmp_path / "cache")
    with pytest.raises(ClusterUnavailable, match=r"no kube-apiserver binary .*nothing.*bundle/kube-apiserver"):
        find_binary("kube-apiserver")


def test_the_server_is_real_and_serves_rbac(real_cluster: RealCluster) -> None:
    version = real_cluster.get("/version")
    assert version is not None and version["major"] == "1" and int(version["minor"].rstrip("+")) >= 20
    roles = real_cluster.kubectl("get", "clusterroles", "-o", "name").stdout.split()
    assert "clusterrole.rbac.authorization.k8s.io/cluster-admin" in roles


def test_service_account_tokens_from_kubectl_create_token(
    real_cluster: RealCluster, namespace: str, tmp_path: Path
) -> None:
    token = real_cluster.kubectl("create", "token", "default", "-n", namespace).stdout.strip()
    assert token.count(".") == 2  # a signed JWT from the TokenRequest API
    kubeconfig = real_cluster.kubeconfig_for_token(tmp_path / "sa", token, namespace)
    denied = real_cluster.kubectl("get", "pods", kubeconfig=kubeconfig, check=False)
    assert denied.returncode == 1
    assert f'User "system:serviceaccount:{namespace}:default" cannot list resource "pods"' in denied.stderr
