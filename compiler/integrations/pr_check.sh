#!/usr/bin/env bash
# The pull/merge-request check of mxjob-gitops, shared by its GitHub Action (action.yml) and its GitLab CI
# template (ci/gitlab/mxjob.gitlab-ci.yml); `mxjob integrations pr-check` prints it. It validates, renders and
# diffs with ONE set of render options, so the comment shows what will be committed and synced, and writes the
# comment parts into $MXJOB_PARTS (part-N-of-M.md) for the caller to post. It always writes them, also when a
# step fails (then part 1 starts with what failed), and writes the verdict into $MXJOB_PARTS/status:
#   0 everything passed (differences or not); otherwise the first failing step's exit code (validate or render
#   findings 1, diff trouble 2: an invalid side, an update the API server would refuse, a bad ref).
# Settings (environment):
#   MXJOB_BASE      the base revision (required), e.g. origin/main
#   MXJOB_HEAD      the head revision (default: HEAD)
#   MXJOB_PATHS     paths of specs or manifests, separated by spaces (default: none)
#   MXJOB_OVERLAYS  kustomize directories to build (-k), separated by spaces (default: none)
#   MXJOB_OPTIONS   render options for every step, e.g. "--target argocd --gang-scheduler volcano"
#   MXJOB_PARTS     where the comment parts go (default: mxjob-parts)
#   MXJOB_MXJOB     the mxjob command (default: mxjob)
set -uo pipefail

base="${MXJOB_BASE:?set MXJOB_BASE to the base revision}"
head="${MXJOB_HEAD:-HEAD}"
parts="${MXJOB_PARTS:-mxjob-parts}"
read -r -a mxjob <<< "${MXJOB_MXJOB:-mxjob}"
read -r -a options <<< "${MXJOB_OPTIONS:-}"
read -r -a paths <<< "${MXJOB_PATHS:-}"
inputs=("${paths[@]}")
for overlay in ${MXJOB_OVERLAYS:-}; do inputs+=(-k "$overlay"); done
if [ "${#inputs[@]}" -eq 0 ]; then
    echo "mxjob pr-check: set MXJOB_PATHS or MXJOB_OVERLAYS" >&2
    exit 2
fi

rm -rf "$parts"
mkdir -p "$parts"
log="$parts/.log"
verdict=0
failed=()

run() {  # run NAME ARGS...: one step, its output kept, its code remembered when it fails (diff: above 1)
    local name="$1" code=0
    shift
    "${mxjob[@]}" "$@" > "$log.$name" 2> "$log.$name.err" || code=$?
    local limit=0
    if [ "$name" = diff ]; then limit=1; fi
    if [ "$code" -gt "$limit" ]; then
        failed+=("$name ($code)")
        if [ "$verdict" -eq 0 ]; then verdict="$code"; fi
    fi
    cat "$log.$name.err" >&2
}

run validate validate "${options[@]}" "${inputs[@]}"
run render render "${options[@]}" "${inputs[@]}"
run diff diff --base "$base" --head "$head" "${options[@]}" --format markdown --split "$parts" "${inputs[@]}"

if [ "${#failed[@]}" -gt 0 ]; then
    first="$(ls "$parts"/part-1-of-*.md 2>/dev/null | head -n 1)"
    if [ -z "$first" ]; then first="$parts/part-1-of-1.md"; : > "$first"; fi
    {
        printf '**mxjob: this change fails: %s.**\n\n' "$(IFS=,; echo "${failed[*]}" | sed 's/,/, /g')"
        for name in validate render diff; do
            if [ -s "$log.$name.err" ] || { [ "$name" = validate ] && grep -q 'error' "$log.$name"; }; then
                printf '<details><summary>%s</summary>\n\n```\n' "$name"
                { grep -v '^mxjob validate:' "$log.$name" 2>/dev/null | head -n 40; head -n 40 "$log.$name.err"; } \
                    | sed 's/```/` ` `/g'
                printf '```\n</details>\n\n'
            fi
        done
        cat "$first"
    } > "$first.new"
    mv "$first.new" "$first"
fi
rm -f "$log".*
echo "$verdict" > "$parts/status"
exit 0
