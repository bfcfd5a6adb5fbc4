"""An act's stages (call.StageClock): each block's own time, nested stages apart."""

from __future__ import annotations

import time

from steadyhand.call import STAGES, StageClock


def test_a_stage_leaves_out_the_stages_run_inside_it() -> None:
    clock = StageClock()
    with clock.stage("input"):
        time.sleep(0.02)
        with clock.stage("check"):
            time.sleep(0.05)
    assert 0.05 <= clock.spent["check"] < 0.2
    assert 0.02 <= clock.spent["input"] < 0.05, clock.spent  # not the check's 50 ms
    assert abs(clock.total() - (clock.spent["input"] + clock.spent["check"])) < 1e-9


def test_tries_add_up_and_the_result_lists_stages_in_order() -> None:
    clock = StageClock()
    clock.add("record", 0.0004)
    clock.add("resolve", 0.002)
    clock.add("resolve", 0.003)
    clock.add("settle", -1.0)  # a clock step backwards counts as nothing
    assert clock.shown() == {"resolve": 5.0, "settle": 0.0, "record": 0.4}
    assert list(clock.shown()) == [s for s in STAGES if s in clock.spent]


def test_an_error_inside_a_stage_still_counts_its_time() -> None:
    clock = StageClock()
    try:
        with clock.stage("resolve"):
            time.sleep(0.01)
            raise RuntimeError("gone")
    except RuntimeError:
        pass
    assert clock.spent["resolve"] >= 0.01
