"""Every rendering (each example, each golden render) against Kubernetes 1.36's own code and a user's tools:
core-validate (the API server's defaulting and validation of Pods, Services, ConfigMaps), zero drift against
its defaulted objects, argocd-diff (Argo CD shows no OutOfSync for what the server adds) and kubeconform -strict."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.modern.renderings import RENDERING_IDS, rendering, rendering_text
from tests.realapi.test_crd import differences
from tests.realcomp import realcomp_bin, realcomp_share

CORE_KINDS = ("Pod", "Service", "ConfigMap")
KUBERNETES_VERSION = "1.36.0"
# What the 1.36 server adds to what we render (k8s.io/kubernetes pkg/apis/core/v1/defaults.go, SetDefaults_*;
# `metadata.namespace` is the namespace applied to). docs/rendering.md lists each one and why we leave it out;
# a difference not listed here, or any changed or dropped value, fails the test.
SERVER_ADDED = frozenset(
    {
        "ConfigMap.metadata.namespace",
        "Pod.metadata.namespace",
        "Pod.spec.containers[].imagePullPolicy",
        "Pod.spec.containers[].resources",
        "Pod.spec.containers[].resources.requests",
        "Pod.spec.containers[].terminationMessagePath",
        "Pod.spec.containers[].terminationMessagePolicy",
        "Pod.spec.dnsPolicy",
        "Pod.spec.enableServiceLinks",
        "Pod.spec.initContainers[].imagePullPolicy",
        "Pod.spec.initContainers[].resources",
        "Pod.spec.initContainers[].terminationMessagePath",
        "Pod.spec.initContainers[].terminationMessagePolicy",
        "Pod.spec.schedulerName",
        "Pod.spec.securityContext",
        "Pod.spec.terminationGracePeriodSeconds",
        "Pod.status",
        "Service.metadata.namespace",
        "Service.spec.clusterIPs",
        "Service.spec.internalTrafficPolicy",
        "Service.spec.ports[].targetPort",
        "Service.spec.sessionAffinity",
        "Service.spec.type",
        "Service.status",
    }
)


def core_objects(ident: str) -> list[dict[str, Any]]:
    return [doc for doc in rendering(ident) if doc["kind"] in CORE_KINDS]


def run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120)


def defaulted(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = run([str(realcomp_bin("core-validate")), "-o", "defaulted", "-"], yaml.safe_dump_all(objects))
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.mark.parametrize("ident", RENDERING_IDS)
def test_core_validate_accepts_every_rendered_core_object(ident: str) -> None:
    objects = core_objects(ident)
    assert objects, "a rendering without core objects"
    done = run([str(realcomp_bin("core-validate")), "-"], yaml.safe_dump_all(objects))
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(verdicts) == len(objects), done.stderr
    refused = [v for v in verdicts if v["errors"]]
    assert done.returncode == 0 and refused == [], refused or done.stderr


@pytest.mark.parametrize("ident", RENDERING_IDS)
def test_the_server_only_adds_documented_defaults(ident: str) -> None:
    objects = core_objects(ident)
    stored = defaulted(objects)
    assert [(o["kind"], o["metadata"]["name"]) for o in stored] == [(o["kind"], o["metadata"]["name"]) for o in objects]
    unexplained = []
    for ours, theirs in zip(objects, stored, strict=True):
        for found in differences(ours, theirs, ours["kind"]):
            path, _, what = found.partition(": ")
            if not what.startswith("added by the server") or re.sub(r"\[\d+\]", "[]", path) not in SERVER_ADDED:
                unexplained.append(f"{ours['metadata']['name']}: {found}")
    assert unexplained == [], "drift at 1.36 not explained in docs/rendering.md:\n" + "\n".join(unexplained)


def test_every_server_added_field_is_explained_in_the_rendering_doc() -> None:
    doc = (REPO / "docs" / "rendering.md").read_text(encoding="utf-8")
    missing = sorted(path for path in SERVER_ADDED if f"`{path}`" not in doc)
    assert missing == [], f"docs/rendering.md does not list {missing}"


@pytest.mark.parametrize("ident", RENDERING_IDS)
def test_argo_cd_shows_no_drift_against_what_the_server_stores(ident: str, tmp_path: Path) -> None:
    """Argo CD's default diff: no object modified."""
    verdicts, done = argocd_diff(ident, tmp_path)
    modified = [v["key"] for v in verdicts if v["modified"]]
    assert done.returncode == 0 and modified == [], modified or done.stderr


@pytest.mark.parametrize("ident", RENDERING_IDS)
def test_argo_cd_structured_merge_diff_differs_only_by_its_deduced_schema(ident: str, tmp_path: Path) -> None:
    """Argo CD's structured-merge diff (`-smd`, the ServerSideApply=true sync option). argocd-diff hands
    gitops-engine no GVK parser, so `ResolveParseableType` (pkg/utils/kube/scheme/typed.go) falls back to
    structured-merge-diff's deduced schema, in which every list is atomic: the desired `containers` replace the
    live ones whole, and `patchDefaultValues` (pkg/diff/diff.go, normalizeTypedValue) restores what the v1
    defaulters set, but not `resources: {}`, which no defaulter sets (the server's encoder writes the empty struct).
    Argo CD's controller passes the cluster's parser (controller/state.go, WithGVKParser), under which
    `containers` is a list keyed by name and the server's `resources: {}` stays. So: Services and ConfigMaps are
    not modified, and each Pod differs by exactly that, nothing else (docs/rendering.md)."""
    verdicts, done = argocd_diff(ident, tmp_path, "-smd")
    assert done.returncode in (0, 1), done.stderr
    for verdict in verdicts:
        if not verdict["modified"]:
            continue
        assert verdict["key"].startswith("/Pod/"), verdict["key"]
        predicted, live = verdict["predictedLive"], verdict["normalizedLive"]
        restored = 0
        for field in ("initContainers", "containers"):
            for mine, theirs in zip(predicted["spec"].get(field) or [], live["spec"].get(field) or [], strict=True):
                if "resources" not in mine and theirs.get("resources") == {}:
                    mine["resources"], restored = {}, restored + 1
        assert restored and predicted == live, verdict["key"]


def argocd_diff(
    ident: str, tmp_path: Path, *mode: str
) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    """argocd-diff between each rendered core object and its 1.36-defaulted form: one verdict per object."""
    objects = core_objects(ident)
    for obj in objects:
        obj["metadata"].setdefault("namespace", "default")
    desired, live = tmp_path / "desired.yaml", tmp_path / "live.yaml"
    desired.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    live.write_text(yaml.safe_dump_all(defaulted(objects)), encoding="utf-8")
    done = run([str(realcomp_bin("argocd-diff")), *mode, "-desired", str(desired), "-live", str(live)])
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(verdicts) == len(objects), done.stderr
    return verdicts, done


@pytest.mark.parametrize("ident", RENDERING_IDS)
def test_kubeconform_strict_accepts_every_rendering(ident: str, tmp_path: Path) -> None:
    manifests = tmp_path / "rendered.yaml"  # kubeconform reads only *.yaml / *.json files
    manifests.write_text(rendering_text(ident), encoding="utf-8")
    schemas = realcomp_share() / "kubernetes-json-schema"
    done = run(
        [
            str(realcomp_bin("kubeconform")), "-strict", "-summary", "-output", "json",
            "-kubernetes-version", KUBERNETES_VERSION,
            "-schema-location",
            f"{schemas}/{{{{ .NormalizedKubernetesVersion }}}}-standalone{{{{ .StrictSuffix }}}}/"
            "{{ .ResourceKind }}{{ .KindSuffix }}.json",
            "-schema-location",
            f"{REPO}/schemas/kubeconform/{{{{.Group}}}}/{{{{.ResourceKind}}}}_{{{{.ResourceAPIVersion}}}}.json",
            str(manifests),
        ]
    )  # fmt: skip
    report = json.loads(done.stdout)
    summary = report["summary"]
    assert done.returncode == 0, report
    assert summary["valid"] == len(rendering(ident)) and summary["skipped"] == 0, summary
