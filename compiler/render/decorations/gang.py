"""Gang membership for whichever gang scheduler a job uses: its group object after the ConfigMap, pods joined."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from mxjob_gitops.compiler.render.decorations import Filter, JobContext, Manifest
from mxjob_gitops.compiler.spec import constants as c


def select(context: JobContext) -> Filter | None:
    gang = context.gang
    if gang is None:
        return None
    join = gang.scheduler.backend.join
    scheduler_name = gang.scheduler.scheduler_name
    plan = gang.plan
    pod_group = None if context.job.run_policy.suspend else gang.pod_group

    def decorate(manifests: Iterable[Manifest]) -> Iterator[Manifest]:
        for manifest in manifests:
            kind = manifest["kind"]
            if kind == "Pod":
                if scheduler_name is not None:
                    manifest["spec"].setdefault("schedulerName", scheduler_name)
                join(manifest, plan, manifest["metadata"]["labels"][c.LABEL_REPLICA_TYPE])
            yield manifest
            if kind == "ConfigMap" and pod_group is not None:
                yield {**pod_group, "metadata": dict(pod_group["metadata"])}

    return decorate
