"""Live figures: one module per figure, each built from Panel widgets and Bokeh plots.

Every module exposes ``TITLE``, ``CAPTION`` (what to try) and ``view()``, which returns the
figure's Panel layout; its id is the key it is registered under below, and nowhere else. The
same code pre-renders the figure at build time in CPython and runs it live in the reader's
browser under Pyodide.
"""

import importlib
from types import ModuleType

# Figure id -> module. Modules are imported on demand so a page loads only its own figures.
REGISTRY: dict[str, str] = {
    "depth": "figures.depth",
    "flat-weights": "figures.flat_weights",
    "loop-matmul": "figures.loop_matmul",
    "magnitude": "figures.magnitude",
    "normalisations": "figures.normalisations",
    "three-steps": "figures.three_steps",
    "matmul-scores": "figures.section33_matmul_scores",
    "normalisations-compare": "figures.section33_normalisations",
    "score-matrix": "figures.section33_score_matrix",
    "context-matmul": "figures.section33_context_matmul",
    # post 2
    "three-modes": "figures.three_modes",
    "divisor": "figures.divisor",
    "masking": "figures.masking",
    "dropout": "figures.dropout",
    "heads": "figures.heads",
    "cost": "figures.cost",
}


def module(figure_id: str) -> ModuleType:
    """The module that builds figure ``figure_id``."""
    try:
        return importlib.import_module(REGISTRY[figure_id])
    except KeyError:
        raise ValueError(f"unknown figure {figure_id!r}; known: {sorted(REGISTRY)}") from None


def figure_id(mod: ModuleType) -> str:
    """The id figure module ``mod`` is registered under."""
    for figure_id, name in REGISTRY.items():
        if name == mod.__name__:
            return figure_id
    raise ValueError(f"{mod.__name__} is not a registered figure; add it to figures.REGISTRY")
