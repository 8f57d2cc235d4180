"""Bad input to the SiTok tokenizer, quantiser, decoder, CTC head and corpus (arXiv 2602.06602)."""

import torch

from iclr26.generative.sitok import (
    CTCHead,
    EMAVectorQuantizer,
    RectifiedFlowDecoder,
    SiTokenizer,
    bitrate_bps,
    espeak_corpus,
    phone_error_rate,
)

_TOK = SiTokenizer(n_mels=8, d_model=16, enc_layers=1, dec_layers=1, n_heads=2, codebook_size=8, code_dim=4,
                   n_symbols=5)  # fmt: skip
_MEL = torch.randn(2, 8, 12)
_TEXT = [torch.tensor([1, 2]), torch.tensor([3])]
_DEC = RectifiedFlowDecoder(6, 3, d_model=8, n_layers=1, n_heads=2)

CASES = [
    (lambda: _TOK.encode(torch.randn(2, 10, 12)), ValueError, ["mel", "n_mels=8", "(2, 10, 12)"]),
    (lambda: _TOK.encode(torch.randn(2, 8, 10)), ValueError, ["mel frames", "multiple", "4", "10"]),
    (lambda: _TOK.encode(torch.randn(8, 12)), ValueError, ["mel", "3-D"]),
    (lambda: _TOK.decode(torch.tensor([[0, 8]])), ValueError, ["codes", "[0, 8)"]),
    (lambda: _TOK.decode(torch.tensor([[-1, 2]])), ValueError, ["codes", "[0, 8)"]),
    (
        lambda: _TOK(_MEL, [torch.tensor([1]), torch.tensor([], dtype=torch.long)]),
        ValueError,
        ["text_tokens[1]", "empty transcript"],
    ),
    (lambda: _TOK(_MEL, [torch.tensor([1, 9]), torch.tensor([2])]), ValueError, ["text_tokens", "[0, 5)"]),
    (lambda: _TOK(_MEL, _TEXT[:1]), ValueError, ["text_tokens", "one transcript per utterance"]),
    (
        lambda: _TOK(_MEL, _TEXT, mel_lengths=torch.tensor([12, 6])),
        ValueError,
        ["mel_lengths", "multiples of 4"],
    ),
    (lambda: _TOK.decode(torch.tensor([[0, 1]]), steps=-1), ValueError, ["steps", ">= 0"]),
    (lambda: SiTokenizer(decoder="gan"), ValueError, ["decoder", "diffusion", "regression"]),
    (lambda: SiTokenizer(d_model=30, n_heads=4), ValueError, ["d_model", "n_heads=4"]),
    (lambda: EMAVectorQuantizer(16, 4, decay=1.0), ValueError, ["decay", "[0, 1)"]),
    (lambda: EMAVectorQuantizer(0, 4), ValueError, ["codebook_size", ">= 1"]),
    (lambda: EMAVectorQuantizer(16, 4)(torch.randn(3, 5)), ValueError, ["x", "dim=4"]),
    (lambda: EMAVectorQuantizer(16, 4)(torch.full((3, 4), float("nan"))), ValueError, ["x", "finite"]),
    (lambda: bitrate_bps(1, 12.5), ValueError, ["codebook_size", ">= 2"]),
    (lambda: bitrate_bps(1024, 0.0), ValueError, ["tokens_per_second", "> 0"]),
    (
        lambda: _DEC(torch.randn(2, 5, 6), torch.rand(2), torch.randn(2, 5, 4)),
        ValueError,
        ["cond", "cond_dim=3"],
    ),
    (lambda: _DEC(torch.randn(2, 4, 6), torch.rand(2), torch.randn(2, 5, 3)), ValueError, ["x", "shape"]),
    (lambda: CTCHead(4, 3)(torch.randn(2, 5, 6)), ValueError, ["h", "in_dim=4"]),
    (
        lambda: RectifiedFlowDecoder(6, 3, d_model=8, n_heads=2, prediction="eps"),
        ValueError,
        ["prediction", "'x'"],
    ),
    (lambda: espeak_corpus(2, voices=(0, 9)), ValueError, ["voices", "[0, 6)"]),
    (lambda: espeak_corpus(0), ValueError, ["n_utts", ">= 1"]),
    (lambda: phone_error_rate([[1]], [[1], [2]]), ValueError, ["refs", "hyps", "same length"]),
]
