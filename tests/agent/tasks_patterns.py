"""Tasks on the plain fixtures of issue 29's ten patterns (tests/fixtures/site/patterns):
each one reproduces one way the snapshot or the act failed an agent."""

from __future__ import annotations

from tests.agent.agent import FIELDS, PRESSABLE, Agent, Stuck
from tests.agent.task import Task, cell, stepper

P = "patterns"
FIXTURE = "fixture (plain HTML; jQuery UI / Tabulator where named)"


def pick_city(agent: Agent) -> None:
    agent.look()
    agent.type(agent.find("City", FIELDS), "Ber")
    seen = agent.until("Berlin")
    agent.click(agent.find("Berlin", PRESSABLE, seen=seen))


def pick_airport(agent: Agent) -> None:
    agent.look()
    agent.type(agent.find("Airport", FIELDS), "Ber")
    seen = agent.until("Bern (BRN)")
    agent.click(agent.find("Bern (BRN)", PRESSABLE, seen=seen))


def run_ls(agent: Agent) -> None:
    agent.look()
    agent.type(agent.find("Command", FIELDS), "ls", submit=True)
    agent.until("README.md")


def set_offset(agent: Agent) -> None:
    agent.look()
    agent.type(agent.find("Offset (°C)", FIELDS), "-10")


def choose_date(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("May 24, 2026"))


def submit_payment(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("Submit", ("button",)))


def book_late_flight(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("Book", ("button",), exact=False, near="Departs 22:05"))


def make_even(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("Even", ("button",), near="-5"))


def like_grace(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("like", near="@grace"))


def passenger(agent: Agent) -> None:
    agent.look()
    agent.type(agent.find(roles=FIELDS, near="Last name"), "Hopper")
    agent.select(agent.find(roles=("combobox",), near="Seat preference"), "Aisle")


def trash_message(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("trash"))


def volume_to_50(agent: Agent) -> None:
    agent.look()
    stepper(agent, agent.find(roles=("slider",), near="Volume", nth=0), 50)


def bold_second_point(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("Second point.", ("paragraph",)), count=3)
    agent.press("Control+b")


def open_order_250(agent: Agent) -> None:
    seen = agent.look()
    grid = agent.find(roles=("grid", "table"))
    for _ in range(12):
        row = cell(seen, "Customer 250", ("row", "gridcell", "cell"))
        if row is not None:
            agent.click(row)
            return
        agent.scroll(grid, 1500)
        seen = agent.look()
    raise Stuck("row 250 never came into view")


def tag_green_blue(agent: Agent) -> None:
    agent.look()
    agent.click(agent.find("green"))
    agent.click(agent.find("blue"))


TASKS = [
    Task(
        "autocomplete-plain",
        f"{P}/autocomplete.html",
        "Pick Berlin as the city",
        pick_city,
        "pageState().pickedCity === 'Berlin'",
        FIXTURE,
        "1",
    ),
    Task(
        "autocomplete-jqueryui",
        f"{P}/autocomplete.html",
        "Pick the airport Bern (BRN)",
        pick_airport,
        "pageState().pickedAirport === 'Bern (BRN)'",
        FIXTURE,
        "1",
    ),
    Task(
        "terminal-keys",
        f"{P}/keyfields.html",
        "Run ls in the console",
        run_ls,
        "pageState().ran.includes('ls')",
        FIXTURE,
        "2",
    ),
    Task(
        "spinner-negative",
        f"{P}/keyfields.html",
        "Set the offset to -10",
        set_offset,
        "pageState().offset === -10",
        FIXTURE,
        "2",
    ),
    Task(
        "date-by-label",
        f"{P}/labels.html",
        "Choose May 24, 2026",
        choose_date,
        "pageState().chosen === 'May 24, 2026'",
        FIXTURE,
        "3",
    ),
    Task(
        "button-in-tab",
        f"{P}/accordion.html",
        "Submit the payment step",
        submit_payment,
        "pageState().done.includes('submit-payment')",
        FIXTURE,
        "4",
    ),
    Task(
        "card-button",
        f"{P}/groups.html",
        "Book the flight that departs at 22:05",
        book_late_flight,
        "pageState().booked && pageState().booked.dep === '22:05'",
        FIXTURE,
        "5",
    ),
    Task(
        "row-buttons",
        f"{P}/groups.html",
        "Make the counter showing -5 even",
        make_even,
        "pageState().values[0] === -4",
        FIXTURE,
        "5",
    ),
    Task(
        "feed-like",
        f"{P}/groups.html",
        "Like @grace's post",
        like_grace,
        "JSON.stringify(pageState().liked) === '[\"@grace\"]'",
        FIXTURE,
        "5,6",
    ),
    Task(
        "text-labels",
        f"{P}/groups.html",
        "Last name Hopper, seat by the aisle",
        passenger,
        "pageState().last === 'Hopper' && pageState().seat === 'Aisle'",
        FIXTURE,
        "5",
    ),
    Task(
        "icon-class",
        f"{P}/class-icons.html",
        "Throw the message away (the trash icon)",
        trash_message,
        "JSON.stringify(pageState().clicked) === '[\"i-trash\"]'",
        FIXTURE,
        "6",
    ),
    Task(
        "slider-jqueryui",
        f"{P}/slider.html",
        "Set the volume to 50",
        volume_to_50,
        "pageState().volume === 50",
        FIXTURE,
        "7",
    ),
    Task(
        "editor-paragraph",
        f"{P}/text.html",
        "Make the draft's second point bold",
        bold_second_point,
        "/<b>Second point\\.<\\/b>/.test(pageState().editor[1])",
        FIXTURE,
        "8",
    ),
    Task(
        "virtual-grid",
        f"{P}/grid.html",
        "Open order 250",
        open_order_250,
        "pageState().opened === 250",
        FIXTURE,
        "9",
    ),
    Task(
        "delegated-tags",
        f"{P}/wrapper.html",
        "Choose the tags green and blue",
        tag_green_blue,
        "pageState().chosen.join() === 'green,blue'",
        FIXTURE,
        "10",
    ),
]
