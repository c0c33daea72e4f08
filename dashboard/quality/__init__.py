"""Webhook deliveries from the service, and the QA, compliance and coaching they feed."""
