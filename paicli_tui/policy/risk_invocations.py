"""Risk rules that need to know what really runs (``invocations``): a
program only known at run time, a script this run wrote, git options that
name a program to run, destructive git subcommands, inline code that
deletes or writes files, and options that make a harmless tool destructive."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.policy.command_split import split_options
from paicli_tui.policy.invocations import Invocation

if TYPE_CHECKING:
    from paicli_tui.policy.risk_rules import CommandChecker


@dataclass(frozen=True)
class Written:
    """What the run wrote: the files tools changed (resolved), and the time
    after which a changed file counts as written by the run."""

    files: frozenset[Path] = frozenset()
    since_ns: int | None = None

#: git config keys whose value is a program (or pulls config in): ``git -c core.fsmonitor=CMD status`` runs CMD.
_GIT_PROGRAM_KEY = re.compile(
    r"(?i)^(core\.(fsmonitor|hookspath|pager|sshcommand|editor|askpass|gitproxy)|sequence\.editor|diff\.external"
    r"|diff\..*\.(command|textconv)|merge\..*\.driver|filter\..*\.(clean|smudge|process)|credential\.|alias\."
    r"|protocol\..*\.allow|include\.path|includeif\.|uploadpack\.packobjectshook|gpg\.|pager\.|interactive\."
    r"|remote\..*\.(uploadpack|receivepack|proxy)|http\.proxy)"
)
_GIT_PROGRAM_VARIABLES = frozenset({
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_ASKPASS", "GIT_EXEC_PATH",
    "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_SEQUENCE_EDITOR",
    "GIT_PROXY_COMMAND", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "PYTHONSTARTUP", "PERL5OPT",
    "NODE_OPTIONS", "PROMPT_COMMAND",
})
_INLINE_OPTIONS = {"-c", "-e", "-E", "--eval", "-r"}
_INLINE_WRITES = re.compile(
    r"rmtree|os\.remove|os\.unlink|unlink\s*\(|unlink\s+glob|rmdir|\.write_(text|bytes)|open\s*\([^)]*['\"][wax]"
    r"|shutil\.(move|copy)|truncate|\b(rm|rmSync|unlink|unlinkSync|writeFile|writeFileSync)\s*\("
    r"|fs\.(rm|unlink|write)|File\.(delete|write)|os\.rename|\.rename\(|system\s*\("
    r"|subprocess|os\.exec|spawn|child_process"
)
_DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "truncate"})


def invocation_reason(inv: Invocation, checker: "CommandChecker", written: Written,
                      command: str = "") -> str | None:
    if inv.dynamic:
        return inv.dynamic
    for name, _value in inv.assignments:
        if name in _GIT_PROGRAM_VARIABLES or name.startswith("GIT_CONFIG_KEY_"):
            return f"sets {name}, which names a program to run"
        if name in ("GIT_DIR", "GIT_WORK_TREE") and checker._outside(_value):
            return f"points git at a repository outside the workspace ({name}={_value})"
    if inv.runs_file and _written_this_run(inv.runs_file, checker, written, command):
        return f"runs {inv.runs_file}, a file written by this run: its content is the command"
    if inv.appends_input and inv.program in _DELETERS:
        return f"{inv.program} on paths read from input ({' '.join(inv.via) or 'xargs'})"
    program, args = inv.program, list(inv.args)
    if program == "git":
        return _git_reason(inv, checker)
    if (program in ("python", "python3", "perl", "ruby", "node", "php") or program.startswith("python3.")) \
            and any(a in _INLINE_OPTIONS for a in args[:-1]):
        code = " ".join(args[i + 1] for i, a in enumerate(args[:-1]) if a in _INLINE_OPTIONS)
        if _INLINE_WRITES.search(code):
            return "inline code that deletes, moves or writes files or starts programs"
    if program in ("pytest", "py.test"):
        return _pytest_reason(args, checker)
    if program == "mv":
        operands = split_options(args)[1]
        if len(operands) > 1 and checker._outside(operands[-1]):
            return f"moves workspace files out of the workspace: {operands[-1]}"
    return None


def _written_this_run(path: str, checker: "CommandChecker", written: Written, command: str) -> bool:
    """A file a tool changed this run (the checkpoint recorder's list: no
    mtime trick hides it), or one changed since the run began, which is how
    a file a command wrote is seen (commands are not recorded file by file)."""
    if path == "-" or "$" in path:
        return True
    resolved = checker._resolve(path)
    if resolved is None:
        return True
    if resolved in written.files:
        return True
    since_ns = written.since_ns
    try:
        stat = os.stat(resolved)
    except OSError:
        # Not there yet: written earlier in this same command when it is
        # named there more than once (cat > e.sh …; sh e.sh).
        return command.count(path) > 1
    return since_ns is not None and stat.st_mtime_ns >= since_ns


def _git_reason(inv: Invocation, checker: "CommandChecker") -> str | None:
    for option, value in inv.git_globals:
        if option in ("-c", "--config-env") and _GIT_PROGRAM_KEY.match(value.split("=", 1)[0]):
            return f"git {option} {value.split('=', 1)[0]} names a program or hook to run"
        if option in ("-C", "--git-dir", "--work-tree") and checker._outside(value):
            return f"git {option} {value} works on a repository outside the workspace"
        if option == "--exec-path" and value:
            return "git --exec-path runs git programs from elsewhere"
    args = list(inv.args)
    if not args:
        return None
    sub, rest = args[0], args[1:]
    options, operands = split_options(rest)
    forced = any(o in ("-f", "--force") or (o[1:2] != "-" and "f" in o[1:]) for o in options)
    if sub == "checkout" and (forced or "--" in rest or operands and _paths_exist(operands, checker)):
        return "git checkout over files discards their uncommitted changes"
    if sub == "restore" and "--staged" not in options and "-S" not in options:
        return "git restore discards uncommitted changes"
    if sub == "switch" and (forced or "--discard-changes" in options):
        return "git switch --discard-changes drops uncommitted changes"
    if sub == "stash" and operands[:1] in (["drop"], ["clear"]):
        return f"git stash {operands[0]} deletes stashed work"
    if sub == "branch" and ("-D" in options or ({"-d", "--delete"} & set(options) and forced)):
        return "git branch -D deletes a branch with unmerged work"
    if sub == "worktree" and operands[:1] == ["remove"] and forced:
        return "git worktree remove --force deletes a worktree with its changes"
    if sub == "update-ref" and "-d" in options:
        return "git update-ref -d deletes a ref"
    if sub == "reflog" and operands[:1] in (["expire"], ["delete"]):
        return "git reflog expire drops the history that recovers lost work"
    if sub == "gc" and any(o.startswith("--prune") for o in options):
        return "git gc --prune deletes unreachable work"
    if sub == "filter-branch" or sub == "filter-repo":
        return f"git {sub} rewrites history"
    if sub == "reset" and {"--merge", "--keep"} & set(options):
        return f"git reset {sorted({'--merge', '--keep'} & set(options))[0]} can discard changes"
    return None


def _paths_exist(operands: list[str], checker: "CommandChecker") -> bool:
    """``git checkout src/a.py`` (a path, not a branch) discards edits to it."""
    for word in operands:
        resolved = checker._resolve(word)
        if resolved is not None and resolved.exists() and resolved.is_relative_to(checker.root):
            if word not in (".",) and (resolved.is_file() or resolved.is_dir()):
                return True
    return False


def _pytest_reason(args: list[str], checker: "CommandChecker") -> str | None:
    for i, arg in enumerate(args):
        target = arg.split("=", 1)[1] if arg.startswith("--basetemp=") else (
            args[i + 1] if arg == "--basetemp" and i + 1 < len(args) else None)
        if target is None:
            continue
        resolved = checker._resolve(target)
        if resolved is None or not checker._in_build_dir(resolved) or resolved == checker.root:
            return f"pytest empties its --basetemp directory ({target})"
    return None

