"""`make bench`: end-to-end latency and fan-out of the live path (docs/performance.md)."""
