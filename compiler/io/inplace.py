"""`mxjob convert --in-place`: rewrite old MXJob specs as kubeflow.org/v1 inside their own files, keeping the
comments, key order and formatting of everything the conversion does not change (ruamel.yaml's round-trip
mode); moved fields (flat run policy, the v1alpha1 replica list) keep their comments where they land."""

from __future__ import annotations

import copy
import io
import itertools
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mxjob_gitops.compiler.base.diagnostics import Diagnostic, JsonPath
from mxjob_gitops.compiler.read.docsplit import DOCUMENT_START, split_documents
from mxjob_gitops.compiler.read.source import SourceDocument
from mxjob_gitops.compiler.spec.convert import Conversion

_MISSING = object()
# Indentation (mapping, sequence, dash offset) and line widths tried to reproduce a file exactly.
_STYLES = [(m, s, o) for m, s, o in itertools.product((2, 4), (2, 4), (0, 2)) if o < s]
_WIDTHS = (80, 100, 120, 4096)


def rewrite_yaml(text: str, edits: list[tuple[int, JsonPath, Conversion]]) -> str:
    """Apply conversions (document index, path of the object in it, conversion) to a YAML stream's text.

    Where the text can be cut into its documents exactly (compiler.docsplit), only the documents with an edit are
    read and written again, the others are kept byte for byte: one MXJob beside 3,000 ConfigMaps costs what the
    MXJob costs (the whole round trip took 15 s). The formatting found for the first edited document is tried
    first for the next ones."""
    pieces = split_documents(text)
    if pieces is None:
        return _rewrite_stream(text, edits, [])
    first = 0 if pieces[0].documents == 0 else 1  # a head that is not blank lines and comments holds a document
    owner: dict[int, int] = {}  # document index -> piece
    for number in range(len(pieces)):
        if number or first:
            owner[len(owner)] = number
    grouped: dict[int, list[tuple[int, JsonPath, Conversion]]] = {}
    for index, prefix, conversion in edits:
        if index not in owner:
            return _rewrite_stream(text, edits, [])
        grouped.setdefault(owner[index], []).append((0, prefix, conversion))
    found: list[tuple[int, int, int, int]] = []
    return "".join(
        _rewrite_stream(piece.text, grouped[number], found) if number in grouped else piece.text
        for number, piece in enumerate(pieces)
    )


def _rewrite_stream(text: str, edits: list[tuple[int, JsonPath, Conversion]], found: list[Any]) -> str:
    """rewrite_yaml of a whole stream; `found` holds the formatting a stream before it was written with."""
    yaml, documents = _faithful_loader(text, found)
    for index, prefix, conversion in edits:
        holder, key = _parent(documents, index, prefix)
        node = holder[key]
        holder[key] = _merge(node, conversion.data, (), conversion, copy.deepcopy(node))
    out = io.StringIO()
    yaml.dump_all(documents, out)
    return out.getvalue()


def rewrite_json(text: str, edits: list[tuple[int, JsonPath, Conversion]]) -> str:
    """A JSON file holds one document: rewritten with two-space indentation, keys in their original order."""
    documents: list[Any] = [json.loads(text)]
    for index, prefix, conversion in edits:
        holder, key = _parent(documents, index, prefix)
        holder[key] = _merge(holder[key], conversion.data, (), conversion, copy.deepcopy(holder[key]))
    return json.dumps(documents[0], indent=2, ensure_ascii=False) + "\n"


def _faithful_loader(text: str, found: list[Any]) -> tuple[Any, list[Any]]:
    """The round-trip settings that reproduce TEXT most exactly (ideally byte for byte), and its documents; the
    settings in `found` (those of an earlier text, then kept there) are tried first."""
    from ruamel.yaml import YAML

    best: tuple[int, Any, list[Any], Any] | None = None
    explicit = DOCUMENT_START.match("\n" + text[:4]) is not None
    for style in [*found, *itertools.product(_STYLES, _WIDTHS)]:
        (mapping, sequence, offset), width = style
        yaml = YAML()
        yaml.preserve_quotes = True
        yaml.width = width
        yaml.explicit_start = explicit
        yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
        documents = list(yaml.load_all(text))
        out = io.StringIO()
        yaml.dump_all(documents, out)
        distance = sum(a != b for a, b in itertools.zip_longest(text.splitlines(), out.getvalue().splitlines()))
        if best is None or distance < best[0]:
            best = (distance, yaml, list(yaml.load_all(text)), style)
        if distance == 0:
            break
    assert best is not None
    found[:] = [best[3]]
    return best[1], best[2]


def _parent(documents: list[Any], index: int, prefix: JsonPath) -> tuple[Any, Any]:
    holder: Any = documents
    key: Any = index
    for part in prefix:
        holder, key = holder[key], part
    return holder, key


def _merge(node: Any, new: Any, path: JsonPath, conversion: Conversion, pristine: Any) -> Any:
    """NEW, built from NODE's objects wherever they still fit, so their comments and style survive."""
    if isinstance(new, dict) and isinstance(node, dict):
        keys = list(node)
        insert_at = next((i for i, k in enumerate(keys) if k not in new), len(keys))
        for key in [k for k in keys if k not in new]:
            del node[key]
        for key, value in new.items():
            child = (*path, key)
            if key in node:
                node[key] = _merge(node[key], value, child, conversion, pristine)
                continue
            fresh = _placed(node, value, child, conversion, pristine)
            if hasattr(node, "insert"):
                node.insert(insert_at, key, fresh)
                insert_at += 1
            else:
                node[key] = fresh
        return node
    if isinstance(new, list) and isinstance(node, list):
        for i, value in enumerate(new):
            if i < len(node):
                node[i] = _merge(node[i], value, (*path, i), conversion, pristine)
            else:
                node.append(_placed(node, value, (*path, i), conversion, pristine))
        del node[len(new) :]
        return node
    if not isinstance(new, dict | list) and isinstance(node, bool) == isinstance(new, bool) and node == new:
        return node  # the same scalar: keep its quoting
    return new


def _placed(parent: Any, value: Any, path: JsonPath, conversion: Conversion, pristine: Any) -> Any:
    """A value new at PATH: built on the original node it was moved from (its comments come along), or on an
    empty container of the parent's kind, so that moved nodes further down are still found."""
    origin = conversion.origin(path)
    moved = _at(pristine, origin) if origin != path else _MISSING
    if moved is not _MISSING:
        return _merge(copy.deepcopy(moved), value, path, conversion, pristine)
    if isinstance(value, dict) and isinstance(parent, dict | list):
        return _merge(_empty(parent, dict), value, path, conversion, pristine)
    if isinstance(value, list) and isinstance(parent, dict | list):
        return _merge(_empty(parent, list), value, path, conversion, pristine)
    return value


def _empty(like: Any, kind: type) -> Any:
    """An empty round-trip container (CommentedMap or CommentedSeq) when the document is round-trip loaded."""
    if type(like).__module__.startswith("ruamel"):
        from ruamel.yaml.comments import CommentedMap, CommentedSeq

        return CommentedMap() if kind is dict else CommentedSeq()
    return {} if kind is dict else []


def _at(root: Any, path: JsonPath) -> Any:
    node = root
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return node


def write_atomically(path: Path, text: str) -> None:
    """Replace PATH's content in one step, keeping its permissions; never through or over a symbolic link."""
    from mxjob_gitops.compiler.io.errors import CommandError

    if path.is_symlink():  # checked when read too; this is the last moment before the rename replaces it
        raise CommandError(f"{path}: a symbolic link, not rewritten (convert the file it points to)")
    mode = path.stat().st_mode
    handle, staged = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(staged, mode & 0o7777)
        os.replace(staged, path)
    except BaseException:
        Path(staged).unlink(missing_ok=True)
        raise


def changed_jobs(plan: Any) -> Iterator[tuple[int, JsonPath, Conversion]]:
    """The MXJobs of one file's plan whose v1 form differs from what the file holds."""
    from mxjob_gitops.compiler.render.job import CompiledJob

    for item, (document, prefix) in zip(plan.items, plan.origins, strict=True):
        if isinstance(item, CompiledJob) and item.conversion.data != _at(document.data, prefix):
            yield document.index, prefix, item.conversion


def convert_in_place(paths: tuple[str, ...], quiet: bool) -> tuple[int, int, list[Diagnostic]]:
    """Check every file first, and build every rewrite; only when all succeed is any file written, so a file
    that cannot be rewritten leaves all of them as they were. (changed, unchanged, diagnostics)

    Bad input is a located error (exit 1), never an internal one: a file that is not UTF-8 or too large (the
    same reader as every command, cli.inputs.input_texts), a symbolic link (rewriting would replace the link
    with a file), a `.json` file that holds YAML (rewritten as YAML), a file the round-trip writer cannot read."""
    from mxjob_gitops.compiler.base.diagnostics import has_errors
    from mxjob_gitops.compiler.compile.documents import compile_documents
    from mxjob_gitops.compiler.io.inputs import InputError, input_texts, unreadable
    from mxjob_gitops.compiler.read.source import parse_text
    from mxjob_gitops.compiler.render.options import RenderOptions

    if "-" in paths:
        raise InputError("--in-place rewrites files; '-' (standard input) cannot be rewritten")
    work = []
    diagnostics: list[Diagnostic] = []
    starts: dict[tuple[str, int], SourceDocument] = {}
    for name, text in input_texts(paths):
        if Path(name).is_symlink():
            diagnostics.append(_refused(name, "a symbolic link: --in-place would replace the link with a file", _LINK))
            continue
        if not isinstance(text, str):
            diagnostics.append(unreadable(text, name))
            continue
        parsed = parse_text(text, name)
        plan = compile_documents(parsed.documents, RenderOptions(), defaults=False)
        diagnostics.extend([*parsed.diagnostics, *plan.diagnostics])
        work.append((Path(name), text, list(changed_jobs(plan))))
        starts.update({(name, d.index): d for d in parsed.documents})
    if not has_errors(diagnostics):
        diagnostics.extend(_too_many_edits(work, starts))
    if has_errors(diagnostics):
        return 0, 0, diagnostics
    rewritten = []
    for path, text, edits in work:
        if edits:
            try:
                rewritten.append((path, _rewrite(path, text, edits)))
            except Exception as exc:
                if not isinstance(exc, _failures()):
                    raise
                diagnostics.append(_refused(str(path), f"cannot be rewritten in place: {_first_line(exc)}", _STDOUT))
    if has_errors(diagnostics):
        return 0, 0, diagnostics
    for path, new_text in rewritten:
        write_atomically(path, new_text)
    return len(rewritten), len(work) - len(rewritten), diagnostics


Edits = list[tuple[int, JsonPath, Conversion]]


def _too_many_edits(
    work: list[tuple[Path, str, Edits]], documents: dict[tuple[str, int], SourceDocument]
) -> list[Diagnostic]:
    """The refusal of a run that would rewrite more MXJobs than its limit (run_limits; each costs a round trip
    through ruamel.yaml, about 25 ms), located at the first job past it; checked before any is rewritten."""
    from mxjob_gitops.compiler.base.diagnostics import Code, Location, Severity
    from mxjob_gitops.compiler.base.limits import run_limits

    most = run_limits().in_place_jobs
    seen = 0
    for path, _text, edits in work:
        seen += len(edits)
        if seen > most:
            index = edits[len(edits) - (seen - most)][0]
            document = documents.get((str(path), index))
            return [
                Diagnostic(
                    Code.LIMIT_EXCEEDED,
                    Severity.ERROR,
                    f"--in-place rewrites at most {most:,} MXJobs per run; document {index + 1} is one more",
                    location=document.locate(()) if document is not None else Location(str(path)),
                    hint="convert the files in several runs, or print the v1 form: `mxjob convert FILE > NEW`",
                )
            ]
    return []


_LINK = "give the file the link points to"
_STDOUT = "convert it to standard output instead: `mxjob convert FILE > NEW` (formatting is not kept)"


def _rewrite(path: Path, text: str, edits: list[tuple[int, JsonPath, Conversion]]) -> str:
    """A `.json` file as JSON when it is JSON (YAML is a superset: one that holds YAML is rewritten as YAML)."""
    if path.suffix == ".json":
        try:
            return rewrite_json(text, edits)
        except ValueError:
            pass
    return rewrite_yaml(text, edits)


def _refused(name: str, message: str, hint: str) -> Diagnostic:
    from mxjob_gitops.compiler.base.diagnostics import Code, Location, Severity

    return Diagnostic(Code.YAML_SYNTAX, Severity.ERROR, message, location=Location(name), hint=hint)


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _failures() -> tuple[type[BaseException], ...]:
    """What the round-trip writer raises on input the safe reader accepted: a finding, not a bug of ours."""
    from ruamel.yaml.error import YAMLError, YAMLStreamError

    return (YAMLError, YAMLStreamError, ValueError, RecursionError)
