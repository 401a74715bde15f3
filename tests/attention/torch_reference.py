"""Chapter 3's attention classes written in PyTorch, as a test oracle for the numpy core.

Rewritten from the book's descriptions (sections 3.4 to 3.6), with the book's class and
attribute names so that seeding torch and constructing a class draws the same weights as the
book. Test-only: nothing in ``attention/`` imports torch.
"""

import numpy as np
import torch
from torch import nn


class SelfAttention_v1(nn.Module):
    """Section 3.4.1: three raw (d_in, d_out) parameter matrices drawn with torch.rand."""

    def __init__(self, d_in: int, d_out: int):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (T, d_in) -> (T, d_out)
        queries, keys, values = x @ self.W_query, x @ self.W_key, x @ self.W_value
        scores = queries @ keys.T
        weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
        return weights @ values


class SelfAttention_v2(nn.Module):
    """Section 3.4.2: the same computation through nn.Linear layers (weights stored transposed)."""

    def __init__(self, d_in: int, d_out: int, qkv_bias: bool = False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (T, d_in) -> (T, d_out)
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        scores = queries @ keys.T
        weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
        return weights @ values


class CausalAttention(nn.Module):
    """Section 3.5.3: batched, with a buffered upper-triangle mask and dropout on the weights."""

    def __init__(
        self, d_in: int, d_out: int, context_length: int, dropout: float, qkv_bias: bool = False
    ):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        # True above the diagonal: the future a query must not see. Allocated once at full length.
        future = torch.triu(torch.ones(context_length, context_length), diagonal=1)
        self.register_buffer("mask", future)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (b, T, d_in) -> (b, T, d_out)
        _, num_tokens, _ = x.shape
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        scores = queries @ keys.transpose(1, 2)  # (b, T, T)
        scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
        weights = self.dropout(weights)
        return weights @ values


class MultiHeadAttentionWrapper(nn.Module):
    """Section 3.6.1: H independent causal heads, outputs concatenated to width H * d_out."""

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ):
        super().__init__()
        self.heads = nn.ModuleList(
            CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
            for _ in range(num_heads)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (b, T, d_in) -> (b, T, H * d_out)
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    """Section 3.6.2: one projection per role, split into heads by view + transpose."""

    def __init__(
        self,
        d_in: int,
        d_out: int,
        context_length: int,
        dropout: float,
        num_heads: int,
        qkv_bias: bool = False,
    ):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        future = torch.triu(torch.ones(context_length, context_length), diagonal=1)
        self.register_buffer("mask", future)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (b, T, d_in) -> (b, T, d_out)
        b, num_tokens, _ = x.shape
        split = (b, num_tokens, self.num_heads, self.head_dim)
        keys = self.W_key(x).view(split).transpose(1, 2)  # (b, H, T, hd)
        queries = self.W_query(x).view(split).transpose(1, 2)
        values = self.W_value(x).view(split).transpose(1, 2)
        scores = queries @ keys.transpose(2, 3)  # (b, H, T, T)
        scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        # keys.shape[-1] is head_dim here, not d_out
        weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
        weights = self.dropout(weights)
        context = (weights @ values).transpose(1, 2)  # (b, T, H, hd)
        context = context.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context)


# Helpers for copying numpy weights into these modules.


def tensor(a: np.ndarray) -> torch.Tensor:
    """A float64 tensor holding a copy of ``a``."""
    return torch.tensor(np.asarray(a, dtype=np.float64), dtype=torch.float64)


def set_linear(layer: nn.Linear, W: np.ndarray, bias: np.ndarray | None = None) -> None:
    """Load a (d_in, d_out) numpy matrix (used as X @ W) into an nn.Linear (stores W^T)."""
    with torch.no_grad():
        layer.weight.copy_(tensor(W).T)
        if bias is not None:
            layer.bias.copy_(tensor(bias))


def set_qkv(module: nn.Module, W_query, W_key, W_value) -> None:
    """Load three (d_in, d_out) matrices into a module's W_query, W_key, W_value layers."""
    for layer, W in ((module.W_query, W_query), (module.W_key, W_key), (module.W_value, W_value)):
        set_linear(layer, W)


def run(module: nn.Module, X: np.ndarray) -> np.ndarray:
    """Forward ``X`` through ``module`` in eval mode (dropout off), as a numpy float64 array."""
    module.eval()
    with torch.no_grad():
        return module(tensor(X)).numpy()
