"""The simulated tenant: the service's contract served over real sockets (a peer, never imported
by the dashboard)."""
