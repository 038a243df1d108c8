"""`mxjob completion bash|zsh|fish`: print click's completion script for the shell, to source or install."""

from __future__ import annotations

import click

from mxjob_gitops.compiler.cli.flags import verbosity_options

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_MXJOB_COMPLETE"


@click.command(short_help="Print the shell completion script (bash, zsh, fish).")
@click.argument("shell", type=click.Choice(SHELLS))
@verbosity_options
def completion(shell: str) -> None:
    """Print the completion script for SHELL on stdout.

    \b
    bash:  echo 'eval "$(mxjob completion bash)"' >> ~/.bashrc
    zsh:   echo 'eval "$(mxjob completion zsh)"' >> ~/.zshrc
    fish:  mxjob completion fish > ~/.config/fish/completions/mxjob.fish
    """
    from click.shell_completion import get_completion_class

    from mxjob_gitops.compiler.cli.group import cli

    completer = get_completion_class(shell)
    assert completer is not None  # every name in SHELLS is one click ships
    click.echo(completer(cli, {}, "mxjob", COMPLETE_VAR).source())
