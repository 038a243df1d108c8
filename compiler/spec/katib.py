"""A note for a Katib Experiment whose trials are MXJobs: Katib creates each trial's MXJob in the cluster at run
time, where nothing renders it (compiler.checker reports it through compiler.legacy.legacy_kind_problem).

Katib's trial template is `spec.trialTemplate.trialSpec` (kubeflow/katib pkg/apis/controller/experiments/v1beta1
experiment_types.go TrialTemplate.TrialSource) or, in v1alpha3, the Go template text
`spec.trialTemplate.goTemplate.rawTemplate` (pkg/apis/controller/experiments/v1alpha3 GoTemplate).
"""

from __future__ import annotations

import re
from typing import Any, Final

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, JsonPath, warning
from mxjob_gitops.compiler.base.jsonutil import as_dict
from mxjob_gitops.compiler.spec import constants as c

KATIB_GROUP: Final = "kubeflow.org"
EXPERIMENT: Final = "Experiment"
_RAW_MXJOB: Final = re.compile(r"^\s*kind:\s*[\"']?MXJob[\"']?\s*$", re.MULTILINE)


def is_experiment(kind: str, api_version: str) -> bool:
    return kind == EXPERIMENT and api_version.partition("/")[0] == KATIB_GROUP


def mxjob_trial_note(obj: dict[str, Any]) -> Diagnostic | None:
    """The note for an Experiment whose trial template is an MXJob, else None."""
    template = as_dict(as_dict(obj.get("spec")).get("trialTemplate"))
    spec = as_dict(template.get("trialSpec"))
    path: JsonPath
    if spec.get("kind") == c.KIND and str(spec.get("apiVersion", "")).startswith(f"{c.GROUP}/"):
        path = ("spec", "trialTemplate", "trialSpec", "kind")
    else:
        raw = as_dict(template.get("goTemplate")).get("rawTemplate")
        if not (isinstance(raw, str) and _RAW_MXJOB.search(raw)):
            return None
        path = ("spec", "trialTemplate", "goTemplate", "rawTemplate")
    return warning(
        Code.UNSUPPORTED_VERSION,
        "this Katib Experiment runs each trial as an MXJob that Katib creates in the cluster at run time: no render "
        "sees it, and no Kubeflow operator serves MXJob any more (training-operator v1.9 removed it), so no trial "
        "would run; the Experiment was passed through unchanged",
        path,
        "render the trial template ahead: save it as an MXJob file (the ${trialParameters.…} placeholders in strings "
        "pass through as text), `mxjob render --engine jobset` it, and use the JobSet as trialSpec, with "
        "JobSet added to Katib's trialResources; or render one MXJob per parameter set",
    )
