"""Tools the agents call (P-6): workspace files, search, shell, web, and the
policies around them — sandbox, trusted URLs, risk check and approvals."""

from paicli_tui.tools.approval import (
    ApprovalAnswer, ApprovalRequest, Approver, AutoApprover, Decision, DenyApprover, TerminalApprover,
    headless_approver,
)
from paicli_tui.tools.grants import Grant, GrantStore
from paicli_tui.tools.base import ToolContext, ToolResult
from paicli_tui.tools.registry import ToolRegistry
from paicli_tui.tools.risk import RiskVerdict, classify_command
from paicli_tui.tools.search import SearchBackend, SearchHit, SearxngBackend
from paicli_tui.tools.trusted_urls import TrustedUrls

__all__ = [
    "ApprovalAnswer", "ApprovalRequest", "Grant", "GrantStore", "Approver", "AutoApprover", "Decision", "DenyApprover", "TerminalApprover",
    "headless_approver", "ToolContext", "ToolResult", "ToolRegistry", "RiskVerdict", "classify_command",
    "SearchBackend", "SearchHit", "SearxngBackend", "TrustedUrls",
]
