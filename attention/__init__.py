"""Self-attention in float64 numpy: every number the explainer shows.

Each module is one stage of chapter 3 of Raschka's *Build a Large Language Model (From
Scratch)*, written as small pure functions over arrays, with shapes in every docstring:

- ``fixtures``: the book's six tokens and their 6x3 embeddings, plus presets.
- ``basics``: scores, softmax, context vectors; the loop against the matmul (section 3.3).
- ``depth``: how far back a gradient walks, recurrent against attention.
- ``analysis``: what parameter-free attention does: entropy, spread, norms, cosine.
- ``torch_rng``: PyTorch's CPU generator in numpy, so the book's seeded weights are derived.
- ``projections``: Q, K, V and scaled dot-product attention (section 3.4).
- ``scaling``: why the scores are divided by sqrt(d_k): the softmax Jacobian.
- ``masking``: the causal mask, both ways, and the wrong one (section 3.5).
- ``dropout``: inverted dropout on the attention weights.
- ``heads``: multi-head attention, as a list of heads and as one split projection (3.6).
- ``cost``: what the n x n score matrix costs in bytes, cards and time.
- ``models``: published configurations of real models (GPT-2, Llama 2 and 3, Mistral, DeepSeek-V2).
- ``rotary``: rotary position embeddings: pairs rotated by position, scores that see only offsets.
- ``rope_scaling``: stretching the rotations past the training length: interpolation, NTK, YaRN.
- ``online``: the online softmax behind FlashAttention: keys in tiles, no T x T matrix.
- ``hbm``: what standard attention and FlashAttention read from and write to a GPU's memory.
- ``window``: sliding-window attention: the band mask, its cost in T, its reach after L layers.
- ``interleaved``: local and global layers together: which layer is which, and their cache.
- ``grouped``: multi-query and grouped-query attention: query heads sharing fewer K/V heads.
- ``kv_cache``: generation with and without the key/value cache, same floats; its bytes.
- ``decode``: what a decode step reads (weights, caches) and the tokens per second it allows.
- ``latent``: multi-head latent attention: keys and values rebuilt from a cached latent.
- ``gpt``: chapter 4's GPT at a small size, writing text with the cache and without.

In a notebook::

    from attention import basics, fixtures
    scores, weights, context = basics.attend(fixtures.book_inputs())
"""
