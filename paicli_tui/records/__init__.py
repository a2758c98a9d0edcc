"""Run records (P-8): everything built from a ledger alone, with no model
and no tools: session lookup, rebuilt events, replay, verification rules,
reports and cost."""
