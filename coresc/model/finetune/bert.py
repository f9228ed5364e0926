"""A BERT encoder in plain torch, enough to load and fine-tune MiniLM-style checkpoints.

Only what sentence classification needs: absolute position embeddings, post-layer-norm
blocks, GELU, no decoder and no caches. Weight names follow the Hugging Face BertModel
layout, so a ``model.safetensors`` of ``sentence-transformers/all-MiniLM-L6-v2`` loads
as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class BertConfig:
    """Sizes of the network (the ``config.json`` of a Hugging Face BERT checkpoint)."""

    vocab_size: int = 30522
    hidden_size: int = 384
    num_hidden_layers: int = 6
    num_attention_heads: int = 12
    intermediate_size: int = 1536
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    hidden_dropout_prob: float = 0.1

    @classmethod
    def from_dict(cls, d: dict) -> BertConfig:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in names})


class _Embeddings(nn.Module):
    def __init__(self, c: BertConfig) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, ids: torch.Tensor, types: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.word_embeddings(ids) + self.position_embeddings(pos) \
            + self.token_type_embeddings(types)
        return self.dropout(self.LayerNorm(x))


class _Layer(nn.Module):
    """One post-LN transformer block; submodule names match BertLayer's weights."""

    def __init__(self, c: BertConfig) -> None:
        super().__init__()
        h = c.hidden_size
        self.heads = c.num_attention_heads
        self.attention = nn.Module()
        self.attention.self = nn.Module()
        self.attention.self.query = nn.Linear(h, h)
        self.attention.self.key = nn.Linear(h, h)
        self.attention.self.value = nn.Linear(h, h)
        self.attention.output = nn.Module()
        self.attention.output.dense = nn.Linear(h, h)
        self.attention.output.LayerNorm = nn.LayerNorm(h, eps=c.layer_norm_eps)
        self.intermediate = nn.Module()
        self.intermediate.dense = nn.Linear(h, c.intermediate_size)
        self.output = nn.Module()
        self.output.dense = nn.Linear(c.intermediate_size, h)
        self.output.LayerNorm = nn.LayerNorm(h, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, n, h = x.shape
        a = self.attention.self

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(b, n, self.heads, h // self.heads).transpose(1, 2)

        q, k, v = split(a.query(x)), split(a.key(x)), split(a.value(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(h // self.heads) + bias, -1)
        ctx = (att @ v).transpose(1, 2).reshape(b, n, h)
        o = self.attention.output
        x = o.LayerNorm(x + self.dropout(o.dense(ctx)))
        y = self.output.dense(nn.functional.gelu(self.intermediate.dense(x)))
        return self.output.LayerNorm(x + self.dropout(y))


class BertEncoder(nn.Module):
    """Token ids (batch x tokens) -> mean-pooled sentence vectors (batch x hidden).

    ``forward(ids, mask, types, start=0)``: with ``start > 0``, ``ids`` is instead the
    hidden state (batch x tokens x hidden) after layer ``start`` (a cache of the frozen
    lower layers), and only layers ``start..`` run.
    """

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.config = config
        self.embeddings = _Embeddings(config)
        self.encoder = nn.Module()
        self.encoder.layer = nn.ModuleList(_Layer(config)
                                           for _ in range(config.num_hidden_layers))

    @staticmethod
    def attention_bias(mask: torch.Tensor) -> torch.Tensor:
        """(batch x tokens) 0/1 mask -> additive bias (batch x 1 x 1 x tokens)."""
        return ((1.0 - mask[:, None, None, :].to(torch.float32)) * -1e4)

    def hidden(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor,
               start: int = 0, stop: int | None = None) -> torch.Tensor:
        """Hidden states after layer ``stop`` (default: the last)."""
        x = self.embeddings(ids, types) if start == 0 else ids
        bias = self.attention_bias(mask)
        for layer in self.encoder.layer[start:stop]:
            x = layer(x, bias)
        return x

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor,
                start: int = 0) -> torch.Tensor:
        x = self.hidden(ids, mask, types, start)
        m = mask.unsqueeze(-1).to(x.dtype)
        return (x * m).sum(1) / m.sum(1).clamp(min=1.0)
