"""The one record of the agents' states, which the agent's day and the floor replay read."""
