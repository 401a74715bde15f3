"""Live figures: one module per figure, numpy and the core only.

Every module declares its figure (figurekit/figure.py): ``TITLE``, ``CAPTION`` (what to try),
its ``State``, ``DEFAULT``, ``CONTROLS`` and ``draw(state)``, what each of its models shows.
Its id is the key it is registered under below, and nowhere else. At build time its layout
(layouts/<module>.py) draws it with Panel and Bokeh for the page; in the reader's browser the
same ``draw`` runs under Pyodide for every change the reader makes.
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
    # post 3
    "kv-cache": "figures.kv_cache",
    "decode": "figures.decode",
    "grouped-heads": "figures.grouped_heads",
    "sliding-window": "figures.sliding_window",
    "local-global": "figures.local_global",
    "rotary": "figures.rotary",
    "rope-scaling": "figures.rope_scaling",
    "online-softmax": "figures.online_softmax",
    "memory-traffic": "figures.memory_traffic",
    "latent-cache": "figures.latent_cache",
    "generation": "figures.generation",
}


# What every figure module defines (figurekit/figure.py).
NAMES = ("TITLE", "CAPTION", "State", "DEFAULT", "CONTROLS", "draw")


def module(figure_id: str) -> ModuleType:
    """The module that builds figure ``figure_id``, checked to define every one of NAMES."""
    if figure_id not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(
            f"unknown figure id {figure_id!r}; known ids: {known}. A new figure is registered "
            "in figures/__init__.py's REGISTRY"
        )
    mod = importlib.import_module(REGISTRY[figure_id])
    if missing := [name for name in NAMES if not hasattr(mod, name)]:
        raise ValueError(
            f"figure module {mod.__name__} ({figure_id!r}) lacks {', '.join(missing)}: every "
            f"figure module defines {', '.join(NAMES)} (see figures/__init__.py)"
        )
    return mod


def figure_id(mod: ModuleType) -> str:
    """The id figure module ``mod`` is registered under."""
    for figure_id, name in REGISTRY.items():
        if name == mod.__name__:
            return figure_id
    raise ValueError(f"{mod.__name__} is not a registered figure; add it to figures.REGISTRY")
