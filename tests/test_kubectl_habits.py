"""kubectl's and kubeconform's habits: -f PATH, -o/--output FORMAT, single-dash long flags, -n against a job's own
namespace. Each is either accepted or answered with the flag that does it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli

TRAIN = EXAMPLES / "train" / "mx_job_dist_gpu.yaml"
SINGLE = EXAMPLES / "single" / "mx_job_single_worker.yaml"


@pytest.mark.parametrize("command", ["render", "validate", "convert"])
def test_dash_f_is_a_path_and_repeats(command: str) -> None:
    by_flag = run_cli([command, "-f", str(TRAIN), "--filename", str(SINGLE)])
    by_argument = run_cli([command, str(TRAIN), str(SINGLE)])
    assert by_flag.exit_code == 0, by_flag.stderr
    assert (by_flag.stdout, by_flag.stderr) == (by_argument.stdout, by_argument.stderr)


def test_dash_f_on_diff_names_both_sides(tmp_path: Path) -> None:
    changed = tmp_path / "new.yaml"
    changed.write_text(TRAIN.read_text(encoding="utf-8").replace("mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2"))
    result = run_cli(["diff", "--format", "brief", "-f", str(TRAIN), "-f", str(changed)])
    assert result.exit_code == 1 and "~ Pod mxnet-job-worker-0 modified" in result.stdout, result.stdout


def test_dash_f_keeps_the_missing_file_error() -> None:
    result = run_cli(["render", "-f", "no-such.yaml"])
    assert result.exit_code == 2 and "no-such.yaml: no such file or directory" in result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["render", "--output", "json"], "No such option '--output': did you mean --format json?"),
        (["render", "--output=yaml"], "No such option '--output': did you mean --format yaml?"),
        (["validate", "-o", "json"], "No such option '-o': did you mean --format json?"),
        (["validate", "--output", "junit"], "No such option '--output': did you mean --format junit?"),
        (["validate", "-ojson"], "No such option '-o': did you mean --format json?"),
        (["convert", "-o", "json"], "No such option '-o': did you mean --format json?"),
        (["diff", "-o", "json"], "No such option '-o': did you mean --format json?"),
        (["validate", "-output", "json"], "No such option '-output': did you mean --format json?"),
        (["validate", "-summary"], "No such option '-summary': mxjob validate always ends with a summary line"),
        (["validate", "-strict"], "No such option '-strict': did you mean --strict?"),
        (["validate", "-o", "wide"], "No such option '-o': mxjob validate prints with --format, one of text"),
    ],
)
def test_other_tools_spellings_get_a_hint(args: list[str], said: str) -> None:
    result = run_cli([*args, str(TRAIN)])
    assert result.exit_code == 2 and said in result.stderr, result.stderr
    assert "Did you mean '--output-dir'" not in result.stderr


def test_an_unknown_flag_keeps_clicks_own_guess() -> None:
    result = run_cli(["render", "--verbos", str(TRAIN)])
    assert result.exit_code == 2 and "Did you mean '--verbose'?" in result.stderr


def test_dash_n_against_the_jobs_own_namespace_is_a_warning(tmp_path: Path) -> None:
    shutil.copy(SINGLE, tmp_path / "job.yaml")  # metadata.namespace: training
    result = run_cli(["render", "-n", "prod", "job.yaml"], cwd=tmp_path)
    assert result.exit_code == 0 and "namespace: training" in result.stdout and "namespace: prod" not in result.stdout
    warning = [line for line in result.stderr.splitlines() if "MXJ320" in line]
    assert len(warning) == 1 and warning[0].startswith("job.yaml:") and "at metadata.namespace" in warning[0]
    assert '-n/--namespace "prod"' in warning[0] and '"training" is kept' in warning[0]
    assert "MXJ320" not in run_cli(["render", "-n", "training", "job.yaml"], cwd=tmp_path).stderr
    assert "MXJ320" not in run_cli(["render", "-n", "prod", str(TRAIN)]).stderr  # TRAIN sets no namespace
    assert "MXJ320" not in run_cli(["render", "-q", "-n", "prod", "job.yaml"], cwd=tmp_path).stderr
