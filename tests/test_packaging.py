"""What ships: a wheel of runtime files only, built offline; one install's top-level packages; the base install
works without the [cluster] and [schemas] extras; GitOps examples and the pre-commit hook are well-formed."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO, run_cli

# The import packages the wheel puts into site-packages, and nothing else of ours.
TOP_LEVEL = {"mxjob_gitops"}
PACKAGE_ROOTS = {"mxjob_gitops/compiler": REPO / "compiler", "mxjob_gitops/reconciler": REPO / "reconciler"}
# The package's own files; its symlinks to the folders above are not followed into the wheel.
# _build.json: the commit the wheel was built from (hatch_build.py), there because REPO is a Git checkout.
PACKAGE_FILES = {
    "mxjob_gitops/__init__.py",
    "mxjob_gitops/__main__.py",
    "mxjob_gitops/py.typed",
    "mxjob_gitops/_build.json",
}
SCHEMAS_IN_WHEEL = "mxjob_gitops/compiler/_schemas"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Built offline: the build backend (hatchling) comes from the test venv, nothing is fetched."""
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--quiet",
            "--wheel-dir",
            str(out),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    yield next(out.glob("mxjob_gitops-*.whl"))


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_holds_runtime_files_only(wheel: Path) -> None:
    names = _names(wheel)
    sources = {
        f"{package}/{p.relative_to(root).as_posix()}"
        for package, root in PACKAGE_ROOTS.items()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    data = {
        f"{SCHEMAS_IN_WHEEL}/{p.relative_to(REPO / 'schemas').as_posix()}"
        for p in (REPO / "schemas").rglob("*")
        if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    }
    metadata = {n for n in names if n.startswith("mxjob_gitops-") and ".dist-info/" in n}
    # every package file, module and schema file; no generator, test or bench script
    assert names - metadata == sources | data | PACKAGE_FILES
    assert {n.split(".dist-info/", 1)[1] for n in metadata} == {
        "METADATA",
        "WHEEL",
        "RECORD",
        "entry_points.txt",
        "licenses/LICENSE",
    }
    assert {
        "mxjob_gitops/py.typed",
        "mxjob_gitops/compiler/py.typed",
        "mxjob_gitops/reconciler/py.typed",
        f"{SCHEMAS_IN_WHEEL}/kubernetes/v1.35-strict.json.gz",
    } <= names


def test_wheel_metadata_keeps_the_cluster_client_in_an_extra(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith("/METADATA"))).decode()
        entry_points = archive.read(next(n for n in archive.namelist() if n.endswith("entry_points.txt"))).decode()
    requires = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]
    base = sorted(r for r in requires if "extra ==" not in r)
    assert not any(r.startswith(("kubernetes", "prometheus")) for r in base), base
    assert {"kubernetes>=30; extra == 'cluster'", "prometheus-client>=0.20; extra == 'cluster'"} <= set(requires)
    assert "kubernetes-validate>=1.33; extra == 'schemas'" in requires
    assert "License-Expression: Apache-2.0" in metadata
    assert "mxjob = mxjob_gitops.compiler.cli.main:main" in entry_points
    assert "reconcile = mxjob_gitops.reconciler.cli:reconcile" in entry_points
    assert "fetch = mxjob_gitops.reconciler.live:fetch" in entry_points


def test_installed_wheel_adds_only_our_top_level_packages(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "venv"
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    before = {p.name for p in site.iterdir()}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    added = {p.name for p in site.iterdir()} - before
    packages = {name for name in added if not name.endswith(".dist-info")}
    assert packages == TOP_LEVEL, packages
    assert (target / "bin" / "mxjob").is_file()
    _runs_from_the_installed_package(target, site)


def _runs_from_the_installed_package(target: Path, site: Path) -> None:
    """The console script, `python -m mxjob_gitops` and both subpackages come from the installed files; the names
    `compiler` and `reconciler` are not importable. Dependencies come from this test venv through a .pth line
    (a plain directory entry: its own .pth files, such as our editable install's, are not read)."""
    import sysconfig

    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    python = str(target / "bin" / "python")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(target)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # not from the repository: the current directory would be on sys.path
        return subprocess.run(list(args), capture_output=True, text=True, check=False, cwd=target, env=env)

    version = run(python, "-m", "mxjob_gitops", "--version")
    assert version.returncode == 0 and version.stdout.startswith("mxjob "), version.stderr[-2000:]
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    assert f"(commit {head.stdout.strip()}" in version.stdout, version.stdout  # recorded at build time
    rendered = run(str(target / "bin" / "mxjob"), "render", str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml"))
    assert rendered.returncode == 0 and "kind: Pod" in rendered.stdout, rendered.stderr[-2000:]
    assert "reconcile" in run(str(target / "bin" / "mxjob"), "--help").stdout
    code = "import mxjob_gitops.compiler as c, mxjob_gitops.reconciler.cli as r\nprint(c.__file__, r.__file__)"
    where = run(python, "-c", code)
    assert where.returncode == 0, where.stderr[-2000:]
    assert all(Path(f).is_relative_to(site / "mxjob_gitops") for f in where.stdout.split()), where.stdout
    for name in ("compiler", "reconciler"):
        missing = run(python, "-c", f"import {name}")
        assert missing.returncode == 1 and "ModuleNotFoundError" in missing.stderr, (name, missing.stderr)


# The base install, simulated in a subprocess: the extras' modules cannot be imported.
_BASE_ONLY = (
    "import sys\n"
    "for name in ('kubernetes', 'prometheus_client', 'kubernetes_validate'):\n"
    "    sys.modules[name] = None\n"
    "from mxjob_gitops.compiler.cli.main import main\n"
    "main()\n"
)


def _base_install(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _BASE_ONLY, *args], input=stdin, capture_output=True, text=True, check=False, cwd=REPO
    )


@pytest.mark.parametrize(
    "args",
    [
        ["render", "examples/train"],
        ["validate", "examples/train"],
        ["convert", "examples/train"],
        ["diff", "examples/train", "examples/tune"],
    ],
)
def test_base_install_renders_validates_and_diffs(args: list[str]) -> None:
    done = _base_install(*args)
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["reconcile", "--once"], "mxjob reconcile"),
        (["diff", "--live", "examples/train"], "mxjob diff --live"),
    ],
)
def test_cluster_commands_name_the_extra(args: list[str], what: str) -> None:
    done = _base_install(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert f"mxjob: {what} needs kubernetes, prometheus_client" in done.stderr
    assert "[cluster]" in done.stderr and "Traceback" not in done.stderr


def test_other_kubernetes_versions_name_the_schemas_extra() -> None:
    done = _base_install("validate", "--kubernetes-version", "1.30", "examples/train")
    assert done.returncode == 2 and done.stdout == ""
    assert "available: 1.20 to 1.24, 1.35" in done.stderr and "[schemas] extra" in done.stderr


def test_gitops_examples_parse_and_validate() -> None:
    files = sorted((EXAMPLES / "gitops").rglob("*.yaml"))
    assert len(files) >= 4
    for path in files:
        assert [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d], path
    manifests = [p for p in files if p.parent.name in ("argocd", "flux")]  # the rest are CI workflows
    for path in manifests:  # one by one: sources.yaml and oci.yaml are alternatives that define the same objects
        result = run_cli(["validate", str(path)])
        assert result.exit_code == 0, result.stdout


def test_pre_commit_hook_checks_only_kubernetes_files(tmp_path: Path) -> None:
    """What pre-commit does: every staged YAML/JSON file matching `files` and not `exclude`, as arguments."""
    import re

    hook = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    assert hook["id"] == "mxjob-validate" and hook["entry"].startswith("mxjob validate")
    staged = {
        "package.json": '{"name": "site", "version": "1.0.0"}',
        "mkdocs.yml": "site_name: Jobs\nnav: [index.md]\n",
        ".github/workflows/ci.yaml": "on: push\njobs: {}\n",
        "jobs/kustomization.yaml": "resources: [mnist.yaml]\n",
        "jobs/mnist.yaml": (EXAMPLES / "train" / "mx_job_dist_gpu.yaml").read_text(encoding="utf-8"),
    }
    for name, text in staged.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    exclude = hook.get("exclude")  # none: kustomization files are recognised by mxjob itself
    passed = [n for n in staged if re.search(hook["files"], n) and not (exclude and re.search(exclude, n))]
    result = run_cli([*hook["entry"].split()[1:], *passed], cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "jobs: a kustomization listing its directory's files, skipped" in result.stderr
    for skipped in ("package.json", "mkdocs.yml", ".github/workflows/ci.yaml"):
        assert f"mxjob: note: {skipped}: skipped, no Kubernetes object in it" in result.stderr
    (tmp_path / "jobs" / "bad.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n", encoding="utf-8"
    )
    failing = run_cli([*hook["entry"].split()[1:], "jobs/bad.yaml", "package.json"], cwd=tmp_path)
    assert failing.exit_code == 1 and "MXJ001" in failing.stdout + failing.stderr
