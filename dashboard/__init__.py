"""The supervisor dashboard: one Django app per concern, plus the upstream adapter."""
