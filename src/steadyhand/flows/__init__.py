"""Flows: an agent does a task once; steadyhand replays it without a model."""
