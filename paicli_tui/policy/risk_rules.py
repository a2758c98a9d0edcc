"""The rules behind ``classify_command``: one simple command at a time,
with the working directory tracked across ``cd`` so relative paths are
judged where they really point."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from paicli_tui.policy.command_split import SimpleCommand, split_options, strip_wrappers
from paicli_tui.policy.risk_egress import egress_reason, stdin_text

ELEVATE = {"sudo", "su", "doas", "pkexec", "run0"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish"}
INTERPRETERS = {"python", "python3", "perl", "ruby", "node"}
DOWNLOADERS = {"curl", "wget", "fetch"}
DISK_TOOLS = {"shred", "wipefs", "fdisk", "sfdisk", "parted", "mkswap"}
POWER = {"shutdown", "reboot", "halt", "poweroff"}
SYSTEM_PACKAGERS = {"apt", "apt-get", "aptitude", "yum", "dnf", "pacman", "zypper", "apk", "brew", "port", "snap",
                    "emerge"}
PACKAGE_VERBS = {"install", "remove", "purge", "upgrade", "dist-upgrade", "reinstall", "uninstall", "add", "del",
                 "-S", "-R", "-Syu", "-Rs"}
#: Directories that can be rebuilt, so deleting them recursively is routine.
BUILD_DIRS = {"build", "dist", "target", "out", "node_modules", "__pycache__", ".pytest_cache", ".mypy_cache",
              ".ruff_cache", ".tox", ".nox", "coverage", "htmlcov", ".cache", ".next", ".parcel-cache", "tmp",
              ".venv", "venv", ".eggs"}
HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}
_GLOB_ALL = {"*", ".*", "*.*"}


class CommandChecker:
    def __init__(self, workspace: Path) -> None:
        self.root = Path(os.path.realpath(workspace))
        self.cwd = self.root
        self.home = Path(os.path.expanduser("~"))
        self.real_home = Path(os.path.realpath(self.home))
        self.scratch = {Path(os.path.realpath(tempfile.gettempdir())), Path("/tmp")}
        self.script = ""
        """The text being classified now (a heredoc's body is only there)."""

    # -- entry points ------------------------------------------------------------

    def check(self, command: SimpleCommand) -> str | None:
        """A reason when the command is risky, else None."""
        for operator, target in command.redirects:
            if ">" in operator and target and not (operator.endswith("&") and (target.isdigit() or target == "-")):
                if self._outside(target, allow_scratch=True):
                    return f"writes outside the workspace: {operator} {target}"
        words = strip_wrappers(command.words)
        if not words:
            return None
        name = os.path.basename(words[0])
        args = words[1:]
        if name in ELEVATE:
            return f"runs with elevated privileges ({name})"
        if name in SHELLS | INTERPRETERS and _reads_program_from_stdin(name, args) and _downloads(command):
            return "pipes a download into an interpreter"
        rule = getattr(self, "_rule_" + name.replace("-", "_").replace(".", "_"), None)
        if rule is not None:
            return rule(args)
        if name.startswith("mkfs"):
            return "formats a filesystem"
        if name in DISK_TOOLS:
            return f"destroys disk data ({name})"
        if name in POWER:
            return f"shuts down or reboots the machine ({name})"
        if name in SYSTEM_PACKAGERS and set(args) & PACKAGE_VERBS:
            return f"changes system packages ({name})"
        return None

    def egress(self, command: SimpleCommand) -> str | None:
        """Why the command may carry data off the machine (network use, a
        read of stored secrets), or None."""
        return egress_reason(command, self)

    def nested_script(self, command: SimpleCommand) -> str | None:
        """The script run by ``sh -c '…'``, ``eval …``, ``echo '…' | sh`` or
        ``sh <<EOF``, to check as well."""
        words = strip_wrappers(command.words)
        if not words:
            return None
        name = os.path.basename(words[0])
        if name == "eval":
            return " ".join(words[1:])
        if name in SHELLS:
            for i, word in enumerate(words[1:-1], start=1):
                if word.startswith("-") and not word.startswith("--") and "c" in word:
                    return words[i + 1]
            if _reads_program_from_stdin(name, words[1:]):
                return stdin_text(command)
        return None

    # -- rules per command (method name: _rule_<command>) ------------------------------

    def _rule_cd(self, args: list[str]) -> None:
        target = next((a for a in args if not a.startswith("-")), "~")
        resolved = self._resolve(target)
        self.cwd = resolved if resolved is not None else self.cwd
        return None

    def _rule_rm(self, args: list[str]) -> str | None:
        options, targets = split_options(args)
        recursive = "--recursive" in options or any(o[1:2] != "-" and ("r" in o or "R" in o) for o in options)
        if recursive and not targets:
            return "recursive delete of paths read from input"
        for target in targets:
            if target.rstrip("/") in ("", "~", "$HOME", "${HOME}", ".", ".."):
                return f"deletes everything in {target}"
            # 'dir/*' empties dir: judge it like deleting dir itself.
            wipes = Path(target).name in _GLOB_ALL
            judged = str(Path(target).parent) if wipes else target
            resolved = self._resolve(judged)
            if resolved is None:
                if recursive or wipes:
                    return f"recursive delete of a path built from a variable: {target}"
                continue
            if self._outside(judged if wipes else target, allow_scratch=not wipes):
                return f"deletes outside the workspace: {target}"
            if resolved == self.root:
                return "deletes everything in the workspace" if wipes else "deletes the whole workspace"
            if (recursive or wipes) and not self._in_build_dir(resolved):
                return f"recursive delete of {target} (not a build or cache directory)"
        return None

    def _rule_find(self, args: list[str]) -> str | None:
        if "-delete" in args:
            return "find -delete removes files"
        for i, arg in enumerate(args[:-1]):
            if arg in ("-exec", "-execdir", "-ok") and os.path.basename(args[i + 1]) in ("rm", "shred", "unlink"):
                return f"find {arg} {args[i + 1]} removes files"
        return None

    def _rule_dd(self, args: list[str]) -> str | None:
        target = next((a[3:] for a in args if a.startswith("of=")), None)
        return f"dd writes raw data to {target}" if target else None

    def _rule_git(self, args: list[str]) -> str | None:
        while args and args[0].startswith("-"):  # global options: -C dir, -c key=value, --no-pager …
            args = args[2:] if args[0] in ("-C", "-c") else args[1:]
        if not args:
            return None
        sub, rest = args[0], args[1:]
        options = [a for a in rest if a.startswith("-")]
        if sub == "push" and (any(o in ("--force", "--force-with-lease", "--mirror", "--delete") or
                                  o.startswith("--force-with-lease=") or
                                  (o[1:2] != "-" and ("f" in o or "d" in o)) for o in options)
                              or any(a.startswith("+") for a in rest)):
            return "git push --force/--delete rewrites remote history"
        if sub == "reset" and "--hard" in options:
            return "git reset --hard discards uncommitted changes"
        if sub == "clean" and not {"-n", "--dry-run"} & set(options) and any(
                o == "--force" or (o[1:2] != "-" and "f" in o) for o in options):
            return "git clean deletes untracked files"
        if sub in ("checkout", "restore") and "." in rest and "--staged" not in options:
            return f"git {sub} . discards uncommitted changes"
        return None

    def _rule_chmod(self, args: list[str]) -> str | None:
        options, operands = split_options(args)
        recursive = "--recursive" in options or any(o[1:2] != "-" and "R" in o for o in options)
        mode = operands[0] if operands else ""
        if recursive and (mode.endswith("777") or re.search(r"[ao]\+\w*w", mode)):
            return f"chmod -R {mode} makes files writable by everyone"
        return self._first_outside(operands[1:], "changes permissions outside the workspace")

    def _rule_chown(self, args: list[str]) -> str | None:
        options, operands = split_options(args)
        if "--recursive" in options or any(o[1:2] != "-" and "R" in o for o in options):
            return "recursive change of file ownership"
        return self._first_outside(operands[1:], "changes ownership outside the workspace")

    _rule_chgrp = _rule_chown

    def _rule_killall(self, args: list[str]) -> str:
        return "kills processes by name"

    _rule_pkill = _rule_killall

    def _rule_kill(self, args: list[str]) -> str | None:
        return "kills every process it may signal (kill -1)" if "-1" in args[1:] or args == ["-1"] else None

    def _rule_init(self, args: list[str]) -> str | None:
        return "changes the run level" if set(args) & {"0", "6"} else None

    _rule_telinit = _rule_init

    def _rule_systemctl(self, args: list[str]) -> str | None:
        return "shuts down or reboots the machine" if set(args) & {"poweroff", "reboot", "halt", "kexec"} else None

    def _rule_npm(self, args: list[str]) -> str | None:
        if set(args) & {"-g", "--global"} and set(args) & {"install", "i", "add", "uninstall", "remove", "rm"}:
            return "installs or removes global packages"
        return None

    _rule_pnpm = _rule_npm

    def _rule_yarn(self, args: list[str]) -> str | None:
        return "installs or removes global packages" if args[:1] == ["global"] else None

    def _rule_pip(self, args: list[str]) -> str | None:
        return "installs into the system Python" if "--break-system-packages" in args else None

    _rule_pip3 = _rule_pip

    def _rule_tee(self, args: list[str]) -> str | None:
        return self._first_outside(split_options(args)[1], "writes outside the workspace", scratch=True)

    def _rule_touch(self, args: list[str]) -> str | None:
        return self._first_outside(split_options(args)[1], "writes outside the workspace", scratch=True)

    _rule_mkdir = _rule_truncate = _rule_touch

    def _rule_cp(self, args: list[str]) -> str | None:
        options, operands = split_options(args)
        destination = next((a.split("=", 1)[1] for a in options if a.startswith("--target-directory=")), None)
        if "-t" in args[:-1]:
            destination = args[args.index("-t") + 1]
        targets = [destination] if destination else operands[-1:] if len(operands) > 1 else []
        return self._first_outside(targets, "writes outside the workspace", scratch=True)

    _rule_install = _rule_rsync = _rule_ln = _rule_cp

    def _rule_mv(self, args: list[str]) -> str | None:
        operands = split_options(args)[1]
        return (self._first_outside(operands[:-1], "moves files from outside the workspace")
                or self._rule_cp(args))

    def _rule_sed(self, args: list[str]) -> str | None:
        if not any(a.startswith("-i") or a.startswith("--in-place") for a in args):
            return None
        options, operands = split_options(args)
        files = operands if any(o in ("-e", "--expression", "-f") for o in options) else operands[1:]
        return self._first_outside(files, "edits files outside the workspace")

    def _rule_curl(self, args: list[str]) -> str | None:
        outputs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-o", "--output")]
        return self._first_outside(outputs, "downloads to a path outside the workspace", scratch=True)

    def _rule_wget(self, args: list[str]) -> str | None:
        outputs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-O", "--output-document", "-P")]
        return self._first_outside(outputs, "downloads to a path outside the workspace", scratch=True)

    # -- paths ---------------------------------------------------------------------

    def _resolve(self, word: str) -> Path | None:
        """Where ``word`` points, or None when it depends on a variable."""
        if word.startswith(("$HOME", "${HOME}")):
            word = str(self.home) + word.split("}", 1)[-1] if word.startswith("${") else str(self.home) + word[5:]
        elif word.startswith("~"):
            word = os.path.expanduser(word)
        if "$" in word or "`" in word:
            return None
        return Path(os.path.realpath(self.cwd / word))

    def _outside(self, word: str, *, allow_scratch: bool = False) -> bool:
        if word in HARMLESS_TARGETS or word.startswith("/dev/fd/"):
            return False
        resolved = self._resolve(word)
        if resolved is None:
            return word.startswith(("$HOME", "${HOME}", "~"))
        if resolved == self.root or resolved.is_relative_to(self.root):
            return False
        # Scratch space counts only when written as an absolute temp path, so
        # '../x' from a workspace under /tmp still counts as outside.
        if allow_scratch and os.path.isabs(word) and any(
                resolved != s and resolved.is_relative_to(s) for s in self.scratch):
            return False
        return True

    def _first_outside(self, words: list[str], reason: str, scratch: bool = False) -> str | None:
        for word in words:
            if self._outside(word, allow_scratch=scratch):
                return f"{reason}: {word}"
        return None

    def _in_build_dir(self, path: Path) -> bool:
        if not path.is_relative_to(self.root):
            return True  # an explicit scratch path, already let through by _outside
        parts = path.relative_to(self.root).parts
        return any(part in BUILD_DIRS or part.endswith(".egg-info") for part in parts)


def _reads_program_from_stdin(name: str, args: list[str]) -> bool:
    positional = [a for a in args if not a.startswith("-") or a == "-"]
    return not positional or positional[0] == "-" or "-s" in args


def _downloads(command: SimpleCommand) -> bool:
    source = command.piped_from
    while source is not None:
        words = strip_wrappers(source.words)
        if words and os.path.basename(words[0]) in DOWNLOADERS:
            return True
        source = source.piped_from
    return False
