# One image for the reconciler (`mxjob reconcile`) and the Argo CD plugin sidecar (`mxjob render`).
# Build: docker build -t ghcr.io/mxjob-gitops/mxjob-gitops:0.1.0 .
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md constraints.txt ./
COPY compiler compiler
COPY reconciler reconciler
COPY schemas schemas
RUN pip wheel --no-cache-dir --wheel-dir /wheels -c constraints.txt .

FROM python:3.11-slim
# bash and grep serve the Argo CD plugin's discover and generate commands.
RUN apt-get update && apt-get install -y --no-install-recommends bash grep && rm -rf /var/lib/apt/lists/*
COPY --from=build /wheels /wheels
COPY constraints.txt /tmp/constraints.txt
RUN pip install --no-cache-dir --no-index --find-links /wheels -c /tmp/constraints.txt mxjob-gitops \
    && rm -rf /wheels /tmp/constraints.txt
# Non-root; the Argo CD sidecar overrides the UID with 999 as its docs require.
USER 65532:65532
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
ENTRYPOINT ["mxjob"]
CMD ["--help"]
