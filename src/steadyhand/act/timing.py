"""Which stage of an act a method's time counts to (the result's `timing`, call.STAGES)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from steadyhand.call import Call

P = ParamSpec("P")
R = TypeVar("R")


class Timed(Protocol):
    call: Call


S = TypeVar("S", bound=Timed)
Method = Callable[Concatenate[S, P], Coroutine[Any, Any, R]]


def staged(stage: str) -> Callable[[Method[S, P, R]], Method[S, P, R]]:
    """The method's time, less the stages it runs itself, counts to `stage`."""

    def wrap(method: Method[S, P, R]) -> Method[S, P, R]:
        async def timed(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            with self.call.outcome.timing.stage(stage):
                return await method(self, *args, **kwargs)

        return functools.wraps(method)(timed)

    return wrap
