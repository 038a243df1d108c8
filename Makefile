# Two entry points do all set-up on a fresh machine (see README): `make examples` (the base install) and
# `make test` (the test install).
PYTHON ?= python3
# Test workers for `make test` (pytest-xdist); each test file runs whole on one worker. TEST_WORKERS=0 runs serially.
TEST_WORKERS ?= auto
VENV ?= .venv
BIN := $(VENV)/bin
# The test install (the [test] extra: linters, pytest, the cluster client) and the base install (what `mxjob
# render` needs, and all `make examples` installs); the test install includes the base one.
STAMP := $(VENV)/.installed
BASE_STAMP := $(VENV)/.installed-base

.PHONY: examples test lint golden bench bench-install dist clean e2e e2e-prepare envtest

$(VENV)/bin/python:
	@echo "==> creating the virtual environment $(VENV)"
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml constraints.txt | $(VENV)/bin/python
	@echo "==> installing mxjob-gitops with its test tools into $(VENV) (about two minutes the first time)"
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	touch $(STAMP) $(BASE_STAMP)

$(BASE_STAMP): pyproject.toml constraints.txt | $(VENV)/bin/python
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ] && [ $(STAMP) -nt constraints.txt ]; then \
		echo "==> $(VENV) already holds the test install, which includes the base one"; \
	else \
		echo "==> installing mxjob-gitops (base install: no test tools, no cluster client) into $(VENV)"; \
		$(BIN)/pip install --disable-pip-version-check --progress-bar on -c constraints.txt -e . ; \
	fi
	touch $(BASE_STAMP)

## Install (the base package only), then render every example into rendered/ (kubectl kustomize rendered/ builds it).
examples: $(BASE_STAMP)
	@echo "==> rendering examples/ into rendered/"
	$(BIN)/mxjob render -o rendered examples/train examples/tune examples/byteps examples/single
	@echo "==> done: kubectl kustomize rendered/ builds what Argo CD or Flux would apply; . .venv/bin/activate puts mxjob on your PATH"

## Install with the test tools, then run linters, the type checker and the whole test suite.
test: $(STAMP)
	@echo "==> ruff, mypy, then pytest on $(TEST_WORKERS) workers"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

## Prepare the e2e tier: MXNet 1.9.1 and Apache TVM in cached venvs outside the repository (not project dependencies).
e2e-prepare:
	bash .ci/mxnet.sh

## The e2e tier alone: rendered jobs form real MXNet clusters in network namespaces (root; part of `make test`).
e2e: $(STAMP) e2e-prepare
	$(BIN)/pytest tests/e2e

## Build a real kube-apiserver (from Debian's kubernetes source) + etcd for tests/realapi, cached in
## ~/.cache/mxjob-gitops/envtest (optional; KUBEBUILDER_ASSETS=<envtest bundle> works too), and the 1.36
## components of ../shared/realcomp when present (REALCOMP_CACHE). See docs/real-cluster.md.
envtest:
	bash .ci/envtest.sh
	if [ -f ../shared/realcomp/build.sh ]; then bash ../shared/realcomp/build.sh; fi

## Regenerate tests/golden/*/expected.* after an intended change to the rendering.
golden: $(STAMP)
	MXJOB_UPDATE_GOLDEN=1 $(BIN)/pytest -q tests/test_golden.py

## Benchmarks, each next to its baseline in interleaved runs: render, validate, render -o (and its shards), diff, reconcile; then the
## reconciler on the cluster tier (needs `make envtest`).
bench: $(STAMP)
	$(BIN)/python bench/render_bench.py
	$(BIN)/python bench/validate_bench.py
	$(BIN)/python bench/outdir_bench.py
	$(BIN)/python bench/shards_bench.py
	$(BIN)/python bench/diff_bench.py
	$(BIN)/python bench/kustomize_diff_bench.py
	$(BIN)/python bench/exact_bench.py
	$(BIN)/python bench/reconcile_bench.py --jobs 1000
	$(BIN)/python bench/reconcile_bench.py --jobs 3000
	$(BIN)/python bench/reconcile_bench.py --jobs 5000
	$(BIN)/python bench/cluster_bench.py --jobs 50
	$(BIN)/python bench/cluster_bench.py --jobs 500

## Install size and time of the base install and of [cluster] in fresh venvs, from PyPI (needs the registry).
bench-install: dist
	$(BIN)/python bench/install_bench.py dist/*.whl

## Build the wheel into dist/ offline (the build backend comes from the venv): install it with
## pip install dist/mxjob_gitops-<version>-py3-none-any.whl, or '...whl[cluster]' for reconcile and diff --live.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/pip wheel --quiet --no-deps --no-build-isolation --no-index --wheel-dir dist .

clean:
	rm -rf $(VENV) rendered dist .pytest_cache .mypy_cache .ruff_cache
