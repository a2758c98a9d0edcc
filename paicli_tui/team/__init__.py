"""Team mode (P-5): roles, messages and the structured replies of workers and
reviewers."""

from paicli_tui.team.messages import AgentMessage, AgentRole, MessageType
from paicli_tui.team.structured import (
    ReviewVerdict,
    StructuredReplyError,
    WorkerReport,
    parse_review_verdict,
    parse_worker_report,
)

__all__ = [
    "AgentMessage",
    "AgentRole",
    "MessageType",
    "ReviewVerdict",
    "StructuredReplyError",
    "WorkerReport",
    "parse_review_verdict",
    "parse_worker_report",
]
