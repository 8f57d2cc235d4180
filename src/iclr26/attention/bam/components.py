"""BAM's mixers in the component registry: one attention layer under each positional scheme, with and without
SSMax, and BAM's chunked and bidirectional forms."""

from __future__ import annotations

from iclr26.attention.bam import GGDPrior, PEAttention
from iclr26.lab.registry import register


def _bam(d_model: int, ssmax: bool, causal: bool = True, chunk_size: int | None = None) -> PEAttention:
    # ALiBi-like init (beta = 1): at the official beta = 0 init the scale's gradient is exactly zero
    prior = GGDPrior(2, init_scale="alibi", init_shape=1.0, causal=causal)
    return PEAttention(d_model, 2, pe="bam", ssmax=ssmax, prior=prior, causal=causal, chunk_size=chunk_size)


_SEQ_LENS = (5, 11)
for _name, _case in (
    ("nope", lambda d_model: PEAttention(d_model, 2, pe="nope")),
    ("nope-ssmax", lambda d_model: PEAttention(d_model, 2, pe="nope", ssmax=True)),
    ("rope", lambda d_model: PEAttention(d_model, 2, pe="rope")),
    ("rope-ssmax", lambda d_model: PEAttention(d_model, 2, pe="rope", ssmax=True)),
    ("alibi", lambda d_model: PEAttention(d_model, 2, pe="alibi")),
    ("laplace-ssmax", lambda d_model: PEAttention(d_model, 2, pe="laplace", ssmax=True)),
    ("bam", lambda d_model: _bam(d_model, ssmax=False)),
    ("bam-ssmax", lambda d_model: _bam(d_model, ssmax=True)),
    ("bam-ssmax-chunked", lambda d_model: _bam(d_model, ssmax=True, chunk_size=5)),
):
    register("mixer", _name, PEAttention, _case, paper="bam", seq_lens=_SEQ_LENS)
register(
    "mixer",
    "bam-ssmax-bidirectional",
    PEAttention,
    lambda d_model: _bam(d_model, ssmax=True, causal=False),
    paper="bam",
    seq_lens=_SEQ_LENS,
    causal=False,
)
