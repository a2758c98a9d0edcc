"""Splitting a shell command line into simple commands: separators
(``;``, ``&&``, ``||``, ``|``, ``&``, newlines, subshells), redirects,
here-documents, and the wrappers (``env``, ``nohup``, ``xargs`` …) that run
the command after them. The risk rules, the egress check and the grants
all read commands through this one reader."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

_SEPARATOR_CHARS = set(";&|()\n")

#: Wrappers that run the command after them; value: options taking a value.
WRAPPERS = {"env": {"-u", "--unset", "-C", "--chdir"}, "nohup": set(), "time": set(), "command": set(),
            "builtin": set(), "exec": set(), "nice": {"-n"}, "ionice": {"-c", "-n"}, "stdbuf": set(),
            "timeout": {"-s", "--signal", "-k", "--kill-after"}, "watch": {"-n", "--interval"},
            "xargs": {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"}}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass
class SimpleCommand:
    words: list[str]
    redirects: list[tuple[str, str]] = field(default_factory=list)
    """(operator, target) pairs, e.g. ('>', 'out.txt')."""
    piped_from: "SimpleCommand | None" = None
    """The command whose output feeds this one through ``|``."""


_HEREDOC = re.compile(r"(?<!<)<<(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")


def heredocs_as_strings(command: str) -> str:
    """``cmd <<EOF⏎body⏎EOF`` → ``cmd <<< 'body'``: the body becomes the
    redirect's one-word target, so it is judged as the input of ``cmd`` (a
    program for an interpreter or shell, data for ``cat``), not as commands."""
    pos = 0
    while (match := _HEREDOC.search(command, pos)) is not None:
        line_end = command.find("\n", match.end())
        if line_end == -1:
            break
        lines = command[line_end + 1:].split("\n")
        for n, line in enumerate(lines):
            if (line.lstrip("\t") if match.group(1) else line) == match.group(3):
                body, after = lines[:n], lines[n + 1:]
                break
        else:  # no closing delimiter: the body runs to the end
            body, after = lines, []
        replacement = "<<< " + shlex.quote("\n".join(body))
        command = (command[:match.start()] + replacement + command[match.end():line_end]
                   + ("\n" + "\n".join(after) if after else ""))
        pos = match.start() + len(replacement)  # a second heredoc on the same line comes next
    return command


def tokenize(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"
    lexer.commenters = ""  # a '#' comment is treated as code: conservative
    lexer.whitespace_split = True
    return list(lexer)


def _is_redirect(token: str) -> bool:
    return ("<" in token or ">" in token) and not (set(token) & set("();\n"))


def _is_separator(token: str) -> bool:
    return bool(token) and set(token) <= _SEPARATOR_CHARS | {"<", ">"} and not _is_redirect(token)


def split_commands(command: str) -> list[SimpleCommand]:
    """Simple commands in order; ValueError on unbalanced quotes."""
    tokens = tokenize(command)
    commands: list[SimpleCommand] = []
    current = SimpleCommand([])
    previous_in_pipe: SimpleCommand | None = None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if _is_redirect(token):
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if target and not _is_separator(target) and not _is_redirect(target):
                i += 1
            else:
                target = ""
            current.redirects.append((token, target))
        elif _is_separator(token):
            if current.words or current.redirects:
                current.piped_from = previous_in_pipe
                commands.append(current)
            previous_in_pipe = current if token in ("|", "|&") and current.words else None
            current = SimpleCommand([])
        else:
            current.words.append(token)
        i += 1
    if current.words or current.redirects:
        current.piped_from = previous_in_pipe
        commands.append(current)
    return commands


def strip_wrappers(words: list[str]) -> list[str]:
    """Drop leading VAR=value assignments and wrappers like env/nohup/timeout."""
    words = list(words)
    while words:
        if _ASSIGNMENT.match(words[0]):
            words.pop(0)
            continue
        name = os.path.basename(words[0])
        if name not in WRAPPERS:
            break
        valued = WRAPPERS[name]
        words.pop(0)
        while words and (words[0].startswith("-") or (name == "env" and _ASSIGNMENT.match(words[0]))):
            option = words.pop(0)
            if option in valued and words:
                words.pop(0)
        if name == "timeout" and words:
            words.pop(0)  # the duration
    return words


def split_options(args: list[str]) -> tuple[list[str], list[str]]:
    options, operands = [], []
    after_dashes = False
    for arg in args:
        if arg == "--" and not after_dashes:
            after_dashes = True
        elif arg.startswith("-") and len(arg) > 1 and not after_dashes:
            options.append(arg)
        else:
            operands.append(arg)
    return options, operands


def single_command_words(command: str) -> list[str] | None:
    """The words of a plain single command, or None for anything compound:
    several commands, pipes, redirections or substitutions could do more
    than a prefix grant was meant to cover."""
    if any(marker in command for marker in ("$(", "`", "<(", ">(")):
        return None
    try:
        parts = split_commands(command)
    except ValueError:
        return None
    if len(parts) != 1 or parts[0].redirects:
        return None
    return parts[0].words or None
