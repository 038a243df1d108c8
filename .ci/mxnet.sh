#!/usr/bin/env bash
# Prepare the e2e tier's interpreters: venvs outside the repository, cached between runs (neither MXNet nor TVM is a
# project dependency). Idempotent: a venv whose imports already work at the pinned versions is left alone.
#   mxnet-venv: the last MXNet release (py3 manylinux wheel) and the newest numpy its ABI accepts.
#   tvm-venv:   Apache TVM for the MXTune case's RPC tracker/server (it needs numpy 2, so it cannot share MXNet's venv);
#               tornado, psutil and cloudpickle are what tvm.rpc's tracker and server import.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/mxjob-gitops"

prepare() {  # prepare VENV CHECK PIN...
    local venv="$1" check="$2"
    shift 2
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" 2>/dev/null; then
        echo "ready: $venv"
        return 0
    fi
    if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ]; then
        echo "$venv exists and is not a venv; not touching it" >&2
        exit 2
    fi
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
    if ! "$venv/bin/python" -c "$check"; then
        echo "$venv does not import what it should" >&2
        exit 2
    fi
    echo "ready: $venv"
}

prepare "${MXJOB_MXNET_VENV:-$CACHE/mxnet-venv}" \
    'import mxnet, numpy; assert (mxnet.__version__, numpy.__version__) == ("1.9.1", "1.23.5")' \
    mxnet==1.9.1 numpy==1.23.5
prepare "${MXJOB_TVM_VENV:-$CACHE/tvm-venv}" \
    'import tvm, tvm.rpc.tracker, tvm.rpc.server; assert tvm.__version__ == "0.27.0.post1", tvm.__version__' \
    apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.15.post2 ml_dtypes==0.6.0 numpy==2.4.6 \
    tornado==6.6.1 psutil==7.2.2 cloudpickle==3.1.2
