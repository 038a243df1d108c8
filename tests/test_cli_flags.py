"""One flag vocabulary: -q/-v everywhere, --kubeconfig/--context for clusters, -U for context lines, --version,
completion, every environment variable in --help, kubectl's `-o json` refused, stdin when no PATH is given."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from mxjob_gitops.compiler.cli.flags import ENVIRONMENT, paths_or_stdin
from mxjob_gitops.compiler.cli.group import cli
from tests.conftest import EXAMPLES, REPO, run_cli
from tests.helpers import job, replica

COMMANDS = ["completion", "convert", "diff", "integrations", "krm", "reconcile", "render", "validate"]
CLUSTER_COMMANDS = ["diff", "reconcile"]
VALID = job(name="ok", Worker=replica())


def _command(name: str) -> click.Command:
    ctx = click.Context(cli)
    command = cli.get_command(ctx, name)
    assert command is not None
    return command


def _options(name: str) -> set[str]:
    return {opt for param in _command(name).params for opt in (*param.opts, *param.secondary_opts)}


def test_the_command_list_is_complete() -> None:
    assert cli.list_commands(click.Context(cli)) == COMMANDS


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_quiet_and_verbose(name: str) -> None:
    command = _command(name)
    for each in [command, *(command.commands.values() if isinstance(command, click.Group) else ())]:
        names = {opt for param in each.params for opt in (*param.opts, *param.secondary_opts)}
        assert {"-q", "--quiet", "-v", "--verbose"} <= names, each.name


@pytest.mark.parametrize("name", CLUSTER_COMMANDS)
def test_cluster_commands_share_kubeconfig_and_context(name: str) -> None:
    options = _options(name)
    assert {"--kubeconfig", "--context"} <= options and "--kube-context" not in options
    context = next(p for p in _command(name).params if "--context" in p.opts)
    assert context.name == "kube_context" and isinstance(context.type, click.types.StringParamType)


def test_diff_context_lines_are_unified(tmp_path: Path) -> None:
    assert {"-U", "--unified"} <= _options("diff")
    old = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"
    new = tmp_path / "job.yaml"
    new.write_text(old.read_text(encoding="utf-8").replace("mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2"), encoding="utf-8")
    wide, narrow = (run_cli(["diff", "-U", n, str(old), str(new)]).stdout for n in ("10", "0"))
    assert len(wide.splitlines()) > len(narrow.splitlines())


def test_version_names_the_commit_of_the_checkout_it_runs_from() -> None:
    """The tests run from an editable install in a Git checkout: its HEAD, and whether tracked files changed."""
    import subprocess
    from importlib.metadata import version

    from tests.conftest import REPO

    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    changed = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    ).stdout.strip()
    dirty = ", dirty: uncommitted changes" if changed else ""
    result = run_cli(["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"mxjob {version('mxjob-gitops')} (commit {head.stdout.strip()}{dirty})\n"


def test_version_outside_git_is_the_number_alone(tmp_path: Path) -> None:
    from mxjob_gitops.compiler.io.version import built_state, checkout_state

    assert checkout_state(tmp_path) is None and built_state(tmp_path) is None
    (tmp_path / "_build.json").write_text('{"commit": "' + "a" * 40 + '", "dirty": false}', encoding="utf-8")
    assert built_state(tmp_path) == {"commit": "a" * 40, "dirty": False}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts(shell: str) -> None:
    result = run_cli(["completion", shell])
    assert result.exit_code == 0 and "_MXJOB_COMPLETE" in result.stdout


def test_completion_completes_commands_and_flags() -> None:
    env = {**os.environ, "_MXJOB_COMPLETE": "bash_complete", "COMP_WORDS": "mxjob diff --un", "COMP_CWORD": "2"}
    done = subprocess.run(
        [sys.executable, "-c", "from mxjob_gitops.compiler.cli.main import main; main()"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert "plain,--unified" in done.stdout.splitlines(), done.stdout + done.stderr


def test_every_environment_variable_is_in_help() -> None:
    documented = {name for name, _ in ENVIRONMENT}
    top = run_cli(["--help"]).stdout
    assert all(name in top for name in documented)
    for name in COMMANDS:
        for param in _command(name).params:
            envvar = getattr(param, "envvar", None)
            if envvar:
                assert envvar in documented and getattr(param, "show_envvar", False), (name, param.name)
                assert f"env var: {envvar}" in " ".join(run_cli([name, "--help"]).stdout.split()), (name, envvar)
    read = set()
    for path in [*(REPO / "compiler").rglob("*.py"), *(REPO / "reconciler").rglob("*.py")]:
        read.update(re.findall(r"environ(?:\.get\(|\[)\"([A-Z_]+)\"", path.read_text(encoding="utf-8")))
        read.update(re.findall(r"\"([A-Z_]+)\" in os\.environ", path.read_text(encoding="utf-8")))
    assert read and read <= documented, read - documented


@pytest.mark.parametrize("word", ["json", "yaml"])
def test_kubectl_output_format_habit_is_refused(word: str, tmp_path: Path) -> None:
    result = run_cli(["render", "-o", word, str(EXAMPLES / "train")], cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    assert f"did you mean --format {word}?" in result.stderr
    assert not os.listdir(tmp_path)


def test_a_directory_named_json_can_still_be_written(tmp_path: Path) -> None:
    result = run_cli(["render", "-q", "-o", "./json", str(EXAMPLES / "train")], cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("flag", ["--kubernetes-version", "--gang-scheduler"])
def test_an_empty_render_option_is_no_option(flag: str) -> None:
    """`--kubernetes-version ""` was read as the version "None" (an internal error); now every render flag is read
    by the record codec, where an empty value is the default."""
    plain = run_cli(["render", str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml")])
    empty = run_cli(["render", flag, "", str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml")])
    assert (empty.exit_code, empty.stdout) == (plain.exit_code, plain.stdout) == (0, plain.stdout)


@pytest.mark.parametrize("name", ["render", "validate", "convert"])
def test_piped_stdin_is_read_without_a_path(name: str) -> None:
    import json

    result = run_cli([name], stdin=json.dumps(VALID))
    assert result.exit_code == 0, result.stderr
    assert result.stdout


def test_diff_live_reads_piped_stdin() -> None:
    assert paths_or_stdin(()) == ("-",)  # pytest's stdin is not a terminal


def test_no_path_on_a_terminal_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    with pytest.raises(click.UsageError, match="give PATH"):
        paths_or_stdin(())


def test_verbose_prints_the_traceback_of_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import mxjob_gitops.compiler.compile.checker as checker

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(checker, "compile_object", broken)
    plain = run_cli(["render", "-"], stdin=json.dumps(VALID))
    loud = run_cli(["render", "-v", "-"], stdin=json.dumps(VALID))
    assert plain.exit_code == loud.exit_code == 3
    assert "Traceback" not in plain.stderr and "run again with -v" in plain.stderr
    assert "Traceback" in loud.stderr and "RuntimeError: boom" in loud.stderr


def test_quiet_wins_over_verbose() -> None:
    import json

    flat = json.dumps(VALID).replace('"jobMode"', '"backoffLimit": 2, "jobMode"')
    result = run_cli(["convert", "-v", "-q", "-"], stdin=flat)
    assert result.exit_code == 0 and result.stderr == ""
