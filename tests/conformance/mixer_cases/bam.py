"""BAM mixers (arXiv 2505.22842): one attention layer under each positional scheme, with and without SSMax."""

from iclr26.attention.bam import GGDPrior, PEAttention


def _bam(d_model, ssmax, causal=True, chunk_size=None):
    # ALiBi-like init (beta = 1): at the official beta = 0 init the scale's gradient is exactly zero
    prior = GGDPrior(2, init_scale="alibi", init_shape=1.0, causal=causal)
    return PEAttention(d_model, 2, pe="bam", ssmax=ssmax, prior=prior, causal=causal, chunk_size=chunk_size)


MIXERS = {
    "nope": lambda d_model: PEAttention(d_model, 2, pe="nope"),
    "nope-ssmax": lambda d_model: PEAttention(d_model, 2, pe="nope", ssmax=True),
    "rope": lambda d_model: PEAttention(d_model, 2, pe="rope"),
    "rope-ssmax": lambda d_model: PEAttention(d_model, 2, pe="rope", ssmax=True),
    "alibi": lambda d_model: PEAttention(d_model, 2, pe="alibi"),
    "laplace-ssmax": lambda d_model: PEAttention(d_model, 2, pe="laplace", ssmax=True),
    "bam": lambda d_model: _bam(d_model, ssmax=False),
    "bam-ssmax": lambda d_model: _bam(d_model, ssmax=True),
    "bam-ssmax-chunked": lambda d_model: _bam(d_model, ssmax=True, chunk_size=5),
    "bam-ssmax-bidirectional": lambda d_model: _bam(d_model, ssmax=True, causal=False),
}
NONCAUSAL = {"bam-ssmax-bidirectional"}
SEQ_LENS = (5, 11)
