"""Tasks on real apps and library demo pages shipped on npm, vendored unmodified (but for a
CDN script swapped for a local copy, where noted) under tests/fixtures/site/real: pages
nobody on this project wrote. Each directory's VENDORED.md says what was copied and how."""

from __future__ import annotations

import json

from tests.agent.agent import FIELDS, PRESSABLE, Agent, Stuck
from tests.agent.task import Task
from tests.agent.text import Element, Snapshot, squash

REAL = "real"
VANILLA = f"{REAL}/todomvc-0.1.1/examples/vanillajs/index.html"
VUE = f"{REAL}/todomvc-0.1.1/examples/vue/index.html"
STEPS = f"{REAL}/jquery-steps-1.1.0/demo/index.html"
CONSOLE = f"{REAL}/jq-console-2.13.2/demos/index.html"
PELL = f"{REAL}/pell-1.0.6/demo.html"
PIKADAY = f"{REAL}/pikaday-1.7.0/index.html"
PIKADAY_RANGE = f"{REAL}/pikaday-1.7.0/examples/date-range.html"

SRC_VANILLA = "npm todomvc@0.1.1 examples/vanillajs"
SRC_VUE = "npm todomvc@0.1.1 examples/vue"

NEW_TODO = "What needs to be done?"


# ------------------------------------------------------------------ reading helpers


def _placeholder(e: Element) -> str:
    """A field's placeholder, as either format writes it: an attribute or a `/placeholder:`
    line under the field's line."""
    raw = e.attrs.get("placeholder", "")
    if raw.startswith('"'):
        try:
            return str(json.loads(raw))
        except json.JSONDecodeError:
            return raw.strip('"')
    if raw:
        return raw
    for child in e.line.children:
        if child.raw.startswith("/placeholder:"):
            return child.raw.split(":", 1)[1].strip().strip('"')
    return ""


def field(agent: Agent, text: str, seen: Snapshot | None = None) -> Element:
    """The text field a person would call `text`: by its name, else by its placeholder."""
    snapshot = seen or agent.look()
    want = squash(text)
    named = [e for e in snapshot.elements if e.ref and e.role in FIELDS]
    found = [e for e in named if squash(e.name) == want]
    found = found or [e for e in named if squash(_placeholder(e)) == want]
    if len(found) != 1:
        raise Stuck(f"{len(found)} fields called {text!r}")
    return found[0]


def text_of(agent: Agent, text: str, seen: Snapshot | None = None) -> Element:
    """The element (with a ref) whose own words are `text`: what one double-clicks or hovers
    to reach a list item shown as plain text."""
    snapshot = seen or agent.look()
    want = squash(text)
    exact = [e for e in snapshot.elements if e.ref and squash(e.label) == want]
    if exact:
        return exact[-1]  # the innermost: the text's own element rather than its row
    raise Stuck(f"no element reads {text!r}")


def row_of(agent: Agent, text: str, seen: Snapshot | None = None) -> Element:
    """Something to point at on the list item that reads `text` (to hover it): the text's
    own element if it has a ref, else the item, else another element in the item."""
    snapshot = seen or agent.look()
    try:
        return text_of(agent, text, snapshot)
    except Stuck:
        pass
    want = squash(text)
    for line in snapshot.lines:
        if want not in squash(line.raw):
            continue
        for scope in (line, *line.ancestors()):
            if scope.items and scope.items[0].role in ("listitem", "row"):
                inside = [e for x in scope.walk() for e in x.items if e.ref]
                if inside:
                    return inside[0]
                break
    raise Stuck(f"no item reads {text!r}")


# ------------------------------------------------------------------ TodoMVC


def add_todos(agent: Agent, *titles: str) -> Snapshot:
    seen = agent.look()
    for title in titles:
        agent.type(field(agent, NEW_TODO, seen), title, submit=True)
        seen = agent.until(title)
    return seen


def complete(agent: Agent, title: str) -> None:
    seen = agent.look()
    agent.check(agent.find(roles=("checkbox",), near=title, seen=seen))


def todo_add(agent: Agent) -> None:
    add_todos(agent, "Buy milk")


def todo_complete(agent: Agent) -> None:
    add_todos(agent, "Buy milk", "Walk the dog")
    complete(agent, "Buy milk")
    agent.until("item left")  # "1 item left": one todo left to do


def todo_complete_all(agent: Agent) -> None:
    seen = add_todos(agent, "Buy milk", "Walk the dog")
    agent.check(agent.find("Mark all as complete", ("checkbox",), seen=seen))
    agent.until("Clear completed")


def todo_edit(agent: Agent) -> None:
    seen = add_todos(agent, "Buy milk")
    agent.click(text_of(agent, "Buy milk", seen), count=2)
    seen = agent.look()
    # The field the double click opened in the list, not the new-todo field at the top
    # (which may still show what was typed into it last).
    editor = [
        e
        for e in seen.elements
        if e.ref
        and e.role in FIELDS
        and e.text == "Buy milk"
        and NEW_TODO not in (e.name, _placeholder(e))
    ]
    if not editor:
        raise Stuck("no field holding 'Buy milk' after the double click")
    agent.type(editor[0], "Buy oat milk", submit=True)
    agent.until("Buy oat milk")


def todo_delete(agent: Agent) -> None:
    seen = add_todos(agent, "Buy milk", "Walk the dog")
    agent.hover(row_of(agent, "Buy milk", seen))
    seen = agent.look()
    agent.click(agent.find(roles=("button",), near="Buy milk", seen=seen))
    agent.until("item left")


def todo_filter(agent: Agent) -> None:
    add_todos(agent, "Buy milk", "Walk the dog")
    complete(agent, "Buy milk")
    agent.click(agent.find("Completed", ("link",)))
    agent.look()


def todo_clear(agent: Agent) -> None:
    add_todos(agent, "Buy milk", "Walk the dog", "Pay rent")
    complete(agent, "Buy milk")
    complete(agent, "Pay rent")
    seen = agent.until("item left")
    agent.click(agent.find("Clear completed", ("button",), exact=False, seen=seen))
    agent.look()


def _vanilla(expr: str) -> str:
    return f"(todos => {expr})(JSON.parse(localStorage['todos-vanillajs']).todos)"


def _vue(expr: str) -> str:
    return f"(todos => {expr})(JSON.parse(localStorage['todos-vuejs']))"


def _titles(done: bool | None = None) -> str:
    keep = "" if done is None else f".filter(t => !!t.completed === {str(done).lower()})"
    return f"JSON.stringify(todos{keep}.map(t => t.title))"


COUNT_TEXT = "document.getElementById('todo-count').textContent.replace(/\\s+/g, ' ').trim()"
VISIBLE = (
    "JSON.stringify([...document.querySelectorAll('#todo-list li')]"
    ".filter(li => li.offsetParent).map(li => li.textContent.trim()))"
)


# ------------------------------------------------------------------ jQuery Steps


def steps_to_third(agent: Agent) -> None:
    for _ in range(2):
        seen = agent.look()
        agent.click(agent.find("Next", PRESSABLE, seen=seen))
    agent.until("current step: 3")


def steps_finish(agent: Agent) -> None:
    for _ in range(6):
        seen = agent.look()
        finish = [e for e in seen.elements if e.ref and squash(e.label) == "finish"]
        if finish:
            agent.click(finish[0])
            agent.look()
            return
        agent.click(agent.find("Next", PRESSABLE, seen=seen))
    raise Stuck("never reached a Finish button")


# ------------------------------------------------------------------ jq-console


def console_eval(agent: Agent) -> None:
    seen = agent.look()
    agent.type(agent.find(roles=FIELDS, seen=seen), "1+1", submit=True)
    agent.until("==> 2")


# ------------------------------------------------------------------ pell


def pell_bold(agent: Agent) -> None:
    seen = agent.look()
    editor = agent.find(roles=("textbox",), seen=seen)
    agent.type(editor, "Hello brave new world")
    seen = agent.until("Hello brave new world")
    editor = agent.find(roles=("textbox",), seen=seen)
    agent.select_text(editor, "brave", "brave")
    agent.click(agent.find("B", ("button",)))
    agent.look()


# ------------------------------------------------------------------ Pikaday


def pick_day(agent: Agent, label: str, day: int, months_ahead: int = 0) -> None:
    """Open the date field's calendar, go `months_ahead` months on, click the day."""
    seen = agent.look()
    agent.click(agent.find(label, FIELDS, seen=seen))
    seen = agent.look()
    for _ in range(months_ahead):
        agent.click(agent.find("Next Month", PRESSABLE, seen=seen))
        seen = agent.look()
    agent.click(agent.find(str(day), PRESSABLE, seen=seen))
    agent.look()


def pikaday_15th(agent: Agent) -> None:
    pick_day(agent, "Date:", 15)


def pikaday_next_month(agent: Agent) -> None:
    pick_day(agent, "Date:", 1, months_ahead=1)


def pikaday_range(agent: Agent) -> None:
    pick_day(agent, "Start:", 10)
    pick_day(agent, "End:", 20)


# The picker's date is `day` of this month (or of `ahead` months on) and its field shows it.
PIKA_DAY = (
    "(() => {{ const d = {picker}.getDate(), n = new Date(), "
    "m = new Date(n.getFullYear(), n.getMonth() + {ahead}, 1); return !!d && "
    "d.getFullYear() === m.getFullYear() && d.getMonth() === m.getMonth() && "
    "d.getDate() === {day} && document.getElementById('{field}').value === d.toDateString(); }})()"
)


TASKS = [
    Task(
        "todo-vanilla-add",
        VANILLA,
        "Add a todo: Buy milk",
        todo_add,
        _vanilla(f"{_titles()} === '[\"Buy milk\"]'"),
        SRC_VANILLA,
    ),
    Task(
        "todo-vanilla-complete",
        VANILLA,
        "Add the todos 'Buy milk' and 'Walk the dog', then mark 'Buy milk' as done",
        todo_complete,
        _vanilla(
            f"{_titles(True)} === '[\"Buy milk\"]' && {_titles(False)} === '[\"Walk the dog\"]'"
        )
        + f" && {COUNT_TEXT} === '1 item left'",
        SRC_VANILLA,
    ),
    Task(
        "todo-vanilla-complete-all",
        VANILLA,
        "Add the todos 'Buy milk' and 'Walk the dog', then mark all todos as complete",
        todo_complete_all,
        _vanilla(f'{_titles(True)} === \'["Buy milk","Walk the dog"]\'')
        + f" && {COUNT_TEXT} === '0 items left'",
        SRC_VANILLA,
    ),
    Task(
        "todo-vanilla-edit",
        VANILLA,
        "Add the todo 'Buy milk', then change it to 'Buy oat milk'",
        todo_edit,
        _vanilla(f"{_titles()} === '[\"Buy oat milk\"]'"),
        SRC_VANILLA,
    ),
    Task(
        "todo-vanilla-delete",
        VANILLA,
        "Add the todos 'Buy milk' and 'Walk the dog', then delete 'Buy milk'",
        todo_delete,
        _vanilla(f"{_titles()} === '[\"Walk the dog\"]'"),
        SRC_VANILLA,
    ),
    Task(
        "todo-vanilla-filter",
        VANILLA,
        "Add 'Buy milk' and 'Walk the dog', complete 'Buy milk', then show only completed todos",
        todo_filter,
        f"location.hash === '#/completed' && {VISIBLE} === '[\"Buy milk\"]'",
        SRC_VANILLA,
    ),
    Task(
        "todo-vanilla-clear",
        VANILLA,
        "Add 'Buy milk', 'Walk the dog' and 'Pay rent'; complete 'Buy milk' and 'Pay rent'; "
        "then clear the completed todos",
        todo_clear,
        _vanilla(f"{_titles()} === '[\"Walk the dog\"]'"),
        SRC_VANILLA,
    ),
    Task(
        "todo-vue-complete",
        VUE,
        "Add the todos 'Buy milk' and 'Walk the dog', then mark 'Buy milk' as done",
        todo_complete,
        _vue(f"{_titles(True)} === '[\"Buy milk\"]' && {_titles(False)} === '[\"Walk the dog\"]'")
        + f" && {COUNT_TEXT} === '1 item left'",
        SRC_VUE,
    ),
    Task(
        "todo-vue-edit",
        VUE,
        "Add the todo 'Buy milk', then change it to 'Buy oat milk'",
        todo_edit,
        _vue(f"{_titles()} === '[\"Buy oat milk\"]'"),
        SRC_VUE,
    ),
    Task(
        "todo-vue-delete",
        VUE,
        "Add the todos 'Buy milk' and 'Walk the dog', then delete 'Buy milk'",
        todo_delete,
        _vue(f"{_titles()} === '[\"Walk the dog\"]'"),
        SRC_VUE,
    ),
    Task(
        "todo-vue-clear",
        VUE,
        "Add 'Buy milk', 'Walk the dog' and 'Pay rent'; complete 'Buy milk' and 'Pay rent'; "
        "then clear the completed todos",
        todo_clear,
        _vue(f"{_titles()} === '[\"Walk the dog\"]'"),
        SRC_VUE,
    ),
    Task(
        "steps-third",
        STEPS,
        "Go to the third step of the wizard",
        steps_to_third,
        "$('#wizard').steps('getCurrentIndex') === 2",
        "npm jquery-steps@1.1.0 demo/index.html",
    ),
    Task(
        "steps-finish",
        STEPS,
        "Go through the wizard and finish it",
        steps_finish,
        "$('#wizard').steps('getCurrentIndex') === 3"
        " && $('#wizard .steps li').last().hasClass('done')",
        "npm jquery-steps@1.1.0 demo/index.html",
    ),
    Task(
        "console-eval",
        CONSOLE,
        "Evaluate 1+1 in the JavaScript console",
        console_eval,
        "/==> 2/.test(document.querySelector('.jqconsole').textContent)",
        "npm jq-console@2.13.2 demos/index.html (jQuery from npm jquery@2.1.0)",
    ),
    Task(
        "pell-bold-word",
        PELL,
        "Write 'Hello brave new world' in the editor and make the word 'brave' bold",
        pell_bold,
        "/^(<p>)?Hello <b>brave<\\/b> new world(<\\/p>)?$/"
        ".test(document.getElementById('html-output').textContent)",
        "npm pell@1.0.6 demo.html",
    ),
    Task(
        "pikaday-pick-15th",
        PIKADAY,
        "Set the date to the 15th of this month",
        pikaday_15th,
        PIKA_DAY.format(picker="picker", day=15, field="datepicker", ahead=0),
        "npm pikaday@1.7.0 index.html",
    ),
    Task(
        "pikaday-next-month",
        PIKADAY,
        "Set the date to the 1st of next month",
        pikaday_next_month,
        PIKA_DAY.format(picker="picker", day=1, field="datepicker", ahead=1),
        "npm pikaday@1.7.0 index.html",
    ),
    Task(
        "pikaday-range",
        PIKADAY_RANGE,
        "Choose a date range from the 10th to the 20th of this month",
        pikaday_range,
        PIKA_DAY.format(picker="startPicker", day=10, field="start", ahead=0)
        + " && "
        + PIKA_DAY.format(picker="endPicker", day=20, field="end", ahead=0),
        "npm pikaday@1.7.0 examples/date-range.html",
    ),
]
