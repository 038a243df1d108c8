"""Kustomize overlay diff benchmark: a pull request's `mxjob diff --base/--head -k OVERLAY`, both sides built by
kustomize from their own revision, next to the floor it cannot beat: kustomize building both sides from two
checkouts, plus `git diff --no-index` of the two builds.

Usage: python bench/kustomize_diff_bench.py [--quick] [--jobs N]

Input: a repository with a kustomize base of 1,000 jobs x 10 replicas (one file per job) and a prod overlay
(namespace, an images transformer); the pull request bumps the overlay's `newTag`, which changes every job. The
measured command checks out both revisions (a temporary index and `git checkout-index`), builds each with
kustomize, renders and compiles both sides and prints the diff; the floor is given its two checkouts ready-made.
Target: at most 2x the floor. The kustomize binary: $MXJOB_KUSTOMIZE, the one .ci/kustomize.sh builds, PATH's
`kustomize`, else `kubectl kustomize`.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from diff_bench import git
from harness import MXJOB, interleave, machine, print_comparison, run, run_into
from render_bench import make_job, write_input

DIFFERENT = (0, 1)
TARGET = 2.0
BUILT = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mxjob-gitops/kustomize/bin/kustomize"
OVERLAY = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: prod
resources:
- ../../base
images:
- name: mxnet
  newTag: "{tag}"
"""


def kustomize() -> list[str]:
    for candidate in (os.environ.get("MXJOB_KUSTOMIZE"), str(BUILT), shutil.which("kustomize")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return [candidate, "build"]
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise SystemExit("no kustomize: run .ci/kustomize.sh, set MXJOB_KUSTOMIZE, or put kustomize or kubectl on PATH")
    return [kubectl, "kustomize"]


def write_repo(repo: Path, jobs: int) -> None:
    """The base (one file per job, listed by its kustomization) and the overlay at tag 1.9, then at 1.9.1."""
    base, overlay = repo / "base", repo / "overlays" / "prod"
    base.mkdir(parents=True)
    overlay.mkdir(parents=True)
    names = [f"job-{i:04d}.yaml" for i in range(jobs)]
    for i, name in enumerate(names):
        write_input(base / name, [make_job(f"job-{i:04d}", servers=3, workers=6)])
    resources = "".join(f"- {name}\n" for name in names)
    (base / "kustomization.yaml").write_text(
        f"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n{resources}", encoding="utf-8"
    )
    git(repo, "init", "-q")
    for tag in ("1.9", "1.9.1"):
        (overlay / "kustomization.yaml").write_text(OVERLAY.format(tag=tag), encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"prod at {tag}")


def bench(tmp: Path, jobs: int, rounds: int) -> None:
    repo, old, new = tmp / "repo", tmp / "old", tmp / "new"
    write_repo(repo, jobs)
    for side, revision in ((old, "HEAD~1"), (new, "HEAD")):  # the floor's checkouts, made once, untimed
        side.mkdir()
        archive = subprocess.run(["git", "archive", revision], cwd=repo, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(side)], input=archive, check=True)
    build = " ".join(map(shlex.quote, kustomize()))
    floor = (
        f"{build} {old}/overlays/prod > {tmp}/old.yaml && {build} {new}/overlays/prod > {tmp}/new.yaml && "
        f"{{ git diff --no-index --no-color {tmp}/old.yaml {tmp}/new.yaml; test $? -le 1; }}"
    )
    out = tmp / "diff.out"
    if kustomize()[1] == "build":  # mxjob -k runs the same kustomize as the floor
        os.environ["MXJOB_KUSTOMIZE"] = kustomize()[0]
    series = interleave(
        rounds,
        lambda: run_into(
            [*MXJOB, "diff", "--color", "never", "--base", "HEAD~1", "--head", "HEAD", "-k", "overlays/prod"],
            out,
            ok=DIFFERENT,
            cwd=repo,
        ),
        lambda: run(["bash", "-c", floor], stdout=subprocess.DEVNULL, cwd=repo),
        lambda: run([*kustomize(), str(new / "overlays" / "prod")], cwd=repo),
    )
    print_comparison(
        f"PR diff of a kustomize overlay over {jobs:,} jobs x 10 replicas, newTag bumped (every job changes), "
        f"both sides built ({(tmp / 'new.yaml').stat().st_size / 1e6:.1f} MB built per side)",
        [
            "mxjob diff --base/--head -k overlays/prod",
            "kustomize build x2 + git diff --no-index",
            "kustomize build (one side)",
        ],
        series,
        target=(1, TARGET),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 jobs, two rounds (a smoke test)")
    parser.add_argument("--jobs", type=int, default=1_000, help="jobs in the base (default 1,000)")
    arguments = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory(prefix="mxjob-kustomize-diff-bench-") as name:
        if arguments.quick:
            bench(Path(name), 20, 2)
        else:
            bench(Path(name), arguments.jobs, 5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
