"""What a command line really runs: every program it starts, seen through
the spellings that hide one.

``env git push``, ``/usr/bin/git push``, ``bash -c 'git push'``,
``x=push; git $x``, ``git -C . push``, ``find . -exec rm {} ;``,
``xargs rm`` and ``echo … | sh`` all run ``git push`` or ``rm``; deny rules,
allow rules and the risk check read commands through this one expander so
that a rule about a program holds however it is spelt. What cannot be known
before the command runs (a program named by a variable, text generated and
piped into a shell, a script file this run wrote) is marked, and counts as
risky and as matching every deny rule.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from paicli_tui.policy.command_split import SimpleCommand, heredocs_as_strings, split_commands

MAX_DEPTH = 4
MAX_SCRIPT_BYTES = 64 * 1024
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
INTERPRETERS = frozenset({"python", "python3", "py", "perl", "ruby", "node", "php", "deno", "bun"})
#: Wrapper → options that take a value; what follows the options is the command.
WRAPPER_OPTIONS = {
    "env": {"-u", "--unset", "-C", "--chdir"}, "command": set(), "builtin": set(), "exec": {"-a"},
    "nice": {"-n", "--adjustment"}, "ionice": {"-c", "-n", "-t", "--class", "--classdata"}, "chrt": set(),
    "taskset": set(), "timeout": {"-s", "--signal", "-k", "--kill-after"}, "nohup": set(), "setsid": set(),
    "stdbuf": {"-i", "-o", "-e"}, "time": {"-f", "--format", "-o", "--output"}, "unbuffer": set(),
    "flock": {"-w", "--timeout", "-E", "--conflict-exit-code"}, "watch": {"-n", "--interval", "-d"},
    "xargs": {"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-E", "-e", "-s", "-a", "--max-args", "--max-procs",
              "--delimiter", "--arg-file", "--replace"},
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}, "doas": {"-u", "-C"},
    "busybox": set(), "strace": {"-o", "-e", "-p", "-s"}, "ltrace": {"-o", "-e"},
}
#: Wrappers whose first operand is not the command (duration, mask, lock file).
FIRST_OPERAND_SKIPPED = {"timeout", "taskset", "chrt", "flock"}
GIT_GLOBALS_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env",
                          "--super-prefix"}
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
SUBSTITUTION = re.compile(r"\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)|`([^`]*)`")


@dataclass(frozen=True)
class Invocation:
    words: tuple[str, ...]
    """The program's name (a basename) and its arguments; git's global options removed."""
    dynamic: str = ""
    """Why the program is only known when it runs ("" when it is known)."""
    via: tuple[str, ...] = ()
    """How it was reached: ("env",), ("bash -c",), ("find -exec",), ("xargs",), ("| sh",)."""
    assignments: tuple[tuple[str, str], ...] = ()
    git_globals: tuple[tuple[str, str], ...] = ()
    appends_input: bool = False
    """xargs: more arguments arrive when it runs."""
    synthetic: bool = False
    """Not spelt as a program: ``find -delete`` deletes like ``rm``."""
    runs_file: str = ""
    """The script file it runs: ``sh FILE``, ``source FILE``, ``python FILE``."""
    redirects: tuple[tuple[str, str], ...] = ()

    @property
    def program(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def args(self) -> tuple[str, ...]:
        return self.words[1:]


class _Expander:
    def __init__(self, workspace: Path | None) -> None:
        self.workspace = workspace
        self.variables: dict[str, str | None] = {}

    def script(self, command: str, via: tuple[str, ...], depth: int) -> Iterator[Invocation]:
        if depth > MAX_DEPTH:
            yield Invocation(("",), "nested too deep to follow", via)
            return
        command = heredocs_as_strings(command)
        for simple in split_commands(command):  # ValueError: unbalanced quotes
            yield from self.simple(simple, via, depth)
        for match in SUBSTITUTION.finditer(command):
            yield from self.script(match.group(1) or match.group(2) or "", (*via, "$(…)"), depth + 1)

    def simple(self, simple: SimpleCommand, via: tuple[str, ...], depth: int) -> Iterator[Invocation]:
        words = [self._substituted(word) for word in simple.words]
        assignments: list[tuple[str, str]] = []
        while words and (match := _ASSIGNMENT.match(words[0])):
            assignments.append((match.group(1), match.group(2)))
            words.pop(0)
        if not words:
            for name, value in assignments:  # x=push: later $x is "push"
                self.variables[name] = None if "$" in value or "`" in value else value
            return
        if os.path.basename(words[0]) in ("export", "declare", "typeset", "local", "readonly"):
            for word in words[1:]:
                if match := _ASSIGNMENT.match(word):
                    self.variables[match.group(1)] = None if "$" in match.group(2) else match.group(2)
        yield from self.words(words, simple, tuple(assignments), via, depth)

    def words(self, words: list[str], simple: SimpleCommand, assignments: tuple[tuple[str, str], ...],
              via: tuple[str, ...], depth: int, appends: bool = False) -> Iterator[Invocation]:
        redirects = tuple(simple.redirects)
        while words:
            first = words[0]
            if "$" in first or "`" in first:
                yield Invocation((first, *words[1:]), f"runs a program only known when it runs ({first})", via,
                                 assignments, redirects=redirects)
                return
            name = os.path.basename(first)
            if name in WRAPPER_OPTIONS:
                if name in ("sudo", "doas"):  # still elevated: the risk rules see it
                    yield Invocation((name, *words[1:]), via=via, assignments=assignments, redirects=redirects)
                if name == "env" and (split := _env_split_string(words)) is not None:
                    yield from self.script(split, (*via, "env -S"), depth + 1)
                    return
                rest, more = _unwrapped(name, words[1:])
                assignments = (*assignments, *more)
                if name == "xargs":
                    appends = True
                    rest = rest or ["echo"]
                if name in ("watch",) or (name == "flock" and rest[:1] == ["-c"]):
                    yield from self.script(" ".join(rest[1:] if rest[:1] == ["-c"] else rest), (*via, name),
                                           depth + 1)
                    return
                words, via = rest, (*via, name)
                continue
            words = [name, *words[1:]]
            break
        if not words:
            return
        name, args = words[0], words[1:]
        inv = Invocation(tuple(words), via=via, assignments=assignments, appends_input=appends, redirects=redirects)
        if name == "git":
            inv = _git(inv)
        if name in SHELLS:
            yield from self._shell(inv, simple, depth)
            return
        if name in ("source", "."):
            yield from self._runs_file(inv, args[0] if args else "", depth)
            return
        if name == "eval":
            yield inv
            yield from self.script(" ".join(args), (*via, "eval"), depth + 1)
            return
        if name == "find":
            yield inv
            yield from self._find(args, simple, via, depth)
            return
        if name in INTERPRETERS or name.startswith("python3."):
            operands = [a for a in args if not a.startswith("-")]
            if "-m" in args[:-1]:
                module = args.index("-m")
                yield from self.words(list(args[module + 1:]), simple, assignments, (*via, f"{name} -m"), depth)
            elif operands and not set(args) & {"-c", "-e", "-E", "--eval", "-r"} and args[0] == operands[0]:
                yield Invocation(inv.words, via=via, assignments=assignments, runs_file=operands[0],
                                 redirects=redirects)
                return
        yield inv

    def _shell(self, inv: Invocation, simple: SimpleCommand, depth: int) -> Iterator[Invocation]:
        args = list(inv.args)
        i = 0
        while i < len(args) and (args[i].startswith(("-", "+")) and args[i] not in ("-", "--")):
            option = args[i]
            if option in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 1
            elif not option.startswith("--") and "c" in option[1:]:
                yield inv
                body = args[i + 1] if i + 1 < len(args) else ""
                yield from self.script(body, (*inv.via, f"{inv.program} -c"), depth + 1)
                return
            i += 1
        operands = args[i:]
        if operands and operands[0] == "--":
            operands = operands[1:]
        if operands and operands[0] != "-" and "-s" not in args[:i]:
            yield from self._runs_file(inv, operands[0], depth)
            return
        yield inv
        from paicli_tui.policy.risk_egress import stdin_text

        text = stdin_text(simple)
        if text is not None:
            yield from self.script(text, (*inv.via, "| sh"), depth + 1)
        elif simple.piped_from is not None or any("<" in op for op, _ in simple.redirects):
            yield Invocation(("",), "pipes generated text into a shell; what runs is only known when it runs",
                             (*inv.via, "| sh"))

    def _runs_file(self, inv: Invocation, path: str, depth: int) -> Iterator[Invocation]:
        yield Invocation(inv.words, via=inv.via, assignments=inv.assignments, runs_file=path or "-",
                         redirects=inv.redirects)
        if self.workspace is None or not path or "$" in path:
            return
        target = self.workspace / path
        try:
            if target.is_file() and target.stat().st_size <= MAX_SCRIPT_BYTES:
                text = target.read_text(errors="replace")
            else:
                return
        except OSError:
            return
        try:
            yield from self.script(text, (*inv.via, f"{inv.program} {path}"), depth + 1)
        except ValueError:
            yield Invocation(("",), f"runs {path}, which cannot be analysed", inv.via)

    def _find(self, args: list[str], simple: SimpleCommand, via: tuple[str, ...], depth: int) -> Iterator[Invocation]:
        i = 0
        while i < len(args):
            if args[i] in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(i + 1, len(args)) if args[j] in (";", "\\;", "+")), len(args))
                segment = [w for w in args[i + 1:end] if w != "{}"]
                if segment:
                    yield from self.words(segment, SimpleCommand(segment), (), (*via, "find -exec"), depth + 1,
                                          appends=True)
                i = end
            elif args[i] == "-delete":
                paths = [a for a in args if not a.startswith("-")][:1] or ["."]
                yield Invocation(("rm", "-r", *paths), via=(*via, "find -delete"), synthetic=True)
            i += 1

    def _substituted(self, word: str) -> str:
        def known(match: re.Match) -> str:
            value = self.variables.get(match.group(1) or match.group(2))
            return value if value is not None else match.group(0)

        return _VARIABLE.sub(known, word) if "$" in word else word


def _unwrapped(name: str, args: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The command a wrapper runs, and the variables it sets (env A=1)."""
    valued = WRAPPER_OPTIONS[name]
    assignments = []
    args = list(args)
    while args:
        word = args[0]
        if word == "--":
            args.pop(0)
            break
        if name == "env" and (match := _ASSIGNMENT.match(word)):
            assignments.append((match.group(1), match.group(2)))
        elif not word.startswith("-") or word == "-":
            break
        elif word in valued and len(args) > 1:
            args.pop(0)
        elif name == "nice" and word[1:].isdigit():
            pass
        args.pop(0)
    if name in FIRST_OPERAND_SKIPPED and args:
        args.pop(0)
    if name == "busybox" and args:
        pass  # busybox NAME …: NAME is the program
    return args, assignments


def _env_split_string(words: list[str]) -> str | None:
    for i, word in enumerate(words[1:], start=1):
        if word in ("-S", "--split-string") and i + 1 < len(words):
            return " ".join(words[i + 1:])
        if word.startswith("-S") and len(word) > 2:
            return " ".join([word[2:], *words[i + 1:]])
        if not word.startswith("-"):
            return None
    return None


def _git(inv: Invocation) -> Invocation:
    args = list(inv.args)
    globals_: list[tuple[str, str]] = []
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if "=" in option and option.split("=", 1)[0] in GIT_GLOBALS_WITH_VALUE:
            globals_.append(tuple(option.split("=", 1)))  # type: ignore[arg-type]
        elif option in GIT_GLOBALS_WITH_VALUE and args:
            globals_.append((option, args.pop(0)))
        elif option.startswith("-c") and len(option) > 2:
            globals_.append(("-c", option[2:]))
        else:
            globals_.append((option, ""))
    dynamic = ""
    if args and ("$" in args[0] or "`" in args[0]):
        dynamic = f"runs a git subcommand only known when it runs ({args[0]})"
    return Invocation(("git", *args), dynamic, inv.via, inv.assignments, tuple(globals_), inv.appends_input,
                      redirects=inv.redirects)


def invocations(command: str, workspace: Path | None = None) -> list[Invocation]:
    """Every program ``command`` runs, in order; ValueError when it cannot be
    parsed (unbalanced quotes)."""
    return list(_Expander(workspace).script(command, (), 0))


def shown(inv: Invocation) -> str:
    return shlex.join(inv.words)
