"""Observability: structured logs, metrics, traces, artifact retention, session reports."""
