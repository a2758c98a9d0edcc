"""The OS sandbox every command runs in (``sandbox`` in config.toml).

``auto`` (the default) confines commands with bubblewrap where it can start
and otherwise runs them unconfined after saying so once; ``required``
refuses to run commands when it cannot start; ``off`` runs them as paicli's
own user, unconfined. The policy layer (risk check, rules, grants) stays in
front of it as a second line, not as the boundary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.config.credential_paths import HOME_CREDENTIAL_PATHS
from paicli_tui.sandbox.bwrap_profile import Profile, bwrap_argv
from paicli_tui.sandbox.probe import SandboxStatus, probe

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings


@dataclass(frozen=True)
class Sandbox:
    """How commands of one workspace are started. ``binary`` empty: not
    confined; ``refusal`` set: commands must not run at all."""

    profile: Profile
    binary: str = ""
    refusal: str = ""
    warning: str = ""
    """Said once at session start: the sandbox was wanted but cannot start."""
    network_default: bool = False
    """Every command reaches the network; otherwise only those a ``network:
    allow`` rule or the person lets through (decided by the approval gate)."""

    @property
    def active(self) -> bool:
        return bool(self.binary)

    def wrap(self, argv: list[str], *, network: bool) -> list[str]:
        """``argv`` as it runs: inside bubblewrap, or unchanged when off."""
        if not self.binary:
            return argv
        return bwrap_argv(self.binary, self.profile, argv, network=network)

    def describe(self) -> str:
        if self.refusal:
            return self.refusal
        if not self.active:
            return self.warning or "off: commands run unconfined as your user"
        network = "network on" if self.network_default else "no network unless allowed"
        return f"bubblewrap: workspace writable, the rest read-only, credentials hidden, private /tmp, {network}"


def hidden_paths(settings: "Settings", home: Path | None = None) -> tuple[Path, ...]:
    """Credential stores plus paicli's own config and data directories (the
    ledger, other projects' checkpoints, kept grants, MCP trust)."""
    from paicli_tui.config.settings import config_dir, data_dir

    home = home or Path.home()
    extra = tuple(Path(p).expanduser() for p in settings.sandbox_hidden_paths)
    return (*(home / p for p in HOME_CREDENTIAL_PATHS), *extra, config_dir(), data_dir())


def git_common_dir(workspace: Path) -> Path | None:
    """The main repository's git directory when the workspace is a linked
    worktree (its ``.git`` is a file): commits write there."""
    dot_git = workspace / ".git"
    if not dot_git.is_file():
        return None
    try:
        line = dot_git.read_text(errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = (workspace / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (gitdir / "commondir").read_text().strip()
    except OSError:
        return gitdir
    return (gitdir / common).resolve()


def sandbox_for(settings: "Settings", workspace: Path, *, status: SandboxStatus | None = None) -> Sandbox:
    """The sandbox the settings ask for, for one workspace."""
    writable = tuple(Path(p).expanduser() for p in settings.sandbox_writable)
    common = git_common_dir(workspace)
    profile = Profile(workspace, (*writable, *((common,) if common else ())), hidden_paths(settings))
    network = settings.sandbox_network == "on"
    if settings.sandbox == "off":
        return Sandbox(profile, network_default=True)
    status = status or probe(settings.sandbox_binary)
    if status.ok:
        return Sandbox(profile, status.binary, network_default=network)
    if settings.sandbox == "required":
        refusal = f'refused: sandbox = "required" and the sandbox cannot start: {status.reason}'
        return Sandbox(profile, refusal=refusal, warning=refusal)
    warning = f"commands run without the OS sandbox: {status.reason} (set sandbox = \"off\" to silence this)"
    return Sandbox(profile, warning=warning, network_default=True)
