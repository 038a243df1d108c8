#!/usr/bin/env bash
# Build the standalone kustomize CLI (v5, Debian sid's sigs.k8s.io/kustomize sources) for tests/test_krm.py, which
# runs `mxjob krm` as an exec KRM function the way a kustomize user does (`kustomize build --enable-alpha-plugins
# --enable-exec`); `kubectl kustomize` has no exec functions. It reuses the Go toolchain and Debian source tree
# that ../shared/realcomp/build.sh unpacked, so run that first; without it this script says so and exits 0 (the
# test then skips, or fails under CI=true). The binary lands in
#   ${XDG_CACHE_HOME:-$HOME/.cache}/mxjob-gitops/kustomize/bin/kustomize    (or $MXJOB_KUSTOMIZE for the tests)
# and a second run returns at once.
set -euo pipefail

REALCOMP="${REALCOMP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mxjob-gitops/realcomp}"
OUT="${XDG_CACHE_HOME:-$HOME/.cache}/mxjob-gitops/kustomize/bin"
SID="$REALCOMP/work/sidroot"
say() { printf 'kustomize: %s\n' "$*" >&2; }

if [ -x "$OUT/kustomize" ] && "$OUT/kustomize" build --help 2>/dev/null | grep -q -- --enable-exec; then
    say "ready: $OUT/kustomize"
    exit 0
fi
if [ ! -x "$SID/usr/lib/go-1.27/bin/go" ] || [ ! -d "$SID/usr/share/gocode/src/sigs.k8s.io/kustomize/kustomize/v5" ]; then
    say "no unpacked Go toolchain and kustomize source under $REALCOMP (run ../shared/realcomp/build.sh first)"
    exit 0
fi
mkdir -p "$OUT"
export GOROOT="$SID/usr/lib/go-1.27" GOCACHE="$REALCOMP/work/gocache" GOPATH="$REALCOMP/work/gopath:$SID/usr/share/gocode"
export PATH="$GOROOT/bin:$PATH" GOENV=off GOWORK=off GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local CGO_ENABLED=0
export GOFLAGS=-trimpath GOTELEMETRY=off GO111MODULE=off
go build -o "$OUT/kustomize.tmp" sigs.k8s.io/kustomize/kustomize/v5
mv "$OUT/kustomize.tmp" "$OUT/kustomize"
say "built $OUT/kustomize"
