"""Hints for other tools' spellings (kubectl's `-o json`, kubeconform's `-summary`): the CLI's group asks `hint`
when a command meets an option it does not have, and adds the answer to click's message. Imported only then.

Pure text: the command is described by its name, its options' spellings and its --format choices (cli.group reads
them from click)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

# kubeconform's single-dash flags (kubeconform -h) and what mxjob validate does instead.
_KUBECONFORM = {
    "-summary": "mxjob validate always ends with a summary line (--format json: its 'summary' object)",
    "-verbose": "did you mean -v/--verbose?",
    "-ignore-missing-schemas": "mxjob validate reports objects without a schema as skipped, never as errors",
    "-schema-location": "did you mean --kubeconform-schema-location? (with --kubeconform)",
}
_FORMAT_WORDS = ("json", "yaml", "text", "junit", "tap", "wide", "name")


class Command(NamedTuple):
    """What a hint needs to know of the command that met the unknown option."""

    name: str
    options: Collection[str]  # every spelling of every option (-v, --verbose, ...)
    formats: tuple[str, ...]  # the --format choices, () without --format


def hint(command: Command, args: Sequence[str], option: str) -> tuple[str, str]:
    """The word the user typed for `option` (click names `-s` for `-summary`) and what they probably meant by
    it ("" for no idea)."""
    token, value = _token(args, option)
    if token in ("-o", "--output", "-output"):
        return token, _output_hint(value, command)
    if token in _KUBECONFORM and command.name == "validate":
        return token, _KUBECONFORM[token]
    if token.startswith("-") and not token.startswith("--"):
        long = "-" + token
        if long in command.options:
            return token, f"did you mean {long}? (mxjob's long options take two dashes)"
    return token, ""


def _token(args: Sequence[str], option: str) -> tuple[str, str | None]:
    """The word of `args` that `option` came from (click names `-s` for `-summary`), and the word after it or
    the part after `=`."""
    for index, word in enumerate(args):
        if word == "--":
            break
        name, equals, inline = word.partition("=")
        if name != option and (option.startswith("--") or not word.startswith(option) or word.startswith("--")):
            continue
        if option == "-o" and not name.startswith("-output") and len(name) > 2:  # -ojson
            return "-o", word[2:].lstrip("=")
        return name, inline if equals else (args[index + 1] if index + 1 < len(args) else None)
    return option, None


def _output_hint(value: str | None, command: Command) -> str:
    """kubectl's -o/--output FORMAT: mxjob prints with --format; render's -o is its output directory."""
    directory = " (-o/--output-dir DIR writes one file per object into DIR)" if command.name == "render" else ""
    formats = command.formats
    if not formats:
        return f"mxjob {command.name} has no output format to choose{directory}"
    wanted = value if value in formats else ("yaml" if value in ("yml",) and "yaml" in formats else None)
    if wanted:
        return f"did you mean --format {wanted}?{directory}"
    if value in _FORMAT_WORDS or value is None:
        return f"mxjob {command.name} prints with --format, one of {', '.join(formats)}{directory}"
    return f"to choose what is printed use --format ({', '.join(formats)}){directory}"
