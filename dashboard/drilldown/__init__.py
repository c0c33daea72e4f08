"""The drill-down: an agent's page and a call's page, with the evidence behind every alert
and score, search, notes about agents, and what the drill-down keeps (the journal of
states and calls from the service's events) and purges after RETENTION_DAYS."""
