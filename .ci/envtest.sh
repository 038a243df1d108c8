#!/usr/bin/env bash
# Prepare a real kube-apiserver + etcd for the test tier (tests/realapi), and kube-scheduler +
# kube-controller-manager from the same source tree for the cluster tier (tests/cluster), cached outside the
# repository.
#
# No package registry ships kube-apiserver for these machines, so this builds it from Debian bookworm's
# `kubernetes` source package (v1.20.2, full tree with vendor/) with Debian's Go, and uses Debian's
# `etcd-server`. Nothing is downloaded except through apt. The result lands in
#   ${XDG_CACHE_HOME:-$HOME/.cache}/mxjob-gitops/envtest/bin/{kube-apiserver,kube-scheduler,kube-controller-manager,etcd}
# and a second run returns at once. With your own envtest bundle you do not need this at all:
#   KUBEBUILDER_ASSETS=/path/to/bundle make test
# Needs root (or sudo) for apt-get. See docs/real-cluster.md.
set -euo pipefail

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/mxjob-gitops/envtest"
BIN="$CACHE/bin"
SRC="$CACHE/src"
LOG="$CACHE/build.log"
DEBSRC_LIST=/etc/apt/sources.list.d/mxjob-envtest-bookworm-src.list

say() { printf 'envtest: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The Kubernetes binaries this script builds; each is built only while missing (a cache made before the cluster
# tier existed has kube-apiserver alone and gets the other two).
KUBE_BINARIES=(kube-apiserver kube-scheduler kube-controller-manager)

all_ready() {
    local name
    [ -x "$BIN/etcd" ] || return 1
    for name in "${KUBE_BINARIES[@]}"; do
        [ -x "$BIN/$name" ] && "$BIN/$name" --version >/dev/null 2>&1 || return 1
    done
}

if all_ready; then
    say "ready: $("$BIN/kube-apiserver" --version) (apiserver, scheduler, controller-manager)," \
        "etcd $("$BIN/etcd" --version | head -1 | awk '{print $NF}') in $BIN"
    exit 0
fi
mkdir -p "$BIN" "$SRC"

install_packages() {
    local missing=()
    command -v go >/dev/null || missing+=(golang-go)
    [ -x /usr/bin/etcd ] || missing+=(etcd-server)
    [ -d /usr/share/gocode/src/github.com/modern-go/reflect2 ] || missing+=(golang-github-modern-go-reflect2-dev)
    command -v dpkg-source >/dev/null || missing+=(dpkg-dev)
    if [ "${#missing[@]}" -gt 0 ]; then
        say "apt-get install ${missing[*]}"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    fi
}

# apt-get source needs a deb-src entry; add one for bookworm (+ security) only while downloading.
download_source() {
    if ls "$SRC"/kubernetes_*.dsc >/dev/null 2>&1; then return; fi
    say "downloading Debian bookworm's kubernetes source package"
    trap 'as_root rm -f "$DEBSRC_LIST"; as_root apt-get update -q >/dev/null 2>&1 || true' EXIT
    local opts=""
    # Match the Signed-By of Debian's default sources, or apt refuses the conflicting entries.
    [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] && opts="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
    printf '%s\n' \
        "deb-src ${opts}http://deb.debian.org/debian bookworm main" \
        "deb-src ${opts}http://deb.debian.org/debian-security bookworm-security main" | as_root tee "$DEBSRC_LIST" >/dev/null
    as_root apt-get update -q
    (cd "$SRC" && apt-get source --download-only kubernetes/bookworm)
    as_root rm -f "$DEBSRC_LIST"
    trap - EXIT
    as_root apt-get update -q >/dev/null 2>&1 || true
}

unpack_source() {
    if [ -d "$SRC/tree/vendor" ]; then return; fi
    say "unpacking"
    rm -rf "$SRC/tree"
    (cd "$SRC" && dpkg-source --no-check -x kubernetes_*.dsc tree >/dev/null)
}

# Go >= 1.17 with -mod=vendor rejects modules.txt when package lines follow a `# module => replacement`
# line that has no version (it then asks for go.mod updates). Move each such package list under the
# module's own versioned line.
fix_modules_txt() {
    python3 "$(dirname "$0")/envtest_modules_txt.py" "$SRC/tree/vendor/modules.txt"
}

# The vendored reflect2 1.0.1 crashes map encoding on Go >= 1.18; Debian ships 1.0.2.
swap_reflect2() {
    local tree="$SRC/tree" dst="$SRC/tree/vendor/github.com/modern-go/reflect2"
    if grep -q 'modern-go/reflect2 v1.0.2' "$tree/vendor/modules.txt"; then return; fi
    say "vendoring Debian's modern-go/reflect2 1.0.2"
    rm -rf "$dst"
    mkdir -p "$dst"
    cp -r /usr/share/gocode/src/github.com/modern-go/reflect2/. "$dst/"
    find "$dst" -name '*_test.go' -delete
    sed -i 's|github.com/modern-go/reflect2 v1.0.1|github.com/modern-go/reflect2 v1.0.2|g' "$tree/go.mod" "$tree/vendor/modules.txt"
}

gobuild() {
    (cd "$SRC/tree" && GOFLAGS=-mod=vendor GOPROXY=off GO111MODULE=on CGO_ENABLED=0 GOCACHE="$CACHE/gocache" \
        go build -p 2 "$@")
}

# The API server links pkg/generated/openapi, which upstream's Makefile generates with the vendored
# openapi-gen in GOPATH mode (build/root/Makefile.generated_files, KUBE_OPENAPI_*): the inputs are the
# directories of every Go file tagged `// +k8s:openapi-gen=`, staging/src named as vendor/, minus
# code-generator and sample-apiserver.
openapi_inputs() {
    (cd "$SRC/tree" && find -H . -not \( \( -path './_*' -o -path './.*' -o -path ./vendor -o -path ./debian \) -prune \) \
        -type f -name '*.go' -print0 \
        | xargs -0 grep -l '^// *+k8s:' | xargs grep -l '+k8s:openapi-gen=' \
        | sed -e 's|^\./||' -e 's|^staging/src|vendor|' -e 's|/[^/]*$||' \
        | grep -v -e '^vendor/k8s.io/code-generator/' -e '^vendor/k8s.io/sample-apiserver/' \
        | LC_ALL=C sort -u | sed 's|^|k8s.io/kubernetes/|' | paste -sd, -)
}

generate_openapi() {
    local out="$SRC/tree/pkg/generated/openapi/zz_generated.openapi.go"
    if [ -s "$out" ]; then return; fi
    say "generating pkg/generated/openapi with the vendored openapi-gen"
    gobuild -o "$CACHE/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen
    local gopath="$CACHE/gopath"
    mkdir -p "$gopath/src/k8s.io"
    ln -sfn "$SRC/tree" "$gopath/src/k8s.io/kubernetes"
    (cd "$gopath/src/k8s.io/kubernetes" && GOPATH="$gopath" GO111MODULE=off GOFLAGS= GOCACHE="$CACHE/gocache" \
        "$CACHE/openapi-gen" \
        --input-dirs "$(openapi_inputs)" \
        --output-package k8s.io/kubernetes/pkg/generated/openapi \
        --output-file-base zz_generated.openapi \
        --go-header-file vendor/k8s.io/code-generator/hack/boilerplate.go.txt \
        --report-filename "$CACHE/openapi-violations.report" \
        --output-base "$gopath/src")
    test -s "$out"
}

# kube-apiserver: about 20 minutes on 2 cores the first time; the scheduler and the controller-manager share most
# of its packages in the Go cache and take a few minutes more.
build_kube() {
    local name="$1"
    if [ -x "$BIN/$name" ] && "$BIN/$name" --version >/dev/null 2>&1; then return; fi
    say "building $name (log: $LOG)"
    # What hack/lib/version.sh (kube::version::ldflags) stamps into both version packages; without it
    # /version reports v0.0.0-master and no major/minor.
    local ldflags="-s -w" pkg key
    for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
        for key in gitVersion=v1.20.2 gitMajor=1 gitMinor=20 gitTreeState=clean \
                   buildDate="$(date -u +%Y-%m-%dT%H:%M:%SZ)"; do
            ldflags+=" -X $pkg.$key"
        done
    done
    gobuild -ldflags "$ldflags" -o "$CACHE/$name.new" "./cmd/$name"
    mv "$CACHE/$name.new" "$BIN/$name"
}

main() {
    install_packages
    download_source
    unpack_source
    fix_modules_txt
    swap_reflect2
    generate_openapi
    local name
    for name in "${KUBE_BINARIES[@]}"; do build_kube "$name"; done
    ln -sf /usr/bin/etcd "$BIN/etcd"
    all_ready
    say "ready: $("$BIN/kube-apiserver" --version) (apiserver, scheduler, controller-manager), etcd in $BIN"
}

main 2>&1 | tee -a "$LOG" >&2
exit "${PIPESTATUS[0]}"
