"""The chapter's three exercises, as live cells at the end of post 2 (static/cells.js).

Each has starter code, a hint, a solution and a check: a function of the namespace the reader's
code ran in, returning ("pass" or "fail", one sentence). The page ships the check's own source
and runs it in the reader's Python after their code; the numbers it compares against are
computed there by ``attention/``, never typed. tests/pages/test_exercises.py runs every check
in CPython on the starter code (it must fail) and the solution (it must pass).
"""

import inspect
from collections.abc import Callable
from typing import NamedTuple

from attention.fixtures import GPT2_CONTEXT, GPT2_EMBED
from attention.heads import GPT2_HEADS


class Exercise(NamedTuple):
    number: str  # the book's numbering: "3.1"
    title: str
    task: str  # the prose, HTML
    starter: str
    hint: str
    solution: str
    check: Callable[[dict], tuple[str, str]]

    def check_source(self) -> str:
        """The check as the page runs it: its source, then a call printing its verdict."""
        name = self.check.__name__
        return f"{inspect.getsource(self.check)}\nimport json\nprint(json.dumps({name}(globals())))"


def check_transfer(ns: dict) -> tuple[str, str]:
    """3.1: v1 given the transposed layer weights computes v2's context vectors."""
    import numpy as np

    from attention import projections, torch_rng
    from attention.fixtures import book_inputs

    X = book_inputs()
    layers = torch_rng.weights_section_3_5()  # v2's weights as X @ W uses them: (d_in, d_out)
    expected = projections.self_attention(X, *layers)[2]
    names = ("W_query", "W_key", "W_value")
    if any(name not in ns for name in names):
        return "fail", "Your code does not define W_query, W_key and W_value."
    wanted = layers[0].shape
    for name in names:
        shape = np.shape(ns[name])
        if shape != wanted:
            return "fail", (
                f"{name} has shape {shape}; v1 computes X @ {name}, so it needs {wanted}: "
                "the layer stores its weight the other way round."
            )
    got = projections.self_attention(X, *(np.asarray(ns[name]) for name in names))[2]
    error = float(np.max(np.abs(got - expected)))
    if error > 1e-12:
        return "fail", (
            f"The shapes are right but v1's output differs from v2's by up to {error:.3g}: "
            "check that the query layer's weight went to W_query, and so on."
        )
    return "pass", (
        f"Right: with each layer's weight transposed, v1 gives v2's {len(X)} context vectors "
        f"exactly (largest difference {error:.1g})."
    )


def check_two_dimensional(ns: dict) -> tuple[str, str]:
    """3.2: the wrapper with two heads, its output two numbers per token."""
    import numpy as np

    from attention import heads
    from attention.fixtures import book_inputs

    X = book_inputs()
    wanted = (X.shape[0], 2)
    if ns.get("num_heads") != 2 or len(ns.get("head_weights", ())) != 2:
        return "fail", "Keep two heads: the exercise changes only how wide each one is."
    if "context" not in ns:
        return "fail", "Your code does not define context, the wrapper's output."
    shape = np.shape(ns["context"])
    if shape != wanted:
        return "fail", f"Your output has shape {shape}; the exercise wants {wanted}."
    expected = heads.multihead_wrapper(X, ns["head_weights"])
    if not np.array_equal(ns["context"], expected):
        return "fail", "context has the right shape but is not the wrapper's output."
    return "pass", (
        f"Right: two heads of width {wanted[1] // 2}, concatenated, give {wanted[1]} numbers "
        "per token."
    )


def check_gpt2_size(ns: dict) -> tuple[str, str]:
    """3.3: a multi-head module at GPT-2 small's sizes, and its parameter count."""
    from attention import heads
    from attention.fixtures import GPT2_CONTEXT, GPT2_EMBED

    wanted = {
        "num_heads": heads.GPT2_HEADS,
        "d_in": GPT2_EMBED,
        "d_out": GPT2_EMBED,
        "context_length": GPT2_CONTEXT,
    }
    for name, value in wanted.items():
        if ns.get(name) != value:
            return "fail", f"{name} is {ns.get(name)!r}; GPT-2 small's is {value:,}."
    counts = heads.param_counts(GPT2_EMBED, GPT2_EMBED, heads.GPT2_HEADS)
    expected = counts.split + counts.out_proj
    if ns.get("n_params") != expected:
        return "fail", f"n_params is {ns.get('n_params')!r}; at these sizes it is {expected:,}."
    return "pass", (
        f"Right: {heads.GPT2_HEADS} heads of width {heads.head_dim(GPT2_EMBED, heads.GPT2_HEADS)}, "
        f"{expected:,} parameters in the query, key, value and output projections."
    )


_TRANSFER_STARTER = '''\
import numpy as np
from attention import torch_rng
from attention.fixtures import book_inputs

X = book_inputs()  # (6, 3)

# SelfAttention_v2's three nn.Linear layers store their weights as (d_out, d_in) = (2, 3)
# and compute X @ weight.T:
layer_q, layer_k, layer_v = (W.T for W in torch_rng.weights_section_3_5())


def self_attention_v1(X, W_query, W_key, W_value):
    """SelfAttention_v1: plain (d_in, d_out) matrices, used as X @ W."""
    Q, K, V = X @ W_query, X @ W_key, X @ W_value
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V


# Give v1 the layers' weights, so that it computes what v2 computes:
W_query, W_key, W_value = layer_q, layer_k, layer_v
self_attention_v1(X, W_query, W_key, W_value).round(4)
'''

_WIDTH_STARTER = """\
from attention import heads, torch_rng
from attention.fixtures import book_inputs

X = book_inputs()  # (6, 3)
num_heads = 2
d_out = 2  # the width of each head

generator = torch_rng.stream(torch_rng.SEED_3_4)
head_weights = [
    tuple(torch_rng.rand(generator, (X.shape[1], d_out)) for _ in range(3))
    for _ in range(num_heads)
]
context = heads.multihead_wrapper(X, head_weights)
context.shape
"""

_GPT2_STARTER = """\
from attention import heads

# The book's toy sizes. Make them GPT-2 small's.
d_in, d_out, num_heads, context_length = 3, 2, 2, 6

counts = heads.param_counts(d_in, d_out, num_heads)  # no bias on the query, key, value
n_params = counts.split + counts.out_proj  # the three projections and the output one
print(f"head_dim = {heads.head_dim(d_out, num_heads)}, parameters = {n_params:,}")
"""

EXERCISES = (
    Exercise(
        number="3.1",
        title="Same output from both classes",
        task="The first class holds its weights as plain matrices; the second builds them "
        "from linear layers, initialised otherwise. Give the first class the second's "
        "weights so that both compute the same context vectors.",
        starter=_TRANSFER_STARTER,
        hint="A linear layer keeps its weight as (d_out, d_in) and multiplies by its "
        "transpose. Which shape does X @ W need?",
        solution=_TRANSFER_STARTER.replace(
            "= layer_q, layer_k, layer_v", "= layer_q.T, layer_k.T, layer_v.T"
        ),
        check=check_transfer,
    ),
    Exercise(
        number="3.2",
        title="Two heads, two numbers per token",
        task="The wrapper concatenates its heads, so two heads of width 2 give four numbers per "
        "token. Keep the two heads, and make the output two-dimensional per token.",
        starter=_WIDTH_STARTER,
        hint="The wrapper's width is the number of heads times the width of each.",
        solution=_WIDTH_STARTER.replace("d_out = 2  #", "d_out = 1  #"),
        check=check_two_dimensional,
    ),
    Exercise(
        number="3.3",
        title="GPT-2 small's attention",
        task=f"Set the sizes of the smallest GPT-2: {GPT2_HEADS} heads, inputs and outputs "
        f"{GPT2_EMBED} wide, a context of {GPT2_CONTEXT:,} tokens. How many parameters does its "
        "attention module have?",
        starter=_GPT2_STARTER,
        hint="Only the four sizes change; the count follows from them.",
        solution=_GPT2_STARTER.replace(
            "= 3, 2, 2, 6", f"= {GPT2_EMBED}, {GPT2_EMBED}, {GPT2_HEADS}, {GPT2_CONTEXT}"
        ),
        check=check_gpt2_size,
    ),
)


def by_number(number: str) -> Exercise:
    """The exercise numbered ``number`` ("3.1")."""
    for exercise in EXERCISES:
        if exercise.number == number:
            return exercise
    raise ValueError(f"no exercise {number!r}; there are {[e.number for e in EXERCISES]}")
