"""`render -o DIR --shard-size N --target argocd|flux --repo-url URL`: the ApplicationSet or the Flux Kustomizations
that sync the shards, written into DIR beside the record (never into a shard), through the -o writer; the untrusted
URL and revision checked; every misuse an exit 2 that writes nothing. tests/modern/test_gitops_units.py applies the
objects on the engines' CRDs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mxjob_gitops.compiler.integrations.gitopsinput import repo_path_problem, revision_problem, ssh_url, url_problem
from mxjob_gitops.compiler.render.gitopsunits import UnitSettings, flux_ref, unit_file, unit_name
from mxjob_gitops.compiler.spec.targets import Target
from tests.conftest import run_cli
from tests.helpers import git, init_repo, job, replica

URL = "https://git.example.com/ml/jobs.git"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A work tree with 12 jobs of 8 objects each under jobs/."""
    root = tmp_path / "repo"
    root.mkdir()
    init_repo(root)
    (root / "jobs").mkdir()
    for i in range(12):
        spec = job(f"train-{i:02d}", Scheduler=replica(1), Server=replica(1), Worker=replica(2))
        spec["metadata"]["namespace"] = "ml"
        (root / "jobs" / f"train-{i:02d}.yaml").write_text(json.dumps(spec), encoding="utf-8")
    return root


def _render(*args: str) -> Any:
    return run_cli(["render", *args])


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def _shards(out: Path) -> list[str]:
    return sorted(yaml.safe_load((out / "shards.yaml").read_text(encoding="utf-8"))["shards"])


@pytest.mark.parametrize(
    "url",
    [URL, "https://gitlab.example.com/group/sub/repo", "ssh://git@git.example.com:2222/ml/jobs.git",
     "git@github.com:ml/jobs.git", "https://user@git.example.com/ml/jobs"],
)  # fmt: skip
def test_repository_urls_of_the_usual_forms_are_taken(url: str) -> None:
    assert url_problem(url) == ""


@pytest.mark.parametrize(
    "url",
    ["", "http://git.example.com/x", "ftp://x/y", "file:///srv/repo", "/srv/repo", "git.example.com:ml/jobs",
     "https://x/{{.path}}", "https://x/a b", "https://x/\x1b[31m", "https://x/\n", 'https://x/"', "-oProxyCommand=x",
     "ssh://-oProxyCommand=touch%20x/repo", "https://-x/repo", "ssh://git@-oProxyCommand=x/repo",
     "https://x/" + "a" * 3000],
)  # fmt: skip
def test_other_urls_are_refused(url: str) -> None:
    assert url_problem(url) != ""


def test_an_scp_like_url_becomes_the_ssh_url_flux_takes() -> None:
    assert ssh_url("git@github.com:ml/jobs.git") == "ssh://git@github.com/ml/jobs.git"
    assert ssh_url(URL) == URL
    assert ssh_url("ssh://git@h:22/x") == "ssh://git@h:22/x"


@pytest.mark.parametrize("revision", ["HEAD", "main", "release/1.2", "refs/tags/v1.0", "a" * 40, "v1.0"])
def test_revisions_git_can_name_are_taken(revision: str) -> None:
    assert revision_problem(revision) == ""


@pytest.mark.parametrize("revision", ["", "a..b", "-x", "x.lock", "a b", "a~1", "a^", "x:y", "{{x}}", "/x", "x/"])
def test_other_revisions_are_refused(revision: str) -> None:
    assert revision_problem(revision) != ""


def test_flux_reads_a_commit_a_ref_name_or_a_branch() -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert flux_ref(sha) == {"commit": sha}
    assert flux_ref("HEAD") == {"branch": "main"}
    assert flux_ref("refs/tags/v1") == {"name": "refs/tags/v1"}
    assert flux_ref("main") == {"branch": "main"}


def test_repo_paths_are_relative_and_plain() -> None:
    assert repo_path_problem("deploy/prod") == "" and repo_path_problem(".") == ""
    assert repo_path_problem("/abs") and repo_path_problem("a/../b") and repo_path_problem("a/{{x}}")


def test_unit_names_are_labels_and_distinct_however_long_the_path() -> None:
    long = "a" * 80
    names = {unit_name(long, f"shard-{i:04d}") for i in range(1, 200)}
    assert len(names) == 199 and all(len(n) <= 63 and n[0].isalnum() and n[-1].isalnum() for n in names)


def test_the_applicationset_names_one_application_per_shard(repo: Path) -> None:
    out = repo / "deploy" / "prod"
    done = _render("-o", str(out), "--shard-size", "20", "--target", "argocd", "--repo-url", URL, str(repo / "jobs"))
    assert done.exit_code == 0, done.stderr
    shards = _shards(out)
    assert len(shards) >= 4
    [appset] = _documents(out / "argocd-applicationset.yaml")
    assert appset["apiVersion"] == "argoproj.io/v1alpha1" and appset["kind"] == "ApplicationSet"
    spec = appset["spec"]
    assert spec["generators"] == [
        {"list": {"elements": [{"name": f"deploy-prod-{s}", "path": f"deploy/prod/{s}"} for s in shards]}}
    ]
    assert spec["template"]["metadata"]["annotations"] == {"argocd.argoproj.io/compare-options": "ServerSideDiff=false"}
    template = spec["template"]["spec"]
    assert template["project"] == "default"
    assert template["source"] == {"repoURL": URL, "targetRevision": "HEAD", "path": "{{.path}}"}
    assert template["destination"] == {"server": "https://kubernetes.default.svc"}
    assert template["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    assert spec["syncPolicy"] == {"preserveResourcesOnDeletion": False}
    for shard in shards:  # no shard's kustomization picks the file up
        resources = yaml.safe_load((out / shard / "kustomization.yaml").read_text())["resources"]
        assert "argocd-applicationset.yaml" not in " ".join(resources) and all("/" not in r for r in resources)
    index = (out / ".mxjob-render.index").read_text()
    assert "\nargocd-applicationset.yaml " in index  # written (and owned) by the -o writer


def test_the_file_follows_the_shards_and_goes_when_no_longer_asked_for(repo: Path) -> None:
    out = repo / "deploy"
    args = ["-o", str(out), "--shard-size", "20", "--target", "argocd", "--repo-url", URL, "--project", "ml"]
    assert _render(*args, str(repo / "jobs")).exit_code == 0
    first = (out / "argocd-applicationset.yaml").read_bytes()
    assert _render(*args, str(repo / "jobs")).exit_code == 0
    assert (out / "argocd-applicationset.yaml").read_bytes() == first  # deterministic
    for i in range(12, 20):
        spec = job(f"train-{i:02d}", Scheduler=replica(1), Server=replica(1), Worker=replica(2))
        spec["metadata"]["namespace"] = "ml"
        (repo / "jobs" / f"train-{i:02d}.yaml").write_text(json.dumps(spec), encoding="utf-8")
    assert _render(*args, str(repo / "jobs")).exit_code == 0
    [appset] = _documents(out / "argocd-applicationset.yaml")
    elements = appset["spec"]["generators"][0]["list"]["elements"]
    assert [e["path"] for e in elements] == [f"deploy/{s}" for s in _shards(out)]
    assert appset["spec"]["template"]["spec"]["project"] == "ml"
    assert _render("-o", str(out), "--shard-size", "20", "--target", "argocd", str(repo / "jobs")).exit_code == 0
    assert not (out / "argocd-applicationset.yaml").exists()


def test_flux_gets_a_source_and_one_kustomization_per_shard(repo: Path) -> None:
    out = repo / "rendered"
    done = _render(
        "-o", str(out), "--shard-size", "20", "--target", "flux", "--repo-url", "git@git.example.com:ml/jobs.git",
        "--revision", "release-1", "--gitops-namespace", "gitops", str(repo / "jobs"),
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    source, *units = _documents(out / "flux-kustomizations.yaml")
    assert source == {
        "apiVersion": "source.toolkit.fluxcd.io/v1",
        "kind": "GitRepository",
        "metadata": {"name": "rendered", "namespace": "gitops"},
        "spec": {"interval": "1m", "url": "ssh://git@git.example.com/ml/jobs.git", "ref": {"branch": "release-1"}},
    }
    shards = _shards(out)
    assert [u["metadata"]["name"] for u in units] == [f"rendered-{s}" for s in shards]
    for unit, shard in zip(units, shards, strict=True):
        assert unit["apiVersion"] == "kustomize.toolkit.fluxcd.io/v1" and unit["kind"] == "Kustomization"
        assert unit["spec"]["path"] == f"./rendered/{shard}" and unit["spec"]["prune"] is True
        assert unit["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "rendered"}


def test_the_repository_path_is_read_with_git_from_a_subdirectory_and_a_link(repo: Path, tmp_path: Path) -> None:
    git(repo, "add", "jobs")
    link = tmp_path / "link"
    link.symlink_to(repo)
    out = link / "a" / "b"  # not yet there; reached through a link to the work tree
    done = _render("-o", str(out), "--follow-output-symlink", "--shard-size", "50", "--target", "flux",
                   "--repo-url", URL, str(repo / "jobs"))  # fmt: skip
    assert done.exit_code == 0, done.stderr
    units = _documents(repo / "a" / "b" / "flux-kustomizations.yaml")[1:]
    assert [u["spec"]["path"] for u in units] == [f"./a/b/{s}" for s in _shards(repo / "a" / "b")]


def test_outside_a_work_tree_dir_is_the_root_unless_repo_path_says_otherwise(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "elsewhere" / "out"
    base = ["-o", str(out), "--shard-size", "20", "--target", "argocd", "--repo-url", URL]
    done = _render(*base, str(repo / "jobs"))
    assert done.exit_code == 0 and "not inside a Git work tree" in done.stderr and "--repo-path" in done.stderr
    [appset] = _documents(out / "argocd-applicationset.yaml")
    assert appset["metadata"]["name"] == "mxjob"
    assert appset["spec"]["generators"][0]["list"]["elements"][0] == {"name": "mxjob-shard-0001", "path": "shard-0001"}
    done = _render(*base, "--repo-path", "./clusters//prod/", str(repo / "jobs"))
    assert done.exit_code == 0 and "Git work tree" not in done.stderr, done.stderr
    [appset] = _documents(out / "argocd-applicationset.yaml")
    assert appset["metadata"]["name"] == "clusters-prod"
    assert appset["spec"]["generators"][0]["list"]["elements"][0]["path"] == "clusters/prod/shard-0001"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--target", "argocd", "--repo-url", URL], "--shard-size"),
        (["--shard-size", "20", "--repo-url", URL], "--target argocd|flux"),
        (["--shard-size", "20", "--target", "plain", "--repo-url", URL], "--target argocd|flux"),
        (["--shard-size", "20", "--target", "argocd", "--revision", "main"], "--repo-url"),
        (["--shard-size", "20", "--target", "flux", "--repo-path", "x"], "--repo-url"),
        (["--shard-size", "20", "--target", "flux", "--repo-url", URL, "--project", "p"], "--target argocd"),
        (["--shard-size", "20", "--target", "flux", "--repo-url", "ftp://x/y"], "https://"),
        (["--shard-size", "20", "--target", "flux", "--repo-url", URL, "--revision", "a..b"], "ref"),
        (["--shard-size", "20", "--target", "argocd", "--repo-url", URL, "--project", "Bad_Project"], "DNS-1123"),
    ],
)
def test_misuse_is_exit_2_and_writes_nothing(repo: Path, args: list[str], says: str) -> None:
    out = repo / "out"
    done = _render("-o", str(out), *args, str(repo / "jobs"))
    assert done.exit_code == 2 and says in done.stderr, done.stderr
    assert not out.exists()


def test_a_hostile_url_is_escaped_where_it_is_printed(repo: Path) -> None:
    out = repo / "out"
    done = _render("-o", str(out), "--shard-size", "20", "--target", "argocd", "--repo-url",
                   "https://x/\x1b]0;owned\x07\x1b[31m", str(repo / "jobs"))  # fmt: skip
    assert done.exit_code == 2 and "\x1b" not in done.stderr and "\x07" not in done.stderr, done.stderr
    assert not out.exists()


def test_without_a_repo_url_render_with_shards_writes_no_gitops_file(repo: Path) -> None:
    out = repo / "out"
    assert _render("-o", str(out), "--shard-size", "20", "--target", "flux", str(repo / "jobs")).exit_code == 0
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(["shards.yaml", *_shards(out)])


def test_the_generator_names_duplicates_and_refuses_other_targets() -> None:
    settings = UnitSettings(repo_url=URL, repo_path=".")
    name, text = unit_file(Target.ARGOCD, ["shard-0001"], settings)
    assert name == "argocd-applicationset.yaml" and "path: shard-0001\n" in text
    with pytest.raises(ValueError, match="two shards"):
        unit_file(Target.FLUX, ["Shard-1", "shard-1"], settings)
    with pytest.raises(ValueError):
        unit_file(Target.PLAIN, ["shard-0001"], settings)


def test_an_invalid_job_writes_neither_shards_nor_the_gitops_file(repo: Path) -> None:
    (repo / "jobs" / "broken.yaml").write_text(json.dumps(job("Bad_Name", Worker=replica(1))), encoding="utf-8")
    out = repo / "out"
    done = _render("-o", str(out), "--shard-size", "20", "--target", "argocd", "--repo-url", URL, str(repo / "jobs"))
    assert done.exit_code == 1 and "nothing was written" in done.stderr, done.stderr
    assert not out.exists()


def test_repo_path_reads_the_work_tree_with_git(repo: Path, tmp_path: Path) -> None:
    from mxjob_gitops.compiler.io.repopath import repo_path

    assert repo_path(repo) == "."
    assert repo_path(repo / "jobs") == "jobs"
    assert repo_path(repo / "not" / "yet") == "not/yet"
    assert repo_path(tmp_path / "outside") is None
    assert repo_path(repo / ".git" / "x") is None  # inside the Git directory: no work-tree path
