"""Install size and time of mxjob's dependency sets (base, [cluster], [cluster,schemas]) in fresh venvs.

Each set is installed from the package registry with pip's cache disabled (what a CI runner without a warm
cache waits for), pinned by constraints.txt; size is everything the install added to site-packages.
Usage: python bench/install_bench.py dist/mxjob_gitops-<version>-py3-none-any.whl
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SETS = {"base": "", "[cluster]": "[cluster]", "[cluster,schemas]": "[cluster,schemas]"}


def _tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def measure(wheel: Path, extras: str, work: Path) -> tuple[float, int, int]:
    """(seconds, distributions, bytes added to site-packages) for one fresh venv."""
    target = work / (extras.strip("[]").replace(",", "-") or "base")
    venv.create(target, with_pip=True)
    python = target / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    before_size = _tree_size(site)
    before = {p.name for p in site.glob("*.dist-info")}
    start = time.perf_counter()
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-cache-dir",
            "--disable-pip-version-check",
            "-c",
            str(REPO / "constraints.txt"),
            f"{wheel}{extras}",
        ],
        check=True,
    )
    seconds = time.perf_counter() - start
    added = {p.name for p in site.glob("*.dist-info")} - before
    return seconds, len(added), _tree_size(site) - before_size


def main() -> None:
    wheel = Path(sys.argv[1]).resolve()
    print("| install | distributions | size in site-packages | time (no pip cache) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for label, extras in SETS.items():
            seconds, count, size = measure(wheel, extras, Path(work))
            print(f"| {label} | {count} | {size / 1e6:.0f} MB | {seconds:.0f} s |", flush=True)


if __name__ == "__main__":
    main()
