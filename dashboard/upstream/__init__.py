"""The adapter to the service. Every assumption of `shared/upstream-contract.md` (paths,
event names, field names, envelopes, error shapes) lives in this package and nowhere else."""
