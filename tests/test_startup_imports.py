"""`mxjob render` of a small job to stdout imports only what it uses (start-up is most of a small job's time)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "train" / "mx_job_dist_gpu.yaml"

# Run the real entry point in a child interpreter, then list what it imported; exit codes pass through.
_PROBE = """
import json, sys
from mxjob_gitops.compiler.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
import gc
sys.stderr.write("\\nGC " + json.dumps([gc.isenabled(), gc.get_freeze_count()]) + "\\n")
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""

# Modules a stdout render never needs: the explaining validator (valid specs go through jsonschema_rs), the
# round-trip YAML editor, the Kubernetes client, the differ, entry-point discovery, the -o directory code and
# what only it or a spilled (> 16 MiB) rendering uses, the commands render does not run, and traceback
# (only -v prints one), the CEL interpreter (the MXJob CRD's only rule is a transition rule).
HEAVY = (
    "jsonschema",
    "ruamel",
    "kubernetes",
    "deepdiff",
    "importlib.metadata",
    "difflib",
    "shutil",
    "tempfile",
    "traceback",
    "mxjob_gitops.reconciler",
    "mxjob_gitops.compiler.io.output_dir",
    # The GitOps objects of shards (render -o DIR --shard-size N --repo-url URL) and what only they use.
    "mxjob_gitops.compiler.render.gitopsunits",
    "mxjob_gitops.compiler.integrations.gitopsinput",
    "hashlib",
    "mxjob_gitops.compiler.cli.diff",
    "mxjob_gitops.compiler.cli.validate",
    "mxjob_gitops.compiler.diff.changes",
    "mxjob_gitops.compiler.diff.diffview",
    # The CEL interpreter runs only when a CRD rule must (a transition rule needs an old object: diff).
    "celpy",
    "lark",
)


def _probe(*args: str) -> str:
    """The child's stderr; the command must succeed."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def _imported(*args: str) -> set[str]:
    return set(json.loads(_probe(*args).rsplit("MODULES ", 1)[1]))


def test_render_to_stdout_leaves_heavy_modules_unimported() -> None:
    modules = _imported("render", str(EXAMPLE))
    loaded = sorted(name for name in modules for heavy in HEAVY if name == heavy or name.startswith(heavy + "."))
    assert loaded == []


def test_entry_point_module_imports_nothing_before_the_collector_is_paused() -> None:
    """click and the group come in through main() (import_paused), not when the entry point module loads."""
    probe = "import json, sys; import mxjob_gitops.compiler.cli.main; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    modules = set(json.loads(done.stdout))
    assert not {"click", "mxjob_gitops.compiler.cli.group"} & modules


def test_command_modules_are_frozen_and_the_collector_is_on_again() -> None:
    """click, the group and the command's modules were imported with the collector paused, then frozen out of
    later collections."""
    enabled, frozen = json.loads(_probe("render", str(EXAMPLE)).rsplit("GC ", 1)[1].split("\n", 1)[0])
    assert enabled is True
    assert frozen > 10_000


@pytest.mark.parametrize("heavy", ["jsonschema", "mxjob_gitops.compiler.io.output_dir"])
def test_probe_sees_a_module_that_is_imported(heavy: str, tmp_path: Path) -> None:
    """The check can fail: an invalid job loads the explaining validator, -o loads the directory code."""
    if heavy == "jsonschema":
        bad = tmp_path / "bad.yaml"
        bad.write_text(EXAMPLE.read_text().replace("replicas: 1", "replicas: one", 1))
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, "render", str(bad)], capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 1, done.stderr
        modules = set(json.loads(done.stderr.rsplit("MODULES ", 1)[1]))
    else:
        modules = _imported("render", "-o", str(tmp_path / "out"), str(EXAMPLE))
    assert heavy in modules


def test_diff_compares_objects_without_importing_pydantic(tmp_path: Path) -> None:
    """deepdiff imports pydantic when it is installed (half of deepdiff's import time) to know pydantic models;
    a diff holds JSON values only, so the diff imports deepdiff with pydantic kept out (startup.import_paused)."""
    changed = tmp_path / "changed.yaml"
    changed.write_text(EXAMPLE.read_text().replace("mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2", 1))
    modules = _imported("diff", "--exit-zero", str(EXAMPLE), str(changed))
    assert "deepdiff" in modules
    assert not {name for name in modules if name == "pydantic" or name.startswith("pydantic.")}


def test_a_module_hidden_from_one_import_can_be_imported_after() -> None:
    probe = (
        "import sys; from mxjob_gitops.compiler.io.startup import import_paused\n"
        "import_paused('deepdiff', hidden=('pydantic',))\n"
        "assert 'pydantic' not in sys.modules\n"
        "import pydantic.main\n"
        "print(pydantic.main.BaseModel.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == "BaseModel\n"


def test_a_diff_of_renderings_builds_no_schema_validator(tmp_path: Path) -> None:
    """The jobs of a rendering pass through (their ConfigMap is there): no spec is checked against the MXJob schema,
    so jsonschema_rs (0.02 s to import) is never loaded."""
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    rendered = subprocess.run(
        [sys.executable, "-m", "mxjob_gitops.compiler.cli", "render", str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    old.write_text(rendered, encoding="utf-8")
    new.write_text(rendered.replace("mxjob/mxnet:gpu", "mxjob/mxnet:gpu-2", 1), encoding="utf-8")
    modules = _imported("diff", "--exit-zero", str(old), str(new))
    assert "deepdiff" in modules and "jsonschema_rs" not in modules
