"""A GPT writing in the reader's browser, post 3's section 11."""

from attention import gpt
from formatting import integer, num, percent


def context() -> dict:
    """Section 11: the small GPT, the work each way for the figure's default, and the bonus
    material's measurement."""
    small, prompt, n = gpt.SMALL, len(gpt.encode(gpt.EXAMPLE_PROMPT)), gpt.EXAMPLE_TOKENS
    work = {
        way: gpt.total_work(small, prompt, n, way == "cached") for way in ("cached", "uncached")
    }
    rates = gpt.BONUS_TOKENS_PER_SECOND
    book = {
        way: gpt.total_work(
            gpt.BOOK_124M, gpt.BONUS_PROMPT_TOKENS, gpt.BONUS_NEW_TOKENS, way == "cached"
        )
        for way in ("cached", "uncached")
    }
    first = gpt.work_per_token(small, prompt, n, cached=True)[0]
    return {
        "gpt_book_params": integer(gpt.parameters(gpt.BOOK_124M)),
        "gpt_book_tied": integer(  # the output head shared with the token embedding
            gpt.parameters(gpt.BOOK_124M) - gpt.BOOK_124M.vocab * gpt.BOOK_124M.width
        ),
        "gpt_layers": integer(small.layers),
        "gpt_heads": integer(small.heads),
        "gpt_width": integer(small.width),
        "gpt_context": integer(small.context),
        "gpt_vocab": integer(small.vocab),
        "gpt_params": integer(gpt.parameters(small)),
        "gpt_prompt": gpt.EXAMPLE_PROMPT,
        "gpt_prompt_tokens": integer(prompt),
        "gpt_tokens": integer(n),
        "gpt_work_cached": integer(work["cached"]),
        "gpt_work_uncached": integer(work["uncached"]),
        "gpt_work_ratio": num(work["uncached"] / work["cached"], 1),
        "gpt_prompt_share": percent(first / work["cached"], 0),
        "gpt_bonus_without": integer(rates["without"]),
        "gpt_bonus_with": integer(rates["with"]),
        "gpt_bonus_ratio": num(rates["with"] / rates["without"], 1),
        "gpt_bonus_tokens": integer(gpt.BONUS_NEW_TOKENS),
        "gpt_bonus_prompt": integer(gpt.BONUS_PROMPT_TOKENS),
        "gpt_bonus_work_ratio": num(book["uncached"] / book["cached"], 0),
    }
