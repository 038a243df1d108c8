# Two entry points do all set-up on a fresh machine (see README): `make examples` and `make test`.
PYTHON ?= python3
# Test workers for `make test` (pytest-xdist); each test file runs whole on one worker. TEST_WORKERS=0 runs serially.
TEST_WORKERS ?= auto
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: examples test lint golden bench bench-install dist clean e2e e2e-prepare envtest

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'
	touch $(STAMP)

## Install, then render every example into rendered/ (kubectl kustomize rendered/ builds it).
examples: $(STAMP)
	$(BIN)/mxjob render -o rendered examples/train examples/tune examples/byteps examples/single

## Install, then run linters, the type checker and the whole test suite.
test: $(STAMP)
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

## Benchmarks, each next to its baseline in interleaved runs: render, validate, render -o, diff, reconcile.
bench: $(STAMP)
	$(BIN)/python bench/render_bench.py
	$(BIN)/python bench/validate_bench.py
	$(BIN)/python bench/outdir_bench.py
	$(BIN)/python bench/diff_bench.py
	$(BIN)/python bench/exact_bench.py
	$(BIN)/python bench/reconcile_bench.py --jobs 1000
	$(BIN)/python bench/reconcile_bench.py --jobs 3000
	$(BIN)/python bench/reconcile_bench.py --jobs 5000

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
