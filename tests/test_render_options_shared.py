"""One set of render options: every option that changes what is rendered is accepted by render, validate, diff
and krm, with one default, and validate checks exactly what render prints."""

from __future__ import annotations

import json

import click
import pytest
import yaml

from mxjob_gitops.compiler.cli.diff import diff
from mxjob_gitops.compiler.cli.krm import krm
from mxjob_gitops.compiler.cli.render import render
from mxjob_gitops.compiler.cli.validate import validate
from tests.conftest import EXAMPLES, run_cli

COMMANDS = {"render": render, "validate": validate, "diff": diff, "krm": krm}
RENDERING = (
    "--namespace",
    "--target",
    "--gang-scheduler",
    "--priority-class",
    "--job",
    "--max-pods",
    "--kubernetes-version",
    "--engine",
    "--exit-codes",
)


def _option(command: click.Command, flag: str) -> click.Option:
    for param in command.params:
        if isinstance(param, click.Option) and flag in (*param.opts, *param.secondary_opts):
            return param
    raise AssertionError(f"{command.name} has no {flag}")


@pytest.mark.parametrize("flag", RENDERING)
def test_every_command_takes_the_option_with_one_default(flag: str) -> None:
    options = {name: _option(command, flag) for name, command in COMMANDS.items()}
    defaults = {name: (o.default, o.envvar) for name, o in options.items()}
    assert len(set(defaults.values())) == 1, defaults


@pytest.mark.parametrize(
    "args",
    [["--gang-scheduler", "kubernetes"], ["--engine", "jobset"], ["--gang-scheduler", "volcano", "--target", "argocd"]],
)
def test_validate_checks_what_render_prints(args: list[str]) -> None:
    spec = str(EXAMPLES / "train" / "mx_job_dist_gpu.yaml")
    rendered = run_cli(["render", *args, spec])
    assert rendered.exit_code == 0, rendered.stderr
    printed = sorted((d["apiVersion"], d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(rendered.stdout))
    checked = run_cli(["validate", "--format", "json", *args, spec])
    report = json.loads(checked.stdout)
    assert sorted((r["apiVersion"], r["kind"], r["name"]) for r in report["resources"]) == printed
    assert checked.exit_code == 0 and report["summary"]["ok"], checked.stdout


def test_the_jobset_engine_gang_rule_holds_everywhere() -> None:
    for name in ("render", "validate", "diff"):
        result = run_cli([name, "--engine", "jobset", "--gang-scheduler", "volcano", str(EXAMPLES / "single")])
        assert result.exit_code == 2 and "Kueue only" in result.stderr, (name, result.stderr)
