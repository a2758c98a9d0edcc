"""The optional model risk check for commands (as in the original PaiCLI):
one short tool-less call whose verdict is read fail-closed."""

from __future__ import annotations

from paicli_tui.llm.types import ModelError
from paicli_tui.plan.strict_json import StrictJsonError, read_json_object
from paicli_tui.policy.risk import RiskVerdict

AGENT_NAME = "risk-check"


class ModelRiskChecker:
    """``checker(command) -> RiskVerdict``; raises when the model cannot be
    asked or its answer cannot be read, which the approval gate treats as
    risky (ask the person)."""

    def __init__(self, client, system_prompt: str) -> None:
        self.client = client
        self.system_prompt = system_prompt

    def __call__(self, command: str) -> RiskVerdict:
        messages = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": f"Command:\n{command}"},
        ]
        try:
            result = self.client.chat(messages, agent=AGENT_NAME, tools=None)
        except ModelError as exc:
            raise RuntimeError(f"risk check call failed: {exc}") from None
        try:
            verdict = read_json_object(result.content, "risk verdict")
        except StrictJsonError as exc:
            raise RuntimeError(str(exc)) from None
        risky = verdict.get("risky")
        if not isinstance(risky, bool):
            raise RuntimeError("risk verdict: `risky` is not a boolean")
        reason = verdict.get("reason")
        reason = reason.strip() if isinstance(reason, str) and reason.strip() else "the model judged it risky"
        return RiskVerdict(risky, f"model check: {reason}" if risky else "model check: not risky")
