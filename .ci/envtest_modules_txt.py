"""Reorder vendor/modules.txt so Go >= 1.17 accepts it with -mod=vendor (used by .ci/envtest.sh).

Kubernetes 1.20's modules.txt (written by Go 1.15) lists some packages after a wildcard replacement line
(`# path => target`, no version). Newer Go attributes such packages to a module without a version and then
insists that go.mod needs updating (cmd/go/internal/modload/vendor.go, readVendorList). Each such package
moves under the versioned line (`# path vX => target`) of the module that owns it: the longest module path
that is a prefix of the package path. Running it twice changes nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Block:
    header: str
    path: str = ""
    versioned: bool = False
    markers: list[str] = field(default_factory=list)
    packages: list[str] = field(default_factory=list)


def parse(lines: list[str]) -> list[Block]:
    blocks: list[Block] = []
    for line in lines:
        if line.startswith("# "):
            words = line.split()
            versioned = len(words) >= 3 and words[2].startswith("v")
            blocks.append(Block(line, words[1] if len(words) > 1 else "", versioned))
        elif not blocks:
            blocks.append(Block("", markers=[line]))
        elif line.startswith("## "):
            blocks[-1].markers.append(line)
        else:
            blocks[-1].packages.append(line)
    return blocks


def owner(package: str, blocks: list[Block]) -> Block | None:
    candidates = [b for b in blocks if b.versioned and (package == b.path or package.startswith(b.path + "/"))]
    return max(candidates, key=lambda b: len(b.path), default=None)


def reorder(blocks: list[Block]) -> int:
    moved = 0
    for block in blocks:
        if block.versioned:
            continue
        stay: list[str] = []
        for package in block.packages:
            target = owner(package, blocks)
            if target is None:
                stay.append(package)
            else:
                target.packages.append(package)
                moved += 1
        block.packages = stay
    return moved


def main(path: Path) -> int:
    blocks = parse(path.read_text().splitlines())
    moved = reorder(blocks)
    if moved:
        out = [line for b in blocks for line in ([b.header] if b.header else []) + b.markers + b.packages]
        path.write_text("\n".join(out) + "\n")
    print(f"envtest: modules.txt: moved {moved} package lines under their module's versioned line", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
