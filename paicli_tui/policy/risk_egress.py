"""What may carry data off the machine: the egress part of the risk check.

A command that contacts the network can send anything it can read — a
workspace file, an environment value, a key — to any host, so in ``auto``
mode it is risky (the person is asked; headless without ``--yes`` it is
denied). A URL written in a command gets no more trust than in ``web_fetch``
(P-6.6): the text the model wrote grants nothing. These checks run on every
simple command the classifier finds, however it is nested (``bash -c``,
``$(…)``, pipes, ``&&``, ``xargs``, ``find -exec``), so no spelling of
``curl`` needs its own rule.

Known limit: a program run from a file (``python fetch.py``) is not read;
what it does is only seen when it runs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paicli_tui.policy.command_split import SimpleCommand, strip_wrappers

if TYPE_CHECKING:
    from paicli_tui.policy.risk_rules import CommandChecker

#: Programs whose job is talking to other hosts.
NETWORK_CLIENTS = frozenset({
    "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "httpie", "websocat", "nc", "ncat", "netcat",
    "socat", "telnet", "ssh", "scp", "sftp", "sshpass", "ssh-copy-id", "mosh", "rsh", "rcp", "ftp", "tftp", "lftp",
    "smbclient", "dig", "nslookup", "host", "drill", "ping", "ping6", "traceroute", "mtr", "nmap", "whois", "mail",
    "mailx", "sendmail", "msmtp", "gh", "glab", "hub", "s3cmd", "gsutil", "rclone", "ngrok",
})
#: Subcommands that contact a host (uploads, publishing, remotes).
NETWORK_SUBCOMMANDS = {
    "git": {"push", "fetch", "pull", "clone", "ls-remote", "send-email", "request-pull", "remote update",
            "remote show", "remote prune", "submodule update", "submodule add", "submodule sync"},
    "twine": {"upload", "register"}, "npm": {"publish", "unpublish", "login", "adduser", "deprecate", "dist-tag"},
    "pnpm": {"publish"}, "yarn": {"publish", "npm"}, "cargo": {"publish", "login", "yank", "owner"},
    "gem": {"push", "signin", "yank", "owner"}, "poetry": {"publish"}, "flit": {"publish"}, "hatch": {"publish"},
    "uv": {"publish"}, "docker": {"push", "login"}, "podman": {"push", "login"}, "helm": {"push"},
    "nuget": {"push"}, "dotnet": {"nuget"}, "mvn": {"deploy"}, "anaconda": {"upload"}, "vsce": {"publish"},
    "aws": set(), "gcloud": set(), "az": set(), "kubectl": set(), "openssl": {"s_client"},
}
#: Programs that run code given on their command line.
INLINE_CODE_OPTIONS = {
    "python": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"}, "perl": {"-e", "-E"}, "ruby": {"-e"},
    "node": {"-e", "-p", "--eval", "--print"}, "nodejs": {"-e", "-p", "--eval", "--print"}, "bun": {"-e", "--eval"},
    "deno": {"eval"}, "php": {"-r"}, "lua": {"-e"}, "Rscript": {"-e"}, "pwsh": {"-c", "-Command"},
    "powershell": {"-c", "-Command"}, "osascript": {"-e"},
}
#: Network APIs in inline code, and any URL literal.
NETWORK_CODE = re.compile(
    r"\b(?:urllib\d?|requests|httpx|aiohttp|http\.client|httplib|socket|ftplib|smtplib|telnetlib|poplib|imaplib"
    r"|xmlrpc|websockets?|paramiko|pycurl|LWP|IO::Socket|HTTP::Tiny|Net::\w+|open-uri|net/http|TCPSocket"
    r"|UDPSocket|XMLHttpRequest|WebSocket|axios|fsockopen|curl_init|stream_socket_client|Invoke-WebRequest"
    r"|Invoke-RestMethod|WebClient|do shell script)\b"
    r"|\bfetch\s*\(|require\(\s*['\"](?:node:)?(?:https?|net|dgram|tls)['\"]|\bfrom\s+['\"](?:node:)?(?:https?|net)['\"]"
    r"|[a-z][a-z0-9+.-]*://"
)
#: ``scheme://`` of something that lives on another host.
URL = re.compile(r"(?i)\b(?:https?|ftps?|wss?|ssh|sftp|scp|git|rsync|smb|telnet|ldaps?|s3|gs)://\S+")
#: Commands that only print or match text: a URL among their words is data.
TEXT_ONLY = frozenset({
    "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "tr", "cut", "sort",
    "uniq", "wc", "head", "tail", "jq", "yq", "cat", "less", "more", "test", "[", "[[", "true", "false", ":",
    "export", "printenv", "basename", "dirname", "column", "fold", "fmt", "nl", "paste", "rev", "tac", "base64",
    "sha256sum", "md5sum", "read", "local", "declare", "set", "unset", "alias", "tee", "git",
})
_REMOTE_PATH = re.compile(r"^(?:[\w.-]+@)?[\w.-]+:(?!//)")  # host:path, user@host:path


def egress_reason(command: SimpleCommand, checker: "CommandChecker") -> str | None:
    """Network use or a read of stored secrets by one simple command: either
    can carry data off the machine. The classifier checks this first."""
    words = strip_wrappers(command.words)
    if not words:
        return None
    if words[0].startswith(("$", "`")):
        return f"runs a program whose name is only known when it runs ({words[0]})"
    name = os.path.basename(words[0])
    if name == "find":  # find … -exec curl … ;
        for i, word in enumerate(words[:-1]):
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                reason = egress_reason(SimpleCommand(words[i + 1:]), checker)
                if reason:
                    return reason
    reason = secret_read_reason(words, command.redirects, checker._resolve, checker.real_home)
    if reason:
        return reason
    if _interpreter_family(name) == "python" and "-m" in words[1:-1]:
        # python -m twine upload …, python -m pip install -i URL …
        return egress_reason(SimpleCommand(words[words.index("-m") + 1:], command.redirects), checker)
    program = stdin_text(command) if _interpreter_family(name) in INLINE_CODE_OPTIONS else None
    return network_reason(name, words[1:], command.redirects, program or checker.script)


def stdin_text(command: SimpleCommand) -> str | None:
    """The text ``command`` reads on stdin when it is written out: a here-string
    or heredoc body, or what ``echo``/``printf``/``cat <<EOF`` pipes into it."""
    for operator, target in reversed(command.redirects):
        if operator == "<<<":
            return target
    source = command.piped_from
    words = strip_wrappers(source.words) if source is not None else []
    if words and os.path.basename(words[0]) in ("echo", "printf"):
        return " ".join(w for w in words[1:] if not w.startswith("-"))
    if words == ["cat"] or words == ["cat", "-"]:
        return stdin_text(SimpleCommand(words, source.redirects))
    return None


#: How every network reason begins (a ``network: allow`` rule waives those).
NETWORK_REASON = "contacts the network"


def network_reason(name: str, args: list[str], redirects: list[tuple[str, str]], script: str) -> str | None:
    """Why the simple command ``name args`` contacts the network, or None.
    ``script`` is the program it reads on stdin, when that is known."""
    for _operator, target in redirects:
        if target.startswith(("/dev/tcp/", "/dev/udp/")):
            return f"contacts the network ({target} redirection)"
    if any(word.startswith(("/dev/tcp/", "/dev/udp/")) for word in args):
        return "contacts the network (/dev/tcp)"
    base = _interpreter_family(name)
    if name in NETWORK_CLIENTS:
        return f"contacts the network ({name})"
    subcommands = NETWORK_SUBCOMMANDS.get(name)
    if subcommands is not None:
        sub = _subcommand(name, args)
        if not subcommands or sub in subcommands:
            return f"contacts the network ({name} {sub})".replace(" )", ")")
    if name == "rsync" and any(_REMOTE_PATH.match(a) or a.startswith("rsync://") for a in args):
        return "contacts the network (rsync to a host)"
    if base in INLINE_CODE_OPTIONS:
        code = _inline_code(base, args)
        if code is None and not _runs_a_file(args):
            code = script  # the program arrives on stdin (here-string, heredoc, pipe)
        if code is not None and NETWORK_CODE.search(code):
            return f"contacts the network ({name} code using {NETWORK_CODE.search(code).group(0).strip('(')})"
    if name not in TEXT_ONLY:
        url = next((m.group(0) for a in [name, *args] for m in [URL.search(a)] if m), None)
        if url:
            return f"contacts the network ({name} is given the URL {url})"
    return None


def _runs_a_file(args: list[str]) -> bool:
    return any(not a.startswith("-") for a in args)


def _interpreter_family(name: str) -> str:
    """``python3.12`` → ``python``; other names unchanged."""
    match = re.fullmatch(r"(python|pypy|perl|ruby|node|php|lua)[\d.]*", name)
    return match.group(1) if match else name


def _subcommand(name: str, args: list[str]) -> str:
    if name == "git":  # global options: -C dir, -c key=value, --no-pager …
        while args and args[0].startswith("-"):
            args = args[2:] if args[0] in ("-C", "-c") else args[1:]
    operands = [a for a in args if not a.startswith("-")]
    if name == "git" and operands[:1] in (["remote"], ["submodule"]):
        return " ".join(operands[:2])
    return operands[0] if operands else ""


def _inline_code(base: str, args: list[str]) -> str | None:
    options = INLINE_CODE_OPTIONS[base]
    for i, arg in enumerate(args):
        if arg in options and i + 1 < len(args):
            return args[i + 1]
        # python -Sc 'code', perl -ne 'code'
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 2:
            letters = {f"-{ch}" for ch in arg[1:]}
            if letters & options and i + 1 < len(args):
                return args[i + 1]
            if arg[:2] in options:  # -c'code' glued to the option
                return arg[2:]
    return None


#: Files that hold credentials: reading one hands them to the model.
CREDENTIAL_FILES = (
    ".ssh/id_", ".aws/credentials", ".aws/config", ".netrc", ".git-credentials", ".pypirc", ".npmrc",
    ".docker/config.json", ".config/gh/hosts.yml", ".kube/config", ".gnupg/", ".config/gcloud/",
    ".azure/", ".cargo/credentials", ".gem/credentials", ".config/hub",
)
_PROC_ENVIRON = re.compile(r"^/proc/(?:\d+|\*|\$\w+|\$\{\w+\})/environ$")


def secret_read_reason(words: list[str], redirects: list[tuple[str, str]], resolve: Callable[[str], Path | None],
                       home: Path) -> str | None:
    """Why the command reads a credential store or another process's
    environment (paicli's own holds the API key), or None. ``resolve`` maps
    a word to the path it names (None when it depends on a variable)."""
    for word in [*words, *(target for op, target in redirects if "<" in op)]:
        if _PROC_ENVIRON.match(word):
            return f"reads another process's environment, which holds secrets ({word})"
        if word.startswith("-") or "/" not in word and not word.startswith("."):
            continue
        path = resolve(word)
        if path is None or not path.is_relative_to(home):
            continue
        relative = path.relative_to(home).as_posix()
        if any(relative.startswith(f) for f in CREDENTIAL_FILES) and not relative.endswith(".pub"):
            return f"reads a credentials file ({word})"
    return None
