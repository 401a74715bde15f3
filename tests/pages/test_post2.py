"""Post 2's page: every number the source post quotes, computed, and present on the page.

Exact numbers are compared with the post's printed digits. Monte-Carlo numbers come from the
figures' fixed seeds, so they differ from the post's own single sample: they are checked
against bounds from the sampling error instead. The rendered page (prose, code output and the
figures' pre-render) must contain all of them.
"""

import html as html_lib
import json
import math
import re
from pathlib import Path

import jinja2
import numpy as np
import pytest

import build
from attention.dropout import BOOK_RATE
from attention.masking import book_causal_weights
from attention.scaling import N_DRAWS, N_KEYS, SWEEP_D_KS, dk_sweep
from layoutkit.document import view_of
from pages import post2
from sitebuild import glossary
from tests.figures import probe
from tests.pages.render import render, snippet_outputs

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "templates" / post2.TEMPLATE
N = post2.context()

# (context key, the post's printed value, the passage it comes from)
EXACT = [
    ("post1_dot_products", "36", "intro: 36 dot products"),
    ("post1_journey_context", "[0.4419, 0.6515, 0.5683]", "intro: the context vector for journey"),
    ("post1_spread_in", "0.6576", "intro: the inputs sat 0.6576 apart"),
    ("post1_spread_out", "0.0482", "intro: the outputs 0.0482"),
    ("post1_spread_ratio", "7.3%", "intro: 7.3% of the spread"),
    ("post1_nearest", "starts", "intro: all six nearest the same embedding, starts"),
    ("journey_starts_score", "1.4754", "intro: journey and starts, 1.4754"),
    ("seed_3_4", 123, "intro: torch.manual_seed(123)"),
    ("seed_3_5", 789, "intro: torch.manual_seed(789)"),
    ("d_in", 3, "intro: every matrix is 3 by 2"),
    ("d_out", 2, "intro: every matrix is 3 by 2"),
    ("score_error_none", "0 (exact)", "01: with no matrices the score error is exactly 0"),
    ("score_error_tied", "0 (exact)", "01: tie W_q to W_k and it walks back to 0"),
    ("weight_error_none", "0.0634", "01: a weight error of 0.0634"),
    ("journey_to_starts", "0.2134", "01: journey gives starts 0.2134"),
    ("starts_to_journey", "0.2157", "01: and gets back 0.2157"),
    ("root_d_out", "1.4142", "02: Divide by 1.4142"),
    ("counter_in", "[1.0, 2.0, 3.0, 0.0, 0.0]", "03: softmax([1.0, 2.0, 3.0, 0.0, 0.0])"),
    ("counter_out", "[0.0844, 0.2295, 0.6239, 0.0311, 0.0311]", "03: the counterexample"),
    ("naive_first", "0.1921", "03: post-softmax weights, first entry 0.1921"),
    ("efficient_first", "0.2899", "03: pre-scale scores, first entry 0.2899"),
    ("row1", "1.0000", "03: row 1 collapses to 1.0000"),
    ("row2", "[0.5517, 0.4483]", "03: row 2"),
    ("row3", "[0.3800, 0.3097, 0.3103]", "03: row 3"),
    ("leak", "0.8029", "03: the first token hands 0.8029 to the future"),
    ("rate", "0.5", "04: at a rate of 0.5"),
    ("survivor", "2", "04: survivors multiplied by 1/0.5 = 2"),
    ("gpt_rates", "0.1 or 0.2", "04: a real GPT run uses 0.1 or 0.2"),
    ("gpt3_heads", 96, "05: GPT-3 has 96 of them"),
    ("wrapper_shape", "[2, 6, 4]", "05: the printed shapes [2, 6, 4]"),
    ("split_shape", "[2, 6, 2]", "05: against [2, 6, 2]"),
    ("book_head_dim", 1, "05: d_out = 2 with num_heads = 2 gives head_dim = 1"),
    ("gpt2_divisor", "8", "05: GPT-2 divides by 8"),
    ("gpt2_wrong_divisor", "27.7", "05: not by 27.7"),
    ("gpt2_width", "768", "05: 768 dimensions"),
    ("gpt2_heads", 12, "05: over 12 heads"),
    ("gpt2_head_dim", 64, "05: is head_dim 64"),
    ("ref_tokens", "1,024", "06: at 1,024 tokens"),
    ("small_bytes", "2 MiB", "06: one head's matrix is 2 MiB"),
    ("window_tokens", "1,047,576", "06: GPT-4.1's window of 1,047,576 tokens"),
    ("window_bytes", "2,194,830,951,552", "06: 2,194,830,951,552 bytes"),
    ("window_tib", "2", "06: about 2 TiB"),
    ("his_cards", "25", "06: 25 H100 cards"),
    ("card_gib", 80, "06: at 80 GiB each"),
    ("cards", "26", "06: the exact ceiling is 26"),
    ("card_ratio", "25.55", "06: the ratio is 25.55"),
    ("ref_seconds", "0.1", "06: 0.1 s per token at 1k"),
    ("rounded_ratio", "1,000", "06: rounds the length ratio to a clean thousand"),
    ("his_hours", "28", "06: about 28 hours per token"),
    ("seconds", "104,658", "06: 104,658 seconds"),
    ("hours", "29.07", "06: or 29.07 hours"),
    ("block_attention", "2,360,064", "07: 2,360,064 parameters on attention"),
    ("block_feed_forward", "4,722,432", "07: 4,722,432 on the feed-forward"),
]


@pytest.mark.parametrize(("key", "printed", "passage"), EXACT, ids=[e[0] for e in EXACT])
def test_exact_numbers_match_the_post(key, printed, passage):
    assert N[key] == printed, passage


def test_score_error_with_separate_matrices_is_not_zero():
    # Section 01: "Only two genuinely different matrices break it".
    assert float(N["score_error_separate"]) > 0.0


def test_mask_routes_differ_by_rounding_only():
    # Section 03: "The largest disagreement anywhere is 5.6e-17, which is float64 noise"; the
    # notes: up to about 2.2e-16 depending on operation order.
    assert float(N["max_difference"]) <= 4.5e-16


# --- Monte-Carlo numbers: the figures' fixed seeds, checked against the sampling error -----------

POPULATION = dk_sweep(SWEEP_D_KS, n_draws=20_000, seed=12345)


def _value(text: str) -> float:
    return float(text.rstrip("%")) / (100 if text.endswith("%") else 1)


@pytest.mark.parametrize("d_k", post2.SPREAD_WIDTHS)
def test_sampled_spread_tracks_sqrt_dk(d_k):
    # Section 02: "reading 7.890 against 8 at d_k = 64 and 63.5 against 64 at 4,096".
    n_keys = N_KEYS
    relative = 4 * 0.5 * math.sqrt(((1 + 2 / d_k) * (1 + 2 / n_keys) - 1) / N_DRAWS)
    std = _value(N[f"std_{d_k}"])
    assert abs(std / math.sqrt(d_k) - 1) < relative + 0.001


@pytest.mark.parametrize("d_k", post2.PROSE_WIDTHS)
def test_medians_are_plausible_medians_of_a_few_hundred_draws(d_k):
    # Section 02: "0.220 at d_k = 2 to 0.022 at 64 to 3.1e-6 at 768 to 4.8e-14 at 4,096". A median
    # of N_DRAWS draws has half the population below it, up to the binomial error.
    median = _value(N[f"median_{d_k}"])
    share_below = np.mean(POPULATION[(d_k, False)].peaks < median)
    assert abs(share_below - 0.5) < 4 * math.sqrt(0.25 / N_DRAWS) + 4 * math.sqrt(0.25 / 20_000)


def test_scaled_medians_sit_near_0_23():
    # Section 02: "the scaled column sits flat near 0.23 the whole way".
    assert 0.2 <= _value(N["scaled_low"]) <= _value(N["scaled_high"]) <= 0.26


@pytest.mark.parametrize("d_k", [2, 4096])
def test_means_are_plausible(d_k):
    # Section 02: "The mean ... falls only from 0.208 to 0.0063".
    peaks = POPULATION[(d_k, False)].peaks
    bound = 4 * np.std(peaks) / math.sqrt(N_DRAWS)
    assert abs(_value(N[f"mean_{d_k}"]) - np.mean(peaks)) < bound
    assert abs({2: 0.208, 4096: 0.0063}[d_k] - np.mean(peaks)) < bound  # the post's own sample


def test_about_a_third_of_draws_stay_live_at_768():
    # Section 02: "at d_k = 768 with no divisor about a third of draws still have a live Jacobian".
    live = _value(N["live_768"])
    assert abs(live - 1 / 3) < 4 * math.sqrt((1 / 3) * (2 / 3) / N_DRAWS) + 0.005


def test_dropout_numbers_are_plausible():
    # Section 04 (the source's run): "Over 20,000 draws here it happens 49.5% of the time, and
    # row 2 ... dies on a quarter of them"; "the mean row sum ... walks to 0.998; with it off,
    # to 0.499". The page's run has its own draws; each share is within four standard errors.
    n = int(N["dropout_draws"].replace(",", ""))
    assert abs(_value(N["dead_row1"]) - 0.5) < 4 * math.sqrt(0.25 / n) + 0.0005
    assert abs(_value(N["dead_row2"]) - 0.25) < 4 * math.sqrt(0.1875 / n) + 0.0005
    weights = book_causal_weights()
    p = BOOK_RATE
    for key, factor, expected in (
        ("mean_sum_scaled", p / (1 - p), 1.0),
        ("mean_sum_unscaled", p * (1 - p), 1 - p),
    ):
        sd = math.sqrt(factor * np.sum(weights**2) / (weights.shape[0] ** 2 * n))
        assert abs(_value(N[key]) - expected) < 4 * sd + 0.0005, key


def test_dropout_prose_reads_the_figures_default_run():
    # "In the figure's default run of ... passes": the reader who opens the figure sees them.
    view = view_of("dropout")
    shown = probe.readouts(view)
    assert shown["run"].endswith(f"· {N['dropout_draws']}")
    assert (shown["row-1-dead"], shown["row-2-dead"]) == (N["dead_row1"], N["dead_row2"])
    assert shown["mean-row-sum"] == N["mean_sum_scaled"]
    probe.widgets(view)["Scale survivors by 1/(1 − p)"].value = False
    assert probe.readouts(view)["mean-row-sum"] == N["mean_sum_unscaled"]


# --- the page ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def html() -> str:
    return render(post2)


def _text(html: str) -> str:
    """The page's visible text, tags removed and entities decoded, spaces collapsed."""
    body = re.sub(r"<script\b.*?</script>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", body)))


@pytest.mark.parametrize(("key", "printed", "passage"), EXACT, ids=[e[0] for e in EXACT])
def test_every_exact_number_is_on_the_page(html, key, printed, passage):
    assert str(printed) in _text(html), passage


def test_every_number_in_the_context_is_printed(html):
    text = _text(html)
    missing = [k for k, v in N.items() if str(v) not in text]
    assert missing == []


def test_numbers_appear_in_their_sentences(html):
    text = _text(html)
    assert f"{N['journey_to_starts']} and gets back {N['starts_to_journey']}" in text
    assert (
        f"{N['journey_denominator']} for journey and {N['starts_denominator']} for starts" in text
    )
    assert f"the divisor is {N['gpt2_divisor']}, not {N['gpt2_wrong_divisor']}" in text
    assert f"the first token gives {N['leak']} of its attention" in text
    assert f"{N['window_bytes']} bytes, about {N['window_tib']} TiB" in text
    assert f"{N['seconds']} seconds, {N['hours']} hours" in text
    assert f"the ratio is in fact {N['card_ratio']}, so {N['cards']} cards" in text


def _prerender(html: str) -> str:
    """The figures' pre-rendered document, decoded to plain text (HTML panes unescaped)."""
    data = re.search(r'<script type="application/json" id="prerender">(.*?)</script>', html, re.S)
    return html_lib.unescape(json.dumps(json.loads(data.group(1)), ensure_ascii=False))


def test_the_weight_sets_are_named_where_they_are_used(html):
    text, figures = _text(html), _prerender(html)
    assert "first seeds PyTorch with 123 and draws three matrices with torch.rand(3, 2)" in text
    assert "seeds with 789 and builds SelfAttention_v2(3, 2)" in text
    assert "class seeds with 123 again, and so do section 3.6's multi-head classes" in text
    assert "reads the same 18 numbers from the generator as section 3.4's torch.rand" in text
    assert "section 01 uses the first set, sections 03 and 04 the second, and section 05" in text
    assert "seed 123, three draws of torch.rand(3, 2) (section 3.4)" in figures  # three-modes
    assert figures.count("seed 789, SelfAttention_v2(3, 2) (section 3.5)") == 2  # masking, dropout
    assert "nn.Linear's initial weights after seed 123" in figures  # heads


def test_the_figures_pre_render_the_posts_default_numbers(html):
    figures = _prerender(html)
    for readout in (
        'data-readout="weight-error">0.0634<',
        'data-readout="leak">0.0000<',
        f'data-readout="tokens">{N["ref_tokens"]}<',  # "At 1,024 tokens": where cost starts
        'data-readout="split-shape">[2, 6, 2]<',
    ):
        assert readout in figures, readout


def test_code_snippets_print_their_results(html):
    outputs = snippet_outputs(html)
    assert len(outputs) == 7
    joined = " ".join(outputs)
    assert "0.2996 0.8053" in joined  # the book's printed context vectors of section 3.4
    assert "2,194,830,951,552 bytes = 25.55 cards, so 26 cards" in joined
    assert "104,658 s = 29.07 h per token" in joined
    assert "round trip exact: True" in joined


def test_code_prints_the_proses_digits(html):
    """A quantity the prose quotes prints in the code's output with the same digits."""
    outputs = snippet_outputs(html)
    row1, row2, row3 = (N[k].replace(",", "") for k in ("row1", "row2", "row3"))
    assert outputs[3].startswith(f"[[{row1} ")
    assert f"\n [{row2[1:-1]} " in outputs[3] and f"\n [{row3[1:-1]} " in outputs[3]
    assert f"largest difference: {N['max_difference']}" in outputs[3]
    assert f"divide the scores by {N['gpt2_divisor']}\n" in outputs[5]
    assert f"sqrt(d_k) {N['root_64']:>4}\n" in outputs[2]
    cards = f"{N['window_bytes']} bytes = {N['card_ratio']} cards, so {N['cards']} cards"
    assert cards in outputs[6]
    assert f"{N['seconds']} s = {N['hours']} h per token" in outputs[6]


def test_sections_01_to_07_have_headings(html):
    headings = re.findall(r"<h2[^>]*>(\d\d) ·", html)
    assert headings == ["01", "02", "03", "04", "05", "06", "07"]


def test_no_number_is_typed_into_the_prose():
    """Outside code, math and Jinja expressions, the template quotes no number.

    Names are not quantities: section labels (01 ·, section 3.4), model and type names (GPT-2,
    float64, SelfAttention_v2) and ordinals of rows and heads. The constants 0 and 1 of plain
    mathematical statements (sums to 1, variance 1) are allowed; anything else must come from
    the page's context.
    """
    source = TEMPLATE.read_text()
    prose = re.sub(r"{% call code\(\) %}.*?{% endcall %}", " ", source, flags=re.S)
    prose = re.sub(r"{{.*?}}|{%.*?%}|\$\$.*?\$\$|\$.*?\$|<[^>]+>", " ", prose, flags=re.S)
    names = (
        r"\b0\d ·|sections? (3\.\d|0\d)( and (3\.\d|0\d))?|GPT-(2|3|4\.1)|float64"
        r"|SelfAttention_v2|H100|\b(row|head) \d\b"
    )
    prose = re.sub(names, " ", prose, flags=re.I)
    numbers = re.findall(r"[\d.,]*\d", prose)
    assert set(numbers) <= {"0", "1"}, numbers


def test_a_missing_number_fails_the_build():
    env = build.environment(ROOT / "templates")
    with pytest.raises(jinja2.UndefinedError):
        env.get_template(post2.TEMPLATE).render(
            page=post2,
            n={},
            base="/",
            url=str,
            posts=[],
            prev=None,
            next=None,
            figure=str,
            code=lambda: "",
            term=glossary.renderer("/"),
        )


def test_the_weights_asymmetry_is_the_ratio_of_the_two_denominators():
    # Section 01: "journey hands starts 0.2134 and gets back 0.2157: the same exponential over
    # two row totals, 13.30 for journey and 13.16 for starts".
    given = _value(N["journey_to_starts"]) / _value(N["starts_to_journey"])
    D = _value(N["starts_denominator"]) / _value(N["journey_denominator"])
    assert abs(given - D) < 1e-3


def test_dropout_wipes_the_first_row_to_the_zero_vector():
    # Section 04, as the source has it: the zero vector, not "no vector at all".
    text = _text(render(post2))
    assert "context vector is the zero vector on half of all training passes" in text
    assert "no vector" not in text


def test_the_seed_warning_is_given_once():
    text = _text(render(post2))
    assert text.count("Which weights, where.") == 1
    assert "A last practical warning" not in text
    assert "never meant to agree" in text
