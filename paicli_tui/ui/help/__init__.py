"""The help screen."""
