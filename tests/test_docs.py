"""The documentation against the tool: the quick starts run as written, every flag named exists on its command,
and every diagnostic example in docs/diagnostics.md is what an input with that code prints."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from tests.conftest import EXAMPLES, REPO, run_cli
from tests.mermaid_subset import problems

DOCS = REPO / "docs"
DOC_FILES = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", *DOCS.rglob("*.md")])
BIN = Path(sys.executable).parent
# Flags of other tools that the docs name outside an `mxjob …` command line, each with the tool it belongs to.
# A flag named in prose must be one of mxjob's, or listed here: a made-up or renamed flag fails the test.
OTHER_TOOLS = {
    "--batch": "git cat-file",
    "--burst": "bench/cluster_bench.py",
    "--default-unreachable-toleration-seconds": "kube-apiserver",
    "--init": "git submodule update",
    "--node-monitor-grace-period": "kube-controller-manager",
    "--batch-check": "git cat-file",
    "--cases": "bench script",
    "--cascade": "kubectl delete",
    "--check": "ruff format",
    "--download-only": "apt-get",
    "--enable-alpha-plugins": "kustomize",
    "--enable-exec": "kustomize",
    "--end-of-options": "git",
    "--flag": "the docs' own placeholder for a flag",
    "--force-conflicts": "kubectl apply",
    "--get": "flux",
    "--jobs": "bench/reconcile_bench.py",
    "--kv-store": "MXNet's train_mnist.py",
    "--max-combined-directory-manifests-size": "argocd-repo-server",
    "--max-request-bytes": "etcd",
    "--name-only": "git diff",
    "--no-index": "git diff",
    "--patch-file": "argocd",
    "--path": "flux",
    "--percent": "bench script",
    "--port": "ip netns / TVM",
    "--port-end": "TVM RPC server",
    "--quick": "bench scripts",
    "--reproducible": "flux push artifact",
    "--runtime-config": "kube-apiserver",
    "--server-side": "kubectl apply",
    "--short": "flux",
    "--show-toplevel": "git rev-parse",
    "--source": "flux push artifact",
    "--stat": "git show",
    "--type": "kubectl patch",
    "--uts": "unshare",
    "--validate": "kubectl apply",
    "--verify": "git rev-parse",
    "--output": "kubectl's habit (docs/cli.md: mxjob answers it with a hint)",
}


# ---------------------------------------------------------------------------------------------------- quick start


def _blocks(text: str) -> Iterator[tuple[str, str]]:
    """(language, body) of each fenced code block, in order."""
    for match in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M):
        yield match.group(1), match.group(2)


def _commands(script: str) -> list[tuple[str, int]]:
    """Each command of a shell block (a heredoc or `\\` continuation kept whole) and the exit code it should
    have: 0, or N when the line says `exit code N`."""
    commands: list[tuple[str, int]] = []
    lines = script.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        command = [line]
        heredoc = re.search(r"<<-?'?(\w+)'?", line)
        while heredoc and i < len(lines):
            command.append(lines[i])
            i += 1
            if command[-1].strip() == heredoc.group(1):
                break
        while command[-1].endswith("\\") and i < len(lines):
            command.append(lines[i])
            i += 1
        expected = re.search(r"#.*exit code (\d)", line)
        commands.append(("\n".join(command), int(expected.group(1)) if expected else 0))
    return commands


def _run_walkthrough(page: Path, workdir: Path) -> None:
    """Run every `sh` block of `page` in one shell, in order; each `text` block right after a `sh` block lists
    lines that block must print (on stdout or stderr)."""
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "GIT_AUTHOR_NAME": "docs",
        "GIT_AUTHOR_EMAIL": "docs@example.com",
        "GIT_COMMITTER_NAME": "docs",
        "GIT_COMMITTER_EMAIL": "docs@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "NO_COLOR": "1",
        "MXJOB_RENDER_CACHE": str(workdir / ".render-cache"),
    }
    env.pop("MXJOB_TARGET", None)
    env.pop("MXJOB_GANG_SCHEDULER", None)
    blocks = list(_blocks(page.read_text(encoding="utf-8")))
    script = ["exec 2>&1"]  # one shell for the whole page (a `cd` carries over), stderr in order with stdout
    wanted: list[list[int]] = []
    for number, (language, body) in enumerate(blocks):
        if language == "sh":
            commands = _commands(body)
            wanted.append([code for _, code in commands])
            script.append(f'echo "@@block {number}"')
            script.extend(f'{command}\necho "@@ran $?"' for command, _ in commands)
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=workdir, env=env, capture_output=True, text=True, timeout=600
    )
    printed = dict(re.findall(r"^@@block (\d+)\n(.*?)(?=^@@block |\Z)", done.stdout, re.S | re.M))
    ran = 0
    for number, (language, body) in enumerate(blocks):
        if language == "sh":
            output = printed.get(str(number), "")
            codes = [int(code) for code in re.findall(r"^@@ran (\d+)$", output, re.M)]
            assert codes == wanted.pop(0), (page.name, body, output)
            ran += len(codes)
        elif language == "text" and number and blocks[number - 1][0] == "sh":
            output = printed[str(number - 1)]
            for line in filter(None, map(str.strip, body.splitlines())):
                assert line in output, (page.name, line, output)
    assert ran >= 5, page


def test_the_quickstart_page_runs_as_written(tmp_path: Path) -> None:
    _run_walkthrough(DOCS / "quickstart.md", tmp_path)
    assert (tmp_path / "mxjobs" / "deploy" / "training.pod-mnist-worker-3.yaml").is_file()


def test_the_readme_quick_start_runs_as_written(tmp_path: Path) -> None:
    """In a checkout of the project (its examples/, a remote-tracking origin/main), as a newcomer runs it."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "examples"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "examples"], cwd=tmp_path, check=True)
    subprocess.run(["git", "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=tmp_path, check=True)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    page = tmp_path / "quick.md"
    page.write_text(quick, encoding="utf-8")
    _run_walkthrough(page, tmp_path)
    assert (tmp_path / "deploy" / "kustomization.yaml").is_file()


def test_a_failing_walkthrough_command_fails_the_test(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```sh\nmxjob render --no-such-flag x.yaml\n" + "true\n" * 5 + "```\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        _run_walkthrough(page, tmp_path)


# ---------------------------------------------------------------------------------------------------------- flags


def _group() -> click.Group:
    from mxjob_gitops.compiler.cli.group import cli

    return cli


def _flags(command: click.Command) -> set[str]:
    ctx = click.Context(command)
    names: set[str] = set()
    for param in command.get_params(ctx):
        if isinstance(param, click.Option):
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names


def _resolve(words: list[str]) -> tuple[click.Command, list[str]]:
    """The (sub)command that `mxjob WORDS…` names, and the words that name it."""
    command: click.Command = _group()
    named = ["mxjob"]
    for word in words:
        if not isinstance(command, click.Group):
            break
        sub = command.get_command(click.Context(command), word)
        if sub is None:
            break
        command, named = sub, [*named, word]
    return command, named


def _code_chunks(text: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of every code block line and every `code span` outside blocks."""
    in_block = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_block = not in_block
        elif in_block:
            yield number, line
        else:
            for match in re.finditer(r"`([^`\n]+)`", line):
                yield number, match.group(1)


_MXJOB_LINE = re.compile(r"^\s*(?:\$\s+)?(?:[A-Z_]+=\S*\s+)*mxjob(?=\s|$)((?:\s+[a-z][a-z-]*)*)(.*)$")
_FLAG = re.compile(r"(?<![\w/.=-])(--?[a-zA-Z][\w-]*)")


def _flag_problems(path: Path, root: Path = REPO) -> Iterator[str]:
    every = set().union(*(_flags(_resolve([name])[0]) for name in _group().list_commands(click.Context(_group()))))
    every |= _flags(_group())
    text = path.read_text(encoding="utf-8")
    for number, chunk in _code_chunks(text):
        commanded: set[str] = set()
        for segment in re.split(r"\||&&|;|\$\(|\)|\bor\b", chunk):
            match = _MXJOB_LINE.match(segment)
            if not match:
                continue
            command, named = _resolve(match.group(1).split())
            rest = segment.split("#", 1)[0][match.start(1) :]
            for flag in _FLAG.findall(rest):
                commanded.add(flag)
                if flag not in _flags(command):
                    yield f"{path.relative_to(root)}:{number}: {' '.join(named)} has no {flag}"
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", chunk):
            if flag not in commanded and flag not in every and flag not in OTHER_TOOLS:
                yield f"{path.relative_to(root)}:{number}: no mxjob command has {flag}"


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_flag_named_in_the_docs_exists_on_its_command(path: Path) -> None:
    assert list(_flag_problems(path)) == []


def test_a_wrong_flag_in_the_docs_is_found(tmp_path: Path) -> None:
    page = tmp_path / "docs.md"
    page.write_text(
        "Run `mxjob diff --live --kube-context prod jobs/` or `mxjob render --format json -o out/ jobs/`;\n"
        "```sh\nmxjob validate --summary jobs/\n```\nthe `--made-up-flag` flag.\n",
        encoding="utf-8",
    )
    found = [problem.split(": ", 1)[1] for problem in _flag_problems(page, tmp_path)]
    assert found == [
        "mxjob diff has no --kube-context",
        "mxjob validate has no --summary",
        "no mxjob command has --made-up-flag",
    ]


def test_other_tools_flags_are_not_mxjob_flags() -> None:
    """A flag listed as another tool's that mxjob has too would hide a wrong mxjob flag: keep the list honest."""
    cli = _group()
    every = set().union(*(_flags(_resolve([name])[0]) for name in cli.list_commands(click.Context(cli))))
    assert sorted(set(OTHER_TOOLS) & every) == []


# ---------------------------------------------------------------------------------------------------- diagnostics

EXAMPLE_INPUTS = Path(__file__).parent / "docs_examples"


def _diagnostic_examples() -> list[tuple[str, str]]:
    """(code, the example line) of every example in docs/diagnostics.md: `job.yaml:…` lines in text blocks."""
    examples: list[tuple[str, str]] = []
    for language, body in _blocks((DOCS / "diagnostics.md").read_text(encoding="utf-8")):
        if language != "text":
            continue
        for line in body.splitlines():
            match = re.match(r"^job\.yaml:\d+:\d+: (?:error|warning|info) (MXJ\d{3})\b", line)
            if match:
                examples.append((match.group(1), line))
    return examples


def test_diagnostics_md_has_examples_and_each_has_an_input() -> None:
    examples = _diagnostic_examples()
    assert len(examples) >= 10
    inputs = {path.stem for path in EXAMPLE_INPUTS.glob("MXJ*.yaml")}
    assert {code for code, _ in examples} == inputs


@pytest.mark.parametrize(("code", "line"), _diagnostic_examples(), ids=lambda v: v if v.startswith("MXJ") else "")
def test_each_diagnostic_example_is_what_its_input_prints(tmp_path: Path, code: str, line: str) -> None:
    shutil.copy(EXAMPLE_INPUTS / f"{code}.yaml", tmp_path / "job.yaml")
    result = run_cli(["render", "job.yaml"], cwd=tmp_path)
    printed = result.stderr.splitlines()
    assert line in printed, result.stderr
    assert any(f" {code} " in p or f" {code}:" in p for p in printed)


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_local_link_resolves(path: Path) -> None:
    """Pages moved (the README's contributor material, performance history): no link may point at nothing."""
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8"))
    assert [t for t in links if not t.startswith(("http://", "https://")) and not (path.parent / t).exists()] == []


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_module_named_in_the_docs_exists(path: Path) -> None:
    """The house moved modules into rooms (compiler/cluster.py is compiler/render/cluster.py): a page that points a
    reader at a module that is not there says one thing while the code says another."""
    named = re.findall(r"`((?:compiler|reconciler)/[\w./-]+?)`", path.read_text(encoding="utf-8"))
    assert [name for name in named if not (REPO / name.rstrip("/")).exists()] == []


def _mermaid_blocks() -> list[tuple[str, str]]:
    return [
        (f"{path.relative_to(REPO)}#{number}", match.group(1))
        for path in DOC_FILES
        for number, match in enumerate(re.finditer(r"```mermaid\n(.*?)```", path.read_text(encoding="utf-8"), re.S))
    ]


def test_the_docs_have_their_diagrams() -> None:
    kinds = {block.split(None, 1)[0] for _, block in _mermaid_blocks()}
    assert len(_mermaid_blocks()) >= 4 and {"flowchart", "sequenceDiagram", "stateDiagram-v2"} <= kinds


@pytest.mark.parametrize(("where", "block"), _mermaid_blocks(), ids=lambda v: v if "#" in v else "")
def test_every_mermaid_diagram_is_in_the_checked_subset(where: str, block: str) -> None:
    """No Mermaid renderer installs here without a browser: the syntax is held by tests/mermaid_subset.py."""
    assert problems(block) == [], where


@pytest.mark.parametrize(
    ("broken", "said"),
    [
        ("sequenceDiagram\n    participant A as a\n    A->>B: hi\n", "participant 'B' is not declared"),
        ("sequenceDiagram\n    participant A as a\n    A->>A: one; two\n", "not a sequenceDiagram line"),
        ("sequenceDiagram\n    participant A as a\n    alt x\n    A->>A: y\n", "not closed with `end`"),
        ('flowchart LR\n    a["A"] --> b\n', "node 'b' is used but never given a label"),
        ('flowchart LR\n    a["A &amp; B"]\n', "not a flowchart line"),
        ('flowchart LR\n    subgraph s["S"]\n    a["A"]\n', "not closed with `end`"),
        ('stateDiagram-v2\n    state "S" as S {\n    [*] --> A\n', "not closed with `}`"),
        ("stateDiagram-v2\n    A -> B\n", "not a stateDiagram-v2 line"),
        ('pie\n    "a" : 1\n', "is not in the subset"),
    ],
)
def test_the_mermaid_checker_finds_each_kind_of_mistake(broken: str, said: str) -> None:
    assert any(said in problem for problem in problems(broken)), problems(broken)
