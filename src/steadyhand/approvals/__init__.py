"""The human approval gate: some calls wait for a person's `approve` before they run.

policy.py says which calls (from the settings), execute/gate.py gathers what it needs to know of a
call and asks, registry.py keeps the requests and decisions and tells a person (through
steadyhand/webhook.py).
"""

from steadyhand.approvals.policy import Policy
from steadyhand.approvals.registry import Approvals, Decision

__all__ = ["Approvals", "Decision", "Policy"]
