"""Post 1: every number the source post quotes in sections 01-07, rendered from the core."""

import re
from html import unescape

import numpy as np
import pytest

import build
from attention.basics import loop_scores, matmul_scores, max_abs_difference
from attention.fixtures import book_inputs
from figures import flat_weights, loop_matmul
from formatting import sci
from pages import post1
from tests.pages.render import render, snippet_outputs

TEMPLATE = build.ROOT / "templates" / post1.TEMPLATE

# What the source post quotes, section by section (expected values, not inputs to the page).
SOURCE = {
    "intro, chapter 2: '50,257 by 256 ... [8, 4, 256] ... 12,865,792'": [
        "50,257", "256", "[8, 4, 256]", "12,865,792"
    ],
    "01, unrolled depths: 'through 20 layers ... goes through 500'": ["20", "500"],
    "01, 'At five layers and a hundred steps the comparison is 500 against 5'": ["500", "5"],
    "01, 'for a sigmoid that factor is at most 0.25'": ["0.25"],
    "02, 'The fix arrived in 2014'": ["2014"],
    "03, the scores for journey": ["[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]"],
    "03, the weights for journey": ["[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"],
    "03, the context vector for journey": ["[0.4419, 0.6515, 0.5683]"],
    "04, divide by the sum": ["[0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]"],
    "04, 'all 36 dot products are too'": ["36"],
    "04, 'from 0.77 to -0.77 ... becomes -0.2046'": ["0.77", "-0.77", "-0.2046"],
    "04, 'row sum of 3.7978 ... -0.0539 ... 0.0669 ... 1.000'": [
        "3.7978", "-0.0539", "0.0669", "1.000",
    ],
    "04, 'a denominator of 0.0100 producing a weight of 90'": ["0.0100", "90"],
    "05, '36 dot products and 108 multiplications'": ["36", "108"],
    "05, 'when T goes from 6 to 1,024'": ["1,024"],
    "05, 'the largest gap between alpha_ij and alpha_ji is 0.087657'": ["0.087657"],
    "05, 'embedding size of 768 ... 805,306,368 multiply-accumulates'": ["768", "805,306,368"],
    "06, dynamic range": ["0.2379", "0.0988", "0.1667", "2.408"],
    "06, entropy ceiling 'log2 6 = 2.585'": ["2.585"],
    "06, row entropies": ["2.549", "2.519", "2.521", "2.560", "2.564", "2.534"],
    "06, 'between 97.4% and 99.2% ... 0.066 bits'": ["97.4%", "99.2%", "0.066"],
    "06, 'no context vector moves more than 0.080'": ["0.080"],
    "06, spread: '0.6576 apart ... 0.0482 apart, 7.3%'": ["0.6576", "0.0482", "7.3%"],
    "06, longest vectors: 'norms 1.2227 and 1.2071'": ["1.2227", "1.2071"],
    "06, 'beating journey by 0.0093'": ["0.0093"],
    "06, 'with, the shortest vector at norm 0.7026 ... a weight of 0.687'": ["0.7026", "0.687"],
    "06, cosine: 'from 2.5413 bits to 2.5673 against the same 2.5850 ceiling'": [
        "2.5413", "2.5673", "2.5850",
    ],
    "06, 'Row 5 ... falling from 2.5642 to 2.5577'": ["2.5642", "2.5577"],
    "07, 'after 2019'": ["2019"],
}  # fmt: skip


@pytest.fixture(scope="module")
def html() -> str:
    return render(post1)


def visible_text(html: str) -> str:
    """The page as a reader sees it: no scripts (the figures' data), no templates, no tags."""
    html = re.sub(r"<(script|template)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


def prose(html: str) -> str:
    """The visible text outside code, code output and figures: what the sentences say."""
    html = re.sub(r"<(pre|figure)\b.*?</\1>", " ", html, flags=re.S)
    return visible_text(html)


@pytest.mark.parametrize("passage", SOURCE)
def test_every_number_the_source_quotes_is_on_the_page(html, passage):
    text = prose(html)
    for number in SOURCE[passage]:
        assert re.search(rf"(?<![\d.,]){re.escape(number)}(?![\d]|[.,]\d)", text), (
            f"{passage}: {number} missing from the prose"
        )


def test_context_values_are_the_sources():
    """The same numbers, key by key, so a wrong key cannot hide behind a right digit elsewhere."""
    n = post1.context()
    assert (n["small_depth"], n["large_depth"], n["large_attention"]) == ("20", "500", "5")
    assert n["sigmoid_max"] == "0.25"
    assert (n["T"], n["d"], n["n_numbers"]) == ("6", "3", "18")
    assert n["journey_context"] == "[0.4419, 0.6515, 0.5683]"
    assert (n["negative_score"], n["negative_denominator"]) == ("-0.2046", "3.7978")
    assert (n["negative_weight"], n["negative_softmax"]) == ("-0.0539", "0.0669")
    assert (n["near_denominator"], n["near_weight"]) == ("0.0100", "90")
    assert n["all_scores_positive"]
    assert (n["score_symmetry"], n["weight_symmetry"]) == ("0", "0.087657")
    assert n["score_symmetry_exact"]
    assert n["gpt2_multiplies"] == "805,306,368"
    assert n["row_entropies"] == ["2.549", "2.519", "2.521", "2.560", "2.564", "2.534"]
    assert (n["nearest"], n["longest"], n["shortest"]) == ("starts", "journey and starts", "with")
    assert (n["rows_to_longest"], n["first_row"]) == ("five of the six", "first")
    assert (n["first_token"], n["first_top"], n["first_runner_up"]) == ("Your", "Your", "journey")
    assert (n["scale_example"], n["scaled_wins"], n["scaled_self"]) == ("three", "all six", "0.687")
    assert (n["rows_flatter"], n["exception_row"], n["exception_token"]) == (
        "five of the six",
        "fifth",
        "one",
    )


def code_outputs(html: str) -> list[str]:
    return snippet_outputs(html)


def test_printed_outputs_come_from_running_the_code(html):
    outputs = code_outputs(html)
    assert len(outputs) == 7  # every snippet printed something
    assert "context [0.4419 0.6515 0.5683]" in outputs[1]
    assert "-0.0539" in outputs[2]
    assert outputs[3].splitlines()[0] == "[nan nan]"
    assert "journey's row: [0.4419 0.6515 0.5683]" in outputs[5]
    assert "weight asymmetry: 0.087657" in outputs[5]
    assert outputs[6] == "[2.549, 2.519, 2.521, 2.560, 2.564, 2.534] ceiling 2.585"


def test_code_prints_the_proses_digits(html):
    """A quantity the prose quotes prints in the code's output with the same digits."""
    n = post1.context()
    outputs = code_outputs(html)
    assert f"     one  [{n['one_first']}, " in outputs[0]
    assert f"scores  {n['journey_scores'].replace(',', '')}" in outputs[1]
    assert f"weights {n['journey_weights'].replace(',', '')}" in outputs[1]
    assert f"context {n['journey_context'].replace(',', '')}" in outputs[1]
    assert f" {n['negative_weight']} " in outputs[2]
    assert outputs[2].count(f"total {n['negative_total']}") == 2
    assert f"score asymmetry:  {n['score_symmetry']}\n" in outputs[5]
    assert f"weight asymmetry: {n['weight_symmetry']}" in outputs[5]
    entropies = ", ".join(n["row_entropies"])
    assert outputs[6] == f"[{entropies}] ceiling {n['ceiling']}"


def test_sections_01_to_07_have_headings(html):
    headings = re.findall(r"<h2 id=\"[^\"]+\">(\d\d) ·", html)
    assert headings == [f"{k:02d}" for k in range(1, 8)]


def test_no_number_is_typed_into_the_prose_of_the_template():
    """Digits in the prose may only name things: the book's chapters and its section 3.3, this
    post's sections 01-07, float64, GPT-2. Every quantity comes from the page's context or from code
    run at build time. Math is notation (log_2, T^2, k = 1), so it is left out; its values,
    like T = 6, come from the context too."""
    source = TEMPLATE.read_text()
    source = re.sub(r"{% call snippet\(\) %}.*?{% endcall %}", " ", source, flags=re.S)
    source = re.sub(r"{{.*?}}|{%.*?%}", " ", source, flags=re.S)
    source = re.sub(r"\$\$.*?\$\$|\$.*?\$", " ", source, flags=re.S)
    source = re.sub(r"<h2 id=\"[^\"]+\">\d\d ·|<[^>]+>", " ", source)
    names = r"[Cc]hapter \d\b|section (?:0\d|3\.3)\b|exercise 3\.3\b|float64|GPT-2"
    source = re.sub(names, " ", source)
    assert re.findall(r"\d", source) == []


def test_loop_against_matmul_is_one_fact(html):
    """Section 05 states the loop's distance from the matmul once: the code's output, the
    prose and the figure's readout (run by the same numpy as the build) print the same digits."""
    X = book_inputs()
    gap = sci(max_abs_difference(loop_scores(X), matmul_scores(X)))
    n = post1.context()
    assert n["loop_vs_matmul"] == gap
    (printed,) = [o for o in code_outputs(html) if "largest difference" in o]
    assert printed == f"(6, 6) largest difference: {gap}"
    full = loop_matmul.State(loop_matmul.CELLS, True)
    shown = {key: text for key, _, text in loop_matmul.readouts(full)}
    assert shown["gap"] == gap
    text = prose(html)
    assert f"{n['loop_cells_differ']} of the 36 scores differ {n['loop_by']}" in text
    assert f"so the code prints {gap}." in text
    assert "may well agree exactly" not in text


def test_the_last_bit_explanation_holds():
    """The prose's reason: the loop rounds each product and then adds, left to right; the
    matmul may fuse or reorder, by at most the units in the last place the prose quotes; and a
    numpy that adds the rounded products in the loop's order (as the browser's does) gets 0."""
    X = book_inputs()
    loop, matmul = loop_scores(X), matmul_scores(X)
    in_order = np.array([[(a[0] * b[0] + a[1] * b[1]) + a[2] * b[2] for b in X] for a in X])
    assert np.array_equal(loop, in_order)
    assert sci(max_abs_difference(loop, in_order)) == post1.context()["exact_zero"] == "0.0e+0"
    ulps = np.abs(loop - matmul) / np.spacing(np.abs(matmul))
    assert ulps.max() == int(post1.context()["loop_ulps"]) or not np.any(loop != matmul)
    assert (post1.context()["loop_by"] == "in the last bit") == (ulps.max() <= 1)


def test_nearest_inputs_agree_with_the_flat_weights_caption(html):
    """Section 06 and the flat-weights figure's caption: the context vectors huddle around the
    flat average, all six nearest one input, which is not the input nearest the average; the
    prose says softmax pulls them towards it, and by how much."""
    n = post1.context()
    assert (n["nearest"], n["flat_nearest"]) == ("starts", "with")
    assert n["nearest"] != n["flat_nearest"]  # else "enough to change the answer" is false
    assert n["pulled_towards_nearest"]
    assert float(n["near_farthest"]) < float(n["flat_to_nearest"])
    assert float(n["flat_nearest_distance"]) < float(n["flat_to_nearest"])
    assert "huddled around the average" in flat_weights.CAPTION
    text = re.sub(r"\s+", " ", prose(html))
    assert f"no context vector is more than {n['max_shift']} from it" in text
    assert f"The average on its own is nearest to {n['flat_nearest']} (" in text
    assert "(The flat average itself sits nearest to" not in text
