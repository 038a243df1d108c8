"""The untrusted strings the GitOps unit files are made from (`render --repo-url`, `--revision`, `--repo-path`,
`--project`): each checked here, as a problem text ("" when fine), before anything is rendered (cli.render_units).

A URL or revision ends up in a YAML file that a GitOps controller reads, and in an Argo CD ApplicationSet
template, which Argo CD evaluates as a Go template: braces, quotes, spaces and control characters are refused
rather than escaped, since no Git host needs them.
"""

from __future__ import annotations

import re

MAX_URL_LENGTH = 2048  # browsers' and Git hosts' practical bound; Argo CD and Flux store it as one string
MAX_REVISION_LENGTH = 255  # a Git ref is one file name on most hosts
MAX_REPO_PATH_LENGTH = 1024
# RFC 3986's unreserved and reserved characters and '%', without the ones Go templates or YAML treat specially.
_URL_TEXT = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]+")
# A user and a host begin with a letter or digit (a host such as `-oProxyCommand=...` is an option to ssh).
_URL_FORMS = (
    re.compile(r"https://(?:[A-Za-z0-9][^/@\s]*@)?[A-Za-z0-9\[][^/@\s]*(?:/.*)?"),  # https://host/org/repo(.git)
    re.compile(r"ssh://(?:[A-Za-z0-9][^/@\s]*@)?[A-Za-z0-9\[][^/@\s]*(?:/.*)?"),  # ssh://git@host:22/org/repo
    re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]*@[A-Za-z0-9][A-Za-z0-9.\-]*:[^/].*"),  # git@host:org/repo (scp-like)
)
_SCP_LIKE = re.compile(r"(?P<user>[A-Za-z0-9][A-Za-z0-9._\-]*)@(?P<host>[A-Za-z0-9][A-Za-z0-9.\-]*):(?P<path>.+)")
_REVISION_TEXT = re.compile(r"[A-Za-z0-9\-._/+@]+")
_PATH_PART = re.compile(r"[A-Za-z0-9\-._+@=,]+")
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def url_problem(url: str) -> str:
    """Why `url` cannot be a repository URL here ("" when it can): https://, ssh:// or scp-like git@host:path."""
    if not url:
        return "is empty"
    if len(url) > MAX_URL_LENGTH:
        return f"is longer than {MAX_URL_LENGTH} characters"
    if not _URL_TEXT.fullmatch(url):
        return "holds a character a repository URL does not need (a space, quote, brace or control character)"
    if not any(form.fullmatch(url) for form in _URL_FORMS):
        return "is not an https://, ssh:// or git@host:path address"
    return ""


def ssh_url(url: str) -> str:
    """`url` with an scp-like `user@host:path` written as `ssh://user@host/path`, the form Flux's GitRepository
    takes (its CRD's pattern is `^(http|https|ssh)://`; fluxcd/source-controller docs/spec/v1/gitrepositories.md,
    "URL"); any other URL unchanged."""
    if url.startswith(("https://", "ssh://")):
        return url
    match = _SCP_LIKE.fullmatch(url)
    if match is None:
        return url
    path = match["path"].removeprefix("/")
    return f"ssh://{match['user']}@{match['host']}/{path}"


def revision_problem(revision: str) -> str:
    """Why `revision` cannot be a Git revision here: a branch, tag, `refs/...` name, commit SHA or HEAD
    (the rules of git-check-ref-format that matter for a file written into YAML)."""
    if not revision:
        return "is empty"
    if len(revision) > MAX_REVISION_LENGTH:
        return f"is longer than {MAX_REVISION_LENGTH} characters"
    if not _REVISION_TEXT.fullmatch(revision):
        return "holds a character a Git ref cannot have here (space, control character, ~ ^ : ? * [ \\ { } or a quote)"
    if ".." in revision or "//" in revision or revision.startswith(("/", "-", ".")) or revision.endswith(("/", ".")):
        return "is not a valid Git ref name (git check-ref-format)"
    if revision.endswith(".lock") or "@{" in revision:
        return "is not a valid Git ref name (git check-ref-format)"
    return ""


def repo_path_problem(path: str) -> str:
    """Why `path` cannot be a directory's path inside a repository: relative, `/`-separated, no `..`."""
    if len(path) > MAX_REPO_PATH_LENGTH:
        return f"is longer than {MAX_REPO_PATH_LENGTH} characters"
    if path in ("", "."):
        return ""
    if path.startswith("/"):
        return "is absolute; give the path from the repository's root"
    parts = [p for p in path.split("/") if p not in ("", ".")]
    for part in parts:
        if part == ".." or not _PATH_PART.fullmatch(part):
            return f"has the part {part[:40]!r}; use plain directory names (letters, digits, - . _ + @ = ,)"
    return ""


def clean_repo_path(path: str) -> str:
    """A checked repository path in one form: parts joined by `/`, no `.` parts, "." for the root."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/".join(parts) or "."


def label_problem(value: str) -> str:
    """Why `value` cannot be an Argo CD project or a namespace (a DNS-1123 label)."""
    if len(value) > 63 or not _DNS_LABEL.fullmatch(value):
        return "is not a DNS-1123 label (lower-case letters, digits and '-', at most 63)"
    return ""


def misuse(repo_url: str | None, given: list[str], shard_size: int | None, target: str) -> str:
    """Why these flags do not go together ("" when they do): --repo-url needs -o DIR --shard-size N and a GitOps
    target, its companions (`given`) need --repo-url, and --project is Argo CD's."""
    if repo_url is None:
        return f"{given[0]} is for the GitOps objects of the shards: give --repo-url URL with it" if given else ""
    if shard_size is None or target not in ("argocd", "flux"):
        return (
            "--repo-url writes an Argo CD ApplicationSet or Flux Kustomizations for the shards: give it with "
            "-o DIR --shard-size N --target argocd|flux"
        )
    if "--project" in given and target != "argocd":
        return "--project is the Argo CD project of the Applications: give --target argocd"
    return ""
