#!/usr/bin/env bash
# Prepare the e2e tier's MXNet: a venv outside the repository, cached between runs (MXNet is not a project dependency).
# Idempotent: a venv whose `import mxnet` already works is left alone.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
VENV="${MXJOB_MXNET_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/mxjob-gitops/mxnet-venv}"
# The last MXNet release (py3 manylinux wheel) and the newest numpy its ABI accepts.
PINS=(mxnet==1.9.1 numpy==1.23.5)
check() {
    "$VENV/bin/python" -c 'import mxnet, numpy; assert mxnet.__version__ == "1.9.1", mxnet.__version__; assert numpy.__version__ == "1.23.5", numpy.__version__' 2>/dev/null
}
if [ -x "$VENV/bin/python" ] && check; then
    echo "mxnet venv ready: $VENV"
    exit 0
fi
if [ -e "$VENV" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
    echo "$VENV exists and is not a venv; not touching it" >&2
    exit 2
fi
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}"
if ! check; then
    echo "mxnet venv at $VENV does not import mxnet 1.9.1" >&2
    "$VENV/bin/python" -c 'import mxnet' >&2 || true
    exit 2
fi
echo "mxnet venv ready: $VENV"
