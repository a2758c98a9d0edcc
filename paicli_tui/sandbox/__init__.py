"""The OS sandbox every command runs in (bubblewrap): what a command may
write, what it may not see, no network unless allowed, and nothing left
running after it. Just above the ground floor, so the shell tool, hooks
and skills' scripts can all run through it."""
