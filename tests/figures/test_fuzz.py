"""Every registered figure under fuzzing: random sequences of control changes over each
control's whole declared range (and, for typed inputs, NaN, infinities, huge values and an
empty box) never raise, never show a non-finite number without a message, and the figure
comes back to its default readouts when the controls are reset.

The strategies are derived from the declared controls (figurekit/controls.py), so a new figure
is fuzzed as soon as it is registered; it is driven as the worker drives it, without Panel.
``pytest -s`` prints how many states each figure went through.
"""

import math
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import figures
from figurekit.controls import Choice, Clicks, Control, Number, Slider, Switch, Text
from tests.figures import probe
from tests.strategies import examples

HUGE = 1e308
# Typed-input values a reader can type or paste that no slider would ever produce.
FLOAT_EXTREMES = [math.nan, math.inf, -math.inf, HUGE, -HUGE, 5e-324, -0.0, None]
TEXT_SAMPLES = ["", " ", "nan", "inf, -inf", "1e308, 1e308", "-1e308, 1e308", "1, 2, x", ",,,"]
NON_FINITE = re.compile(r"(?i)\b(nan|inf|infinity)\b|∞")
NUMBER = re.compile(r"[-+−]?\d[\d,]*\.?\d*(?:e[-+−]?\d+)?", re.I)

STATES: Counter[str] = Counter()


def _bounded(value, default):
    return default if value is None else value


def control_strategy(control: Control) -> st.SearchStrategy:
    """Every value a declared control can hand to the figure, as the page's widget sends it."""
    if isinstance(control, Switch):
        return st.booleans()
    if isinstance(control, Choice):
        return st.sampled_from(control.values)
    if isinstance(control, Slider) and control.whole:
        steps = (control.end - control.start) // control.step
        return st.integers(0, steps).map(lambda k: control.start + k * control.step)
    if isinstance(control, Slider):
        return st.floats(control.start, control.end) | st.sampled_from([control.start, control.end])
    if isinstance(control, Number) and control.whole:
        # The browser clamps a bounded box to its bounds; an emptied box sends None.
        low, high = _bounded(control.start, -(2**63)), _bounded(control.end, 2**63 - 1)
        return st.integers(low, high) | st.sampled_from([low, high, None])
    if isinstance(control, Number):
        if control.start is None and control.end is None:
            return st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(FLOAT_EXTREMES)
        low, high = _bounded(control.start, -HUGE), _bounded(control.end, HUGE)
        return st.floats(low, high) | st.sampled_from([low, high, None])
    if isinstance(control, Text):
        return st.text(max_size=40) | st.sampled_from(TEXT_SAMPLES)
    raise AssertionError(f"no fuzzing strategy for {type(control).__name__} {control.name!r}")


def is_button(widget) -> bool:
    """A push button: each change is a click (an action, or a click count that is state)."""
    if isinstance(widget, probe.Knob):
        return isinstance(widget.control, Clicks)
    return isinstance(widget, probe.Press)


def strategy(widget) -> st.SearchStrategy:
    """Every value the control can hand to the figure; a click for a button."""
    return st.just("click") if is_button(widget) else control_strategy(widget.control)


def controls(view) -> dict:
    """The figure's controls by label (composite widgets' unnamed parts are left out)."""
    return {name: w for name, w in probe.widgets(view).items() if name}


def apply(widget, value) -> None:
    if is_button(widget):
        widget.clicks += 1
    else:
        widget.value = value


def non_finite(readouts: dict[str, str]) -> dict[str, str]:
    """Readouts that print NaN/infinity or a number that does not parse as a finite float."""
    bad = {}
    for key, text in readouts.items():
        numbers = [n.replace(",", "").replace("−", "-") for n in NUMBER.findall(text)]
        if NON_FINITE.search(text) or not all(math.isfinite(float(n)) for n in numbers):
            bad[key] = text
    return bad


def check_state(figure_id: str, view: probe.Driven, step: str) -> None:
    """Every readout is a finite number, or the figure says what is wrong."""
    STATES[figure_id] += 1
    bad = non_finite(probe.readouts(view))
    assert not bad or probe.messages(view), f"{figure_id} after {step}: {bad} and no message"


def reset(widgets: dict[str, probe.Knob], defaults: dict[str, object]) -> None:
    for name, value in defaults.items():
        widgets[name].value = value


@pytest.fixture(scope="module", autouse=True)
def report_states():
    yield
    print("\nstates fuzzed per figure:")
    for figure_id in figures.REGISTRY:
        print(f"  {figure_id:24} {STATES[figure_id]}")


@pytest.mark.parametrize("figure_id", list(figures.REGISTRY))
def test_every_control_sequence_is_survived_and_undone(figure_id):
    mod = figures.module(figure_id)
    build = lambda: probe.driven(mod)  # noqa: E731 (a fresh figure per example)
    strategies = {n: strategy(w) for n, w in controls(build()).items()}
    assert strategies, f"{figure_id} has no controls to fuzz"
    names = sorted(strategies)
    change = st.sampled_from(names).flatmap(lambda n: st.tuples(st.just(n), strategies[n]))

    @settings(
        max_examples=examples(30),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(change, min_size=1, max_size=12))
    def run(changes):
        view = build()
        widgets = controls(view)
        default_readouts = probe.readouts(view)
        defaults = {n: w.value for n, w in widgets.items() if not is_button(w)}
        clicks = []
        for name, value in changes:
            apply(widgets[name], value)
            if is_button(widgets[name]):
                clicks.append(name)
            check_state(figure_id, view, f"{name} = {value!r}")
        reset(widgets, defaults)
        check_state(figure_id, view, "reset")
        assert probe.messages(view) == [], f"{figure_id} still complains after reset"
        # Clicks cannot be undone (a resample moves the seed on): compare with a fresh figure
        # that saw the same clicks and nothing else.
        if clicks:
            reference = build()
            ref_widgets = controls(reference)
            for name in clicks:
                apply(ref_widgets[name], None)
            reset(ref_widgets, defaults)
            default_readouts = probe.readouts(reference)
        assert probe.readouts(view) == default_readouts

    run()
    assert STATES[figure_id] > 0
