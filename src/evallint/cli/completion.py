"""`evallint completion SHELL`: a completion script written from the parser itself, so every
command and option the CLI has is offered, and none it lacks."""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "fish")


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return sorted(s for a in parser._actions for s in a.option_strings if s.startswith("--"))


def render(shell: str, parser: argparse.ArgumentParser) -> str:
    commands = _commands(parser)
    if shell == "fish":
        return _fish(parser, commands)
    cases = "\n".join(
        f'    {name}) opts="{" ".join(_options(cmd))}" ;;' for name, cmd in commands.items()
    )
    bash = f"""_evallint() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{" ".join(commands)} --help --version" -- "$cur"))
    return
  fi
  case "${{COMP_WORDS[1]}}" in
{cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o default -F _evallint evallint
"""
    if shell == "zsh":
        return "autoload -U +X bashcompinit && bashcompinit\n" + bash
    return bash


def _fish(parser: argparse.ArgumentParser, commands: dict[str, argparse.ArgumentParser]) -> str:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    lines = ["complete -c evallint -f"]
    for name in commands:
        text = (helps.get(name) or "").replace("'", "")
        lines.append(f"complete -c evallint -n __fish_use_subcommand -a {name} -d '{text}'")
    for name, cmd in commands.items():
        for option in _options(cmd):
            lines.append(
                f"complete -c evallint -n '__fish_seen_subcommand_from {name}' -l {option[2:]}"
            )
    return "\n".join(lines) + "\n"
