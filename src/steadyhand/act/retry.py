"""Which failures are worth another try, and how long to wait before it.

Retried (up to `act_retries` more tries, inside the command's deadline): the element was
detached or replaced (its ref is re-resolved before the next try), it was covered, hidden
or disabled for the whole of one try's share of the deadline, a navigation raced the
action, a locator matched nothing yet, or a postcondition failed once. Never retried: bad
input, policy, stale or ambiguous refs, a second failed verification, and anything that
may already have acted (a key press, a failed --expect-* check after the action ran). A
click that timed out is retried: Playwright dispatches one only after its checks pass.
"""

from __future__ import annotations

import random

from playwright.async_api import Error as PlaywrightError

from steadyhand.act.failures import raced
from steadyhand.errors import SteadyhandError

BASE_BACKOFF_S = 0.1
MAX_BACKOFF_S = 2.0
JITTER_S = (0.1, 0.5)
MIN_TRY_MS = 1_000.0  # a try gets at least this much of the deadline (when it is left)


class Retryable(SteadyhandError):
    """A failure another try may not meet; raised as itself when the tries run out."""


def backoff_s(tries_done: int, rng: random.Random | None = None) -> float:
    """Exponential backoff (0.1, 0.2, 0.4 ... s, capped) plus 100-500 ms of jitter."""
    jitter: float = (rng or random.Random()).uniform(*JITTER_S)
    exponential: float = BASE_BACKOFF_S * 2.0 ** max(0, tries_done - 1)
    return min(MAX_BACKOFF_S, exponential) + jitter


def try_budget_ms(remaining_ms: float, tries_left: int) -> float:
    """This try's share of the time left: an equal part, at least MIN_TRY_MS."""
    share = remaining_ms / max(1, tries_left)
    return min(remaining_ms, max(MIN_TRY_MS, share))


def classify(exc: PlaywrightError) -> Retryable | None:
    """The retryable reading of a Playwright error raised before the action took effect
    (act/failures.py's `raced`)."""
    met = raced(exc)
    return None if met is None else Retryable(met.code, met.message, met.hint)
