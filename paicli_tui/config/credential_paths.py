"""Where people keep credentials, relative to their home directory.

One list for the two places that need it: the command sandbox hides these
paths, and the risk check flags a command that reads one. Settings add more
(``sandbox_hidden_paths``)."""

from __future__ import annotations

#: Credential stores under $HOME: directories and single files.
HOME_CREDENTIAL_PATHS = (
    ".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".kube", ".docker", ".gnupg",
    ".password-store", ".local/share/keyrings", ".git-credentials", ".netrc", ".pgpass", ".pypirc", ".npmrc",
    ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".vault-token",
    ".config/git/credentials",
)
