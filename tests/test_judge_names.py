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
fails. The test checks exactly that for every index of many jobs; tests/test_exact_mode.py judges jobs with names
at the limits (tests/exact_inputs.py) both ways (MXJOB_EXACT=representatives: every object) and wants the same
output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from mxjob_gitops.compiler.render.cluster import service_name
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
