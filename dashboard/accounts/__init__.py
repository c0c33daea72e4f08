"""People who sign in to the dashboard, and their roles."""
