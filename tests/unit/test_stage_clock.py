"""An act's stages (call.StageClock): each block's own time, nested stages apart."""

from __future__ import annotations

import pytest

from steadyhand.call import STAGES, StageClock


class Ticks:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_stage_leaves_out_the_stages_run_inside_it() -> None:
    ticks = Ticks()
    clock = StageClock(clock=ticks)
    with clock.stage("input"):
        ticks.now += 0.020
        with clock.stage("check"):
            ticks.now += 0.050
        ticks.now += 0.005
    assert clock.spent == pytest.approx({"input": 0.025, "check": 0.050})
    assert clock.total() == pytest.approx(0.075)


def test_tries_add_up_and_the_result_lists_stages_in_order() -> None:
    clock = StageClock()
    clock.add("record", 0.0004)
    clock.add("resolve", 0.002)
    clock.add("resolve", 0.003)
    clock.add("settle", -1.0)  # a clock step backwards counts as nothing
    assert clock.shown() == {"resolve": 5.0, "settle": 0.0, "record": 0.4}
    assert list(clock.shown()) == [s for s in STAGES if s in clock.spent]


def test_an_error_inside_a_stage_still_counts_its_time() -> None:
    ticks = Ticks()
    clock = StageClock(clock=ticks)
    with pytest.raises(RuntimeError), clock.stage("resolve"):
        ticks.now += 0.010
        raise RuntimeError("gone")
    assert clock.spent == pytest.approx({"resolve": 0.010})
