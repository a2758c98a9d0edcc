"""What a command run by ``execute_command`` sees of paicli's environment.

paicli's own environment holds the model's API key and often other
credentials (cloud, GitHub, package registries). A command gets a copy with
the configured key variable and every variable that looks like a credential
removed — by its name or by its value — so a command written by the model
(or planted in a workspace file) cannot read them. Settings add names to
pass anyway (``command_env_pass``) or extra names to drop
(``command_env_drop``); a name in both is dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Iterable, Mapping

from paicli_tui.config.secret_names import looks_like_secret_name, looks_like_secret_value

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings

def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


#: Variables that point git at a repository, index or object store; dropped
#: for commands in a task's own tree, whose git must find the tree's.
GIT_REPOSITORY_VARIABLES = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
)


@dataclass(frozen=True)
class CommandEnvPolicy:
    key_env: str = ""
    """The configured API key variable: always dropped unless passed by name."""
    passed: tuple[str, ...] = ()
    """Names or glob patterns passed even if they look like credentials."""
    dropped: tuple[str, ...] = ()
    """Extra names or glob patterns removed (wins over ``passed``)."""

    @classmethod
    def from_settings(cls, settings: "Settings") -> "CommandEnvPolicy":
        return cls(settings.resolved().api_key_env, tuple(settings.command_env_pass),
                   tuple(settings.command_env_drop))

    def removes(self, name: str, value: str) -> bool:
        if _matches(name, self.dropped):
            return True
        if _matches(name, self.passed):
            return False
        return name == self.key_env or looks_like_secret_name(name) or looks_like_secret_value(value)

    def build(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment a command runs with."""
        environ = os.environ if environ is None else environ
        return {name: value for name, value in environ.items() if not self.removes(name, value)}
