"""System prompts (P-2): assembly from ``prompts/`` in a fixed order, the
Markdown sections it edits, and the skills index."""
