"""What the arguments after a command grant's prefix may look like.

A grant for ``python -m pytest`` is meant for running tests, not for
``python -m pytest --basetemp=src`` (pytest empties that directory) or
``-p evil_plugin``. Options that change where a tool writes, what code it
loads or which index or config it reads are not covered by a grant; the
command is asked about instead."""

from __future__ import annotations

PYTEST = ("--basetemp", "-p", "--rootdir", "-c", "--config-file", "--confcutdir", "-o", "--override-ini",
          "--import-mode", "--pyargs", "--junitxml", "--junit-xml", "--resultlog", "--debug", "--cache-clear")
UNSAFE_OPTIONS: dict[str, tuple[str, ...]] = {
    "pytest": PYTEST, "py.test": PYTEST,
    "npm": ("-g", "--global", "--prefix", "--registry", "--userconfig"),
    "pnpm": ("-g", "--global", "--prefix", "--registry"), "yarn": ("--global", "--registry", "--prefix"),
    "pip": ("-t", "--target", "--prefix", "--root", "-i", "--index-url", "--extra-index-url",
            "--break-system-packages", "--user"),
    "make": ("-C", "--directory", "-f", "--file", "--makefile", "--eval", "SHELL=", "MAKEFLAGS="),
    "cargo": ("--manifest-path", "--target-dir", "--config", "-Z"),
    "go": ("-exec", "-toolexec", "-modfile", "-overlay"),
    "git": ("-c", "-C", "--git-dir", "--work-tree", "--exec-path", "--upload-pack", "--receive-pack", "--exec",
            "-f", "--force", "--hard", "-D"),
}
UNSAFE_OPTIONS["pip3"] = UNSAFE_OPTIONS["pip"]


def _tool(prefix: list[str]) -> str:
    """The program whose options the extra words are: ``python -m pytest`` → pytest."""
    if len(prefix) >= 3 and prefix[1] == "-m":
        return prefix[2]
    return prefix[0] if prefix else ""


def misfit(prefix: list[str], extra: list[str]) -> str | None:
    """Why ``extra`` is outside what a grant for ``prefix`` covers, or None."""
    unsafe = UNSAFE_OPTIONS.get(_tool(prefix), ())
    for word in extra:
        if "$" in word or "`" in word:
            return f"{word} is only known when it runs"
        for option in unsafe:
            if word == option or (option.endswith("=") and word.startswith(option)) or word.startswith(option + "="):
                return f"{option.rstrip('=')} is not covered"
            if len(option) == 2 and option.startswith("-") and word.startswith(option) and not word.startswith("--"):
                return f"{option} is not covered"
    return None


def describe(prefix: list[str]) -> str:
    unsafe = UNSAFE_OPTIONS.get(_tool(prefix), ())
    joined = " ".join(prefix)
    if not unsafe:
        return f"commands that start with `{joined}`"
    shown = ", ".join(o.rstrip("=") for o in unsafe[:5])
    return f"commands that start with `{joined}`, not with {shown}{', …' if len(unsafe) > 5 else ''}"
