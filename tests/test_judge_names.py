"""compiler.judge holds the pods and Services of each replica type to the server's rules at the highest index only.
The rules that read an object's own name are the ones this could get wrong; here they are, each with the names of
every index:

- a Pod's name (a DNS-1123 subdomain) and a Service's (a DNS-1035 label before 1.36, a DNS-1123 label from
  1.36): `<job>-<type>-<index>` (compiler.render.cluster.service_name);
- the claim an ephemeral volume of a named pod makes, `<pod>-<volume>` (a DNS-1123 subdomain);
- on the JobSet engine, the hostname `<job>-<type>-0-<index>` (a DNS-1123 label) and the generateName
  `<job>-<type>-0-<index>-` the Job controller gives the pod (checked as a DNS-1123 subdomain with the five
  characters the server appends).

(Resource claims made from templates get generated names in 1.36: no rule reads the pod's name there, which
tests/modern/test_judge_differential.py's claims edits show with a real core-validate.)

The names of one type differ only in the decimal index at their end, and each rule is a pattern that any run of
digits at the end satisfies, plus a length limit: so the longest name, the highest index's, fails whenever any
fails. The first test checks exactly that for every index of many jobs; the second judges jobs with names at the
limits both ways (MXJOB_EXACT=representatives: every object) and wants the same verdict and the same places.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.base.exact import set_exact
from mxjob_gitops.compiler.compile.job import compile_job
from mxjob_gitops.compiler.render.cluster import service_name
from mxjob_gitops.compiler.render.options import RenderOptions
from mxjob_gitops.compiler.rules import names
from tests.job_edits import REPO

DIST = REPO / "examples" / "train" / "mx_job_dist_gpu.yaml"
ROLES = ("scheduler", "server", "worker", "tunertracker", "tunerserver", "tuner")
Rule = Callable[[str], str]


def _name_rules(job: str, role: str, volume: str) -> Iterator[tuple[str, Rule, Callable[[int], str]]]:
    """(what, rule, the name of index i) for every rule that reads an object's own name."""
    yield "pod name", names.dns1123_subdomain, lambda i: service_name(job, role, i)
    yield "service name before 1.36", names.dns1035_label, lambda i: service_name(job, role, i)
    yield "service name from 1.36", names.dns1123_label, lambda i: service_name(job, role, i)
    yield "ephemeral claim", names.dns1123_subdomain, lambda i: f"{service_name(job, role, i)}-{volume}"
    yield "jobset hostname", names.dns1123_label, lambda i: f"{job}-{role}-0-{i}"
    yield "jobset generateName", names.dns1123_subdomain, lambda i: f"{job}-{role}-0-{i}-abcde"


_LABEL = st.from_regex(r"[a-z]([-a-z0-9]{0,80}[a-z0-9])?", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(job=_LABEL, role=st.sampled_from(ROLES), count=st.integers(1, 1200), volume=_LABEL)
def test_a_name_rule_that_fails_on_any_index_fails_on_the_highest(job: str, role: str, count: int, volume: str) -> None:
    for what, rule, name in _name_rules(job, role, volume):
        highest = rule(name(count - 1))
        failing = [i for i in range(count) if rule(name(i))]
        assert not failing or highest, f"{what}: index {failing[0]} fails, the highest ({count - 1}) passes"


def _job(length: int, workers: int) -> dict[str, Any]:
    job: dict[str, Any] = yaml.safe_load(DIST.read_text(encoding="utf-8"))
    job = copy.deepcopy(job)
    job["metadata"]["name"] = "n" * length
    job["spec"]["mxReplicaSpecs"]["Worker"]["replicas"] = workers
    claim = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    volume = {"name": "v" * 40, "ephemeral": {"volumeClaimTemplate": claim}}
    job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["volumes"] = [volume]
    return job


def _verdict(job: dict[str, Any], options: RenderOptions, setting: str) -> tuple[bool, set[object]]:
    set_exact(setting)
    try:
        rendering = compile_job(copy.deepcopy(job), options)
    finally:
        set_exact("")
    return rendering.ok, {d.path for d in rendering.errors()}


@pytest.mark.parametrize("engine", ["pods", "jobset"])
@pytest.mark.parametrize("version", ["1.23", "1.35", "1.36"])
def test_jobs_at_the_name_limits_get_one_verdict_either_way(engine: str, version: str) -> None:
    """Job names from fitting to one character over (the scheduler's names, then the workers' at 100 and more,
    are the longest), judged with and without the shortcut."""
    options = RenderOptions(engine=engine, kubernetes_version=version)
    verdicts = set()
    for length in range(47, 54):
        for workers in (1, 10, 11, 101):
            job = _job(length, workers)
            fast = _verdict(job, options, "")
            assert fast == _verdict(job, options, "representatives"), (length, workers)
            verdicts.add(fast[0])
    assert verdicts == {True, False}  # the limit lies inside the lengths tried
