"""What may run and what may be seen (P-6, P-9.6): approval requests and
approvers, the gate that decides, grants and allow/deny rules, the command
risk check (rules, egress, the optional model check) and secret redaction."""
