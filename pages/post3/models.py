"""The table of the models post 3 computes with, each linked to its source."""

from attention.models import DEEPSEEK_V2, GPT2_SMALL, INTERLEAVED, MODELS
from formatting import integer, words


def context() -> dict:
    """The table of the models the post computes with, each linked to its source."""
    rows = [
        {
            "name": m.name,
            "source": m.source,
            "layers": integer(m.layers),
            "heads": integer(m.heads),
            "kv_heads": integer(m.kv_heads),
            "head_dim": integer(m.head_dim),
            "context": integer(m.context),
            "context_source": m.context_source,
            "bytes": integer(m.bytes_per_value),
            "ffn": integer(m.ffn) if m.ffn else "",
            "vocab": integer(m.vocab) if m.vocab else "",
        }
        for m in (*MODELS, *INTERLEAVED)
    ]
    ds = DEEPSEEK_V2
    rows.append(
        {
            "name": ds.name,
            "source": ds.source,
            "layers": integer(ds.layers),
            "heads": integer(ds.heads),
            "kv_heads": f"latent of {integer(ds.kv_latent)}",
            "head_dim": integer(ds.head_dim),
            "context": integer(ds.context),
            "context_source": ds.context_source,
            "bytes": integer(ds.bytes_per_value),
            "ffn": "",
            "vocab": "",
        }
    )
    from_papers = [m.name for m in (*MODELS, *INTERLEAVED, DEEPSEEK_V2) if m.context_source]
    return {
        "models": rows,
        "gpt2_layers": integer(GPT2_SMALL.layers),
        "paper_context_models": words(from_papers),
    }
