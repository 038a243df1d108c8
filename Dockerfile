# Two images from one build, each with the smallest dependency set it needs:
#   docker build --target cmp -t <your-registry>/mxjob-gitops-cmp:<commit> .
#       the Argo CD plugin sidecar: `mxjob validate` against the destination cluster's Kubernetes version and
#       `mxjob render`; base install plus the [schemas] extra (every Kubernetes version), no Kubernetes client.
#   docker build -t <your-registry>/mxjob-gitops:<commit> .
#       the reconciler, `mxjob reconcile`: base install plus the [cluster] extra.
# Nothing is published for you: build, push to a registry you control and set it in the overlays' `images:`.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE constraints.txt ./
COPY compiler compiler
COPY reconciler reconciler
COPY mxjob_gitops mxjob_gitops
COPY schemas schemas
RUN pip wheel --no-cache-dir --wheel-dir /wheels -c constraints.txt '.[cluster,schemas]'

FROM python:3.11-slim AS runtime
COPY constraints.txt /tmp/constraints.txt
# Non-root; the Argo CD sidecar overrides the UID with 999 as its docs require.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
ENTRYPOINT ["mxjob"]
CMD ["--help"]

FROM runtime AS cmp
# bash and grep serve the Argo CD plugin's discover and generate commands.
RUN apt-get update && apt-get install -y --no-install-recommends bash grep && rm -rf /var/lib/apt/lists/*
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels -c /tmp/constraints.txt 'mxjob-gitops[schemas]'
USER 65532:65532

FROM runtime AS reconciler
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels -c /tmp/constraints.txt 'mxjob-gitops[cluster]'
USER 65532:65532
