"""Acting on the floor: monitoring a live call (listen, whisper, barge) and setting an
agent's state, asked of the service (contract 6.1) and recorded (docs/interventions.md)."""
