"""Read the CLI's inputs: files, directories (recursive *.yaml/*.yml/*.json) and '-' for stdin."""

from __future__ import annotations

import bisect
import enum
import functools
import itertools
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from mxjob_gitops.compiler.base.diagnostics import Code, Diagnostic, Location, Severity
from mxjob_gitops.compiler.base.limits import (
    MAX_INPUT_BYTES,
    RunBudget,
    run_limits,
)
from mxjob_gitops.compiler.base.run import Notes, Run, current_run
from mxjob_gitops.compiler.io.errors import CommandError
from mxjob_gitops.compiler.io.utf8 import NotUtf8, not_utf8
from mxjob_gitops.compiler.io.walk import TooDeep, walk
from mxjob_gitops.compiler.read.docsplit import Piece, split_along, split_documents
from mxjob_gitops.compiler.read.source import ParseResult, SourceDocument, SourceText, documents_over_budget, parse_text

SUFFIXES = (".yaml", ".yml", ".json")
# kustomize's own files describe how to build, they are not objects to render.
KUSTOMIZE_FILES = frozenset({"kustomization.yaml", "kustomization.yml", "Kustomization"})
STDIN_NAME = "<stdin>"

Parser = Callable[[str, str], ParseResult]  # (text, file name) -> documents and diagnostics


class InputError(CommandError):
    """The input cannot be read at all (missing path, unreadable, nothing found): exit code 2."""


@dataclass(slots=True)
class Inputs:
    documents: list[SourceDocument] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # The directories (labelled as the files are) that hold an earlier `render -o`'s index (io.units).
    renderings: set[str] = field(default_factory=set)


def is_manifest_path(parts: Sequence[str]) -> bool:
    """Whether a file (given by its path parts below a walked directory) is read as input."""
    if not parts or any(part.startswith(".") for part in parts):
        return False
    name = parts[-1]
    return name.endswith(SUFFIXES) and name not in KUSTOMIZE_FILES


def discover(
    paths: Sequence[str],
    skip: Sequence[Path] = (),
    allow_empty: bool = False,
    root: Path | None = None,
    run: Run | None = None,
) -> list[str]:
    """Expand directories into their manifest files in a stable order; '-' and -k DIR (cli.kustomize) stay as
    they are. `root`: the tree a named path's link may lead into (default the working directory). A directory
    holding an earlier `render -o`'s output is read like the others; io.units says how it counts. `run`: where the
    notes go (None: the installed run)."""
    from mxjob_gitops.compiler.io.kustomize import Kustomization, refuse_raw

    notes = (run if run is not None else current_run()).notes

    found: list[str] = []
    skipped = [p.resolve() for p in skip]
    recognised = False
    for raw in paths:
        if raw == "-":
            found.append(raw)
            continue
        path = Path(raw)
        _within(path, root or Path.cwd(), raw)
        if isinstance(raw, Kustomization):
            found.append(raw)
        elif path.is_dir():
            refuse_raw(path, raw)
            found.extend(_walk(path, skipped, notes))
        elif path.is_file() and _is_shard_record(path):
            recognised = True  # render -o --shard-size's record, named (pre-commit): skipped, as the walk skips it
        elif path.is_file() and path.name in KUSTOMIZE_FILES:
            # pre-commit names every YAML file: recognised, not read
            _note_kustomization(notes, path.parent, named=True)
            recognised = True
        elif path.is_file():
            found.append(raw)
        elif path.exists():
            raise InputError(f"{raw}: not a regular file or directory")
        else:
            raise InputError(f"{raw}: no such file or directory")
    if not found and not allow_empty and not recognised:
        raise InputError(f"no {', '.join(SUFFIXES)} files found in {', '.join(paths)}")
    return found


def _walk(root: Path, skipped: list[Path], notes: Notes) -> list[str]:
    """The manifest files below `root`, sorted by path. cli.walk does not enter a linked directory, and hidden
    directories are not entered (nothing below one is read): every directory between `root` and a file is a real
    one, so only a file that is itself a link needs the check of _within."""
    from mxjob_gitops.compiler.compile.shards import RECORD
    from mxjob_gitops.compiler.io.rendernames import INDEX

    files: list[str] = []
    found: list[tuple[str, Path, bool]] = []
    try:
        for folder, entries in walk(root):
            for entry in entries:
                path = folder / entry.name
                if entry.name == RECORD and (folder / INDEX).is_file():
                    continue  # render -o --shard-size's record of its shards, not an object (docs/shards.md)
                # Not a regular file: a FIFO, a socket, a dangling link or one to a directory.
                if is_manifest_path((entry.name,)) and os.path.isfile(path):
                    found.append((path.as_posix(), path, os.path.islink(path)))
                elif entry.name in KUSTOMIZE_FILES and not any(folder.resolve().is_relative_to(s) for s in skipped):
                    _note_kustomization(notes, folder)
    except TooDeep as exc:
        from mxjob_gitops.compiler.base.escape import terminal

        raise InputError(
            f"{terminal(exc.path.as_posix())}: directories nest deeper than {run_limits().directory_depth} levels "
            f"below {terminal(root.as_posix())}; nothing was read (docs/limits.md)"
        ) from None
    for label, path, linked in sorted(found, key=lambda entry: entry[0]):
        if linked:
            _within(path, root, label)
        if skipped and any(path.resolve().is_relative_to(s) for s in skipped):
            continue
        files.append(label)
    return files


def _within(path: Path, root: Path, label: str) -> None:
    """Refuse a symbolic link on `path` that leads outside `root` (the directory walked, or the working directory
    for a path named on the command line): a pull request can commit `jobs/x.yaml -> /etc/...`, and whatever it
    points at would land in the output, the diff and the PR comment. kustomize loads files only below the
    kustomization's root by default for the same reason (LoadRestrictionsRootOnly, kustomize
    api/internal/loader/loadrestrictions.go); docs/security.md, "Files and directories read"."""
    lexical, base = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    if not lexical.is_relative_to(base):
        return  # a path named outside the working directory: the user chose it, no checkout put it there
    if not any(p.is_symlink() for p in (lexical, *lexical.parents) if p.is_relative_to(base) and p != base):
        return
    target = lexical.resolve()
    if not target.is_relative_to(base.resolve()):
        from mxjob_gitops.compiler.base.escape import terminal

        raise InputError(
            f"{terminal(label)}: a symbolic link that leads outside {terminal(root.as_posix())} "
            f"(to {terminal(target.as_posix())}); links are followed only within the directory read. "
            "Copy the file in, or run from a directory that holds it"
        )


def _note_kustomization(notes: Notes, directory: Path, named: bool = False) -> None:
    """Say that a kustomization file is not read as an object (it describes a build): -k DIR builds it. Met in a
    walked tree, one that only lists its directory's files (which are read) goes without a note."""
    from mxjob_gitops.compiler.base.escape import terminal
    from mxjob_gitops.compiler.io.kustomize import builds_more

    if not notes.wanted():
        return
    shown = terminal(directory.as_posix())
    if not builds_more(directory):
        if named:
            notes.say(f"mxjob: note: {shown}: a kustomization listing its directory's files, skipped")
        return
    notes.say(
        f"mxjob: note: {shown}: a kustomization, skipped (it describes a build, not objects); "
        f"give `-k {shown}` to read what it builds"
    )


class SharedParses:
    """A parser that parses each distinct document text once: `mxjob diff` reads most documents with the same
    text on both sides (a pull request touches few jobs). A file is cut into its documents' texts where that is
    exact (compiler.docsplit; along the pieces of the files cut before, so that what it repeats of them is
    compared rather than searched), the documents not seen before are parsed in one go, and each document is shared,
    renamed to the file, index and position it was read at; sharing is safe because compiling never writes into
    its input (compiler.convert.writable_v1 copies the parts it changes). A file with parse diagnostics is
    parsed whole every time, exactly as parse_text reports it, so each side reports its own. The texts of the
    first input read, all new, may be parsed ahead in compiler.fanout's workers (`read_ahead`). `run`: whose
    budget, workers and fast paths (None: the installed run)."""

    def __init__(self, run: Run | None = None) -> None:
        self.run = run if run is not None else current_run()
        self._known: dict[str, tuple[Any, int] | None] = {}  # piece text -> (data, start in it) or no document
        self._earlier: list[Piece] = []  # the pieces of every text cut so far, in order
        self._where: dict[str, int] = {}  # a piece's text -> its index in _earlier
        self._ready: dict[str, tuple[str, ParseResult]] = {}  # label -> (its text, parse_text's result), ahead

    @property
    def reads_ahead(self) -> bool:
        """Whether the next input's texts are to be parsed ahead (`read_ahead`): no text was cut yet, so all are
        new, and compiler.fanout has more than one worker."""
        return not self._earlier and self.run.workers > 1

    def read_ahead(self, texts: Sequence[tuple[str, str]]) -> None:
        """Parse these texts (label, text) before their turn, over compiler.fanout's workers (cli.readahead);
        `forget_ahead` drops what was not taken (a text whose documents were known already)."""
        from mxjob_gitops.compiler.read.readahead import parsed_ahead

        self._ready = parsed_ahead(texts, self.run)

    def forget_ahead(self) -> None:
        self._ready = {}

    def _whole(self, text: str, file: str, **given: Any) -> ParseResult:
        """parse_text(text, file, ...): its result as parsed ahead, when it was."""
        ready = self._ready.pop(file, None)
        if ready is not None and ready[0] is text:  # parsed in another process: charged to this run here
            over = documents_over_budget(SourceText(file, text), self.run)
            return ready[1] if over is None else ParseResult([], [over])
        return parse_text(text, file, run=self.run, **given)

    def __call__(self, text: str, file: str) -> ParseResult:
        if not self._earlier:  # nothing known: read it whole, and let the fast reader cut it (in its processes)
            cut: list[Piece] = []
            parsed = self._whole(text, file, cut=cut)
            if any(d.code is Code.LIMIT_EXCEEDED for d in parsed.diagnostics):
                return parsed  # over a limit: not to be cut (16 MB of `---` lines are 4 million pieces)
            pieces = cut or split_documents(text)
            if pieces is not None:
                self._keep(pieces)
                self._remember(pieces, text, file, parsed)
            return parsed
        pieces = split_along(text, self._earlier, self._where)
        if pieces is None:
            return self._whole(text, file)
        self._keep(pieces)
        unknown = [p for p in pieces if p.text not in self._known]
        over = _reused_over_budget(text, file, [p for p in pieces if p.text in self._known], self.run)
        if over is not None:
            return ParseResult([], [over])
        failed = self._learn(unknown, text, file, pieces if len(unknown) == len(pieces) else None)
        if failed is not None:
            return failed
        source = SourceText(file, text)
        documents: list[SourceDocument] = []
        index = 0
        for piece in pieces:
            known = self._known[piece.text]
            if known is not None:
                documents.append(SourceDocument(known[0], file, index, source, piece.offset + known[1]))
            index += 1 if known is not None or piece.documents else 0
        return ParseResult(documents, [])

    def _keep(self, pieces: list[Piece]) -> None:
        """Remember the pieces of a text cut, for the next texts to be cut along (docsplit.split_along)."""
        for piece in pieces:
            self._where.setdefault(piece.text, len(self._earlier))
            self._earlier.append(piece)

    def _learn(self, pieces: list[Piece], text: str, file: str, whole: list[Piece] | None) -> ParseResult | None:
        """Parse the new pieces together (one stream: they are independent) and remember their documents; when
        that has diagnostics, or an uncertain first piece turns out to hold no mapping (a null document or
        none?), nothing is remembered and the whole text's own parse is returned. `whole`: the text's pieces
        when they are all new: the text's own parse is then returned whatever happens."""
        if not pieces:
            return None
        if whole:
            parsed = self._whole(text, file, pieces=whole)
            self._remember(pieces, text, file, parsed)
            return parsed
        parsed = parse_text("".join(p.text for p in pieces), file, run=self.run)
        return None if self._remember(pieces, text, file, parsed) else self._whole(text, file)

    def _remember(self, pieces: list[Piece], text: str, file: str, parsed: ParseResult) -> bool:
        """Remember the documents `parsed` (of the pieces as one stream) found in each piece; False, remembering
        nothing, when it has diagnostics or a piece's documents cannot be told (cannot happen: compiler.docsplit)."""
        if parsed.diagnostics:
            return False
        ends = list(itertools.accumulate(len(p.text) for p in pieces))
        found: dict[int, tuple[Any, int]] = {}
        for document in parsed.documents:
            at = bisect.bisect_right(ends, document.start or 0)
            if at in found or pieces[at].documents == 0:
                return False
            found[at] = (document.data, (document.start or 0) - (ends[at - 1] if at else 0))
        if any(pieces[at].documents is None for at in range(len(pieces)) if at not in found):
            return False
        for at, piece in enumerate(pieces):
            self._known[piece.text] = found.get(at)
        return True


def _reused_over_budget(text: str, file: str, reused: list[Piece], run: Run) -> Diagnostic | None:
    """Charge the run's document budget with the documents a text shares with texts read before (they are not
    parsed again, so parse_text does not count them); the refusal where the run goes over, else None."""
    budget = run.budget
    most = run_limits().documents
    left = most - budget.documents
    if len(reused) <= left:
        budget.documents += len(reused)
        return None
    budget.documents = most + 1
    return Diagnostic(
        Code.LIMIT_EXCEEDED,
        Severity.ERROR,
        f"more than {most:,} documents in this run",
        location=SourceText(file, text).position(file, reused[max(left, 0)].offset),
        hint="nothing from this file was used; split the input into several runs (docs/limits.md)",
    )


def reading_ahead(parse: Parser) -> SharedParses | None:
    """`parse` when it is a SharedParses that parses the next input's texts ahead (`reads_ahead`), else None: the
    caller then hands it the texts first (`read_ahead`) and drops what was not taken after (`forget_ahead`)."""
    return parse if isinstance(parse, SharedParses) and parse.reads_ahead else None


def read_inputs(
    paths: Sequence[str],
    skip: Sequence[Path] = (),
    allow_empty: bool = False,
    parse: Parser | None = None,
    root: Path | None = None,
    run: Run | None = None,
) -> Inputs:
    """Every input read and parsed (by `parse`, parse_text under `run` when None); `run`: whose budget and notes
    (None: the installed run)."""
    parse = parse if parse is not None else functools.partial(parse_text, run=run)
    inputs = parsed_inputs(input_texts(paths, skip, allow_empty, root, run), parse)
    inputs.renderings = renderings_of(inputs.files)
    return inputs


def renderings_of(labels: Iterable[str]) -> set[str]:
    """The `render -o` directories (holding its index file) that these work-tree files lie in, directly or in one of
    their shard directories (`render -o DIR --shard-size`, docs/shards.md); io.units counts them."""
    parents = {Path(label).parent for label in labels if not label.startswith("<")}
    return {home for home in (rendering_dir(parent, _indexed) for parent in parents) if home}


def rendering_dir(parent: Path, indexed: Callable[[Path], bool]) -> str:
    """The `render -o` directory a file's folder belongs to: the folder itself when INDEXED, or the directory above
    a shard directory (`render -o DIR --shard-size`, docs/shards.md); "" for none."""
    from mxjob_gitops.compiler.compile.shards import shard_number

    if indexed(parent):
        return parent.as_posix()
    if shard_number(parent.name) is not None and indexed(parent.parent):
        return parent.parent.as_posix()
    return ""


def _is_shard_record(path: Path) -> bool:
    from mxjob_gitops.compiler.compile.shards import RECORD

    return path.name == RECORD and _indexed(path.parent)


def _indexed(directory: Path) -> bool:
    from mxjob_gitops.compiler.io.rendernames import INDEX

    return (directory / INDEX).is_file()


def parsed_inputs(texts: Iterable[tuple[str, str | Unread]], parse: Parser, inputs: Inputs | None = None) -> Inputs:
    """Named texts (a work tree's, standard input's, a revision's checkout's) parsed into `inputs` (new if None):
    the one loop every channel's texts go through."""
    inputs = Inputs() if inputs is None else inputs
    ahead = reading_ahead(parse)
    if ahead is not None:  # all read first, then parsed ahead (cli.readahead)
        texts = list(texts)
        ahead.read_ahead([(label, text) for label, text in texts if isinstance(text, str)])
    for label, text in texts:
        if not isinstance(text, str):
            inputs.diagnostics.append(unreadable(text, label))
            continue
        parsed = parse(text, label)
        inputs.files.append(label)
        inputs.documents.extend(parsed.documents)
        inputs.diagnostics.extend(parsed.diagnostics)
    if ahead is not None:
        ahead.forget_ahead()
    return inputs


def input_texts(
    paths: Sequence[str],
    skip: Sequence[Path] = (),
    allow_empty: bool = False,
    root: Path | None = None,
    run: Run | None = None,
) -> Iterator[tuple[str, str | Unread]]:
    """Each input's name and text (or why it cannot be read), one at a time; charged to the budget of `run` (None:
    the installed run)."""
    from mxjob_gitops.compiler.io import kustomize

    stdin_used = False
    run = run if run is not None else current_run()
    budget = run.budget
    for name in discover(paths, skip, allow_empty, root, run):
        if name == "-":
            if stdin_used:
                raise InputError("'-' (standard input) can be given only once")
            stdin_used = True
            label, text = STDIN_NAME, _read_stdin()
            if isinstance(text, str):  # a kustomize build piped in, with origin annotations: cli.origins
                from mxjob_gitops.compiler.io import origins

                origins.remember_piped(label, text, root or Path.cwd())
        elif isinstance(name, kustomize.Kustomization):
            from mxjob_gitops.compiler.io import origins
            from mxjob_gitops.compiler.io.shown import shown

            label, text = kustomize.label(name), kustomize.build(Path(name), name)
            origins.remember(label, text, Path(name), root or Path.cwd(), shown)
        else:
            label, text = name, _read_file(name)
        charge(budget, label, len(text) if isinstance(text, str) else 0)
        yield label, text


def charge(budget: RunBudget, label: str, size: int) -> None:
    """Count one input against the run's budget (cli.limits' RunBudget); over it, the run stops with exit 2."""
    over = budget.charge_file(size)
    if over is not None:
        from mxjob_gitops.compiler.base.escape import terminal

        raise InputError(f"{terminal(label)}: {over}; split the work into several runs (docs/limits.md)")


class Unreadable(enum.Enum):
    TOO_LARGE = "too large"


Unread = Unreadable | NotUtf8  # why an input's bytes give no text


def unreadable(why: Unread, label: str) -> Diagnostic:
    if isinstance(why, NotUtf8):
        return why.diagnostic(label)
    if why is Unreadable.TOO_LARGE:
        return Diagnostic(
            Code.LIMIT_EXCEEDED,
            Severity.ERROR,
            f"the input is larger than {MAX_INPUT_BYTES:,} bytes",
            location=Location(label),
            hint="split it into several files",
        )
    raise AssertionError(why)


def decode_limited(stream: BinaryIO) -> str | Unread:
    """Read at most MAX_INPUT_BYTES (one more tells that there is more) and decode them as UTF-8."""
    raw = stream.read(MAX_INPUT_BYTES + 1)
    if len(raw) > MAX_INPUT_BYTES:
        return Unreadable.TOO_LARGE
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return not_utf8(raw, exc)


def _read_file(name: str) -> str | Unread:
    try:
        # O_NONBLOCK: a FIFO or device named as input answers at once instead of hanging the run.
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise InputError(f"{name}: not a regular file")
            return decode_limited(handle)
    except OSError as exc:
        raise InputError(f"{name}: {exc.strerror or exc}") from exc


def _read_stdin() -> str | Unread:
    return decode_limited(sys.stdin.buffer)


def kubernetes_files_only(inputs: Inputs, run: Run | None = None) -> Inputs:
    """Keep files with a document that has apiVersion and kind (or with an error: a broken manifest is still
    reported; a warning alone, such as a YAML 1.1 boolean key in a CI workflow, does not make a file a manifest);
    note every file left out (to the notes of `run`, None for the installed run)."""
    notes = (run if run is not None else current_run()).notes
    kept = {
        d.file
        for d in inputs.documents
        if isinstance(d.data, dict)
        and isinstance(d.data.get("apiVersion"), str)
        and isinstance(d.data.get("kind"), str)
    }
    kept.update(d.location.file for d in inputs.diagnostics if d.location is not None and d.severity == "error")
    for name in inputs.files:
        if name not in kept and notes.wanted():
            notes.say(f"mxjob: note: {name}: skipped, no Kubernetes object in it (no apiVersion and kind)")
    return Inputs(
        [d for d in inputs.documents if d.file in kept],
        [d for d in inputs.diagnostics if d.location is None or d.location.file in kept],
        [name for name in inputs.files if name in kept],
        inputs.renderings,
    )
