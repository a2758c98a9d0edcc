"""What ``/permissions`` may do with the session's grants (P-9.6): take one
back, or keep a session grant for this workspace. A mixin of the live
session, which owns the registry (and so the grants), the bus and the
workspace."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from paicli_tui.events import GrantKept, GrantRevoked
from paicli_tui.policy.saved_grants import remove_rule, save_rule

if TYPE_CHECKING:
    from paicli_tui.agent.registry import ToolRegistry
    from paicli_tui.events import EventBus
    from paicli_tui.policy.grants import Grant, GrantStore


class GrantKeeping:
    registry: "ToolRegistry"
    bus: "EventBus"
    workspace: Path

    @property
    def grants(self) -> "GrantStore":
        return self.registry.grants

    def revoke_grant(self, grant: "Grant") -> bool:
        """Take back a session grant or one kept for the workspace."""
        if grant.source == "workspace":
            removed = self.grants.forget_kept(grant)
            if removed:
                remove_rule(self.workspace, grant.rule)
        else:
            removed = self.grants.revoke(grant)
        if removed:
            self.bus.publish(GrantRevoked("session", grant.rule))
        return removed

    def keep_grant(self, grant: "Grant") -> Path:
        """Keep a session grant for this workspace (permissions.toml in the
        config directory); returns the file written."""
        path = save_rule(self.workspace, grant.rule)
        self.grants.keep(grant)
        self.bus.publish(GrantKept("session", grant.rule, str(path)))
        return path
