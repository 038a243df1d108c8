"""The objects that sync the shards on the engines' own CRDs: a 300-job `render -o DIR --shard-size N --repo-url`
writes an Argo CD ApplicationSet (Argo CD's CRD, from the realcomp share) and Flux Kustomizations (Flux's CRD, from
the share) with their GitRepository (source-controller's CRD, vendored in tests/fixtures/crds); each applies to the
1.36 server server-side with strict field validation, and comes back as written (nothing pruned by the schema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, run_cli
from tests.helpers import init_repo, job, replica
from tests.modern.server import ModernServer, apply_strictly, install
from tests.realcomp import realcomp_share

JOBS = 300
GIT_REPOSITORY_CRD = REPO / "tests" / "fixtures" / "crds" / "source.toolkit.fluxcd.io_gitrepositories.yaml"


@pytest.fixture(scope="module")
def engines(modern: ModernServer) -> ModernServer:
    share = realcomp_share() / "crds"
    install(modern, share / "argocd" / "applicationset-crd.yaml")
    install(modern, share / "flux" / "kustomize.toolkit.fluxcd.io_kustomizations.yaml")
    install(modern, GIT_REPOSITORY_CRD)
    return modern


@pytest.fixture(scope="module")
def jobs_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("repo")
    init_repo(repo)
    (repo / "jobs").mkdir()
    for i in range(JOBS):
        spec = job(f"train-{i:03d}", Scheduler=replica(1), Server=replica(1), Worker=replica(2 + i % 3))
        spec["metadata"]["namespace"] = "ml"
        (repo / "jobs" / f"train-{i:03d}.yaml").write_text(json.dumps(spec), encoding="utf-8")
    return repo


def _render(repo: Path, target: str, *extra: str) -> Path:
    out = repo / "deploy" / target
    args = ["render", "-o", str(out), "--shard-size", "400", "--target", target, *extra, str(repo / "jobs")]
    done = run_cli(args)
    assert done.exit_code == 0, done.stderr
    return out


def _apply(server: ModernServer, document: dict[str, Any]) -> None:
    found = apply_strictly(server, document)
    assert found == [], f"the CRD pruned or changed {document['kind']} {document['metadata']['name']}:\n" + "\n".join(
        found
    )


def _shards(out: Path) -> list[str]:
    record = yaml.safe_load((out / "shards.yaml").read_text(encoding="utf-8"))
    return sorted(record["shards"])


def test_the_applicationset_applies_on_argo_cds_crd(engines: ModernServer, jobs_repo: Path) -> None:
    out = _render(jobs_repo, "argocd", "--repo-url", "https://git.example.com/ml/jobs.git", "--revision", "main")
    [appset] = [d for d in yaml.safe_load_all((out / "argocd-applicationset.yaml").read_text()) if d]
    shards = _shards(out)
    assert len(shards) > 3
    elements = appset["spec"]["generators"][0]["list"]["elements"]
    assert [e["path"] for e in elements] == [f"deploy/argocd/{s}" for s in shards]
    assert len({e["name"] for e in elements}) == len(shards)
    _apply(engines, appset)
    wrong = json.loads(json.dumps(appset))
    wrong["spec"]["template"]["spec"]["syncPolicy"]["automated"]["prunes"] = True  # strict: an unknown field fails
    done = engines.run("apply", "--server-side", "--validate=strict", "-f", "-", stdin=json.dumps(wrong))
    assert done.returncode != 0 and "prunes" in done.stderr, done.stderr


def test_the_kustomizations_and_their_source_apply_on_fluxs_crds(engines: ModernServer, jobs_repo: Path) -> None:
    out = _render(jobs_repo, "flux", "--repo-url", "git@git.example.com:ml/jobs.git")
    documents = [d for d in yaml.safe_load_all((out / "flux-kustomizations.yaml").read_text()) if d]
    source, *units = documents
    assert source["kind"] == "GitRepository" and source["spec"]["url"] == "ssh://git@git.example.com/ml/jobs.git"
    assert [u["spec"]["path"] for u in units] == [f"./deploy/flux/{s}" for s in _shards(out)]
    for document in documents:
        _apply(engines, document)
