"""The tools agents call (P-6): workspace files, search, the shell, the web,
and the workspace confinement they share. Policy (approval, risk, grants)
lives in ``policy/``; the registry that puts policy in front of every call
lives in ``agent/``. Import modules directly: this package re-exports nothing,
so importing one tool loads nothing else."""
