"""SiTokenizer: the single-stage diffusion-autoencoder speech tokenizer of "Scaling Speech Tokenizers with Diffusion
Autoencoders" (Wang et al., ICLR 2026, arXiv 2602.06602).

mel (B, 128, F) at 50 Hz, normalised per bin with fixed dataset statistics (never per utterance, so encoding stays
causal) -> stack 4 frames -> (B, F/4, 512) at 12.5 Hz -> causal transformer encoder -> project to the code
dimension -> one EMA codebook (straight-through) -> project back: the quantised embedding h (B, F/4, d) ->
(a) the CTC head (semantic regulariser) and (b) the decoder, which generates the stacked normalised frames:

- ``decoder="diffusion"`` (SiTok): rectified flow, L_diff = ||v(x_tau, tau, h) - (x1 - n)||^2, 16 Euler steps;
- ``decoder="regression"`` (baseline): the same transformer at tau = 0 on a zero input, L1 to the frames.

Single-stage objective: L = L_diff + lambda_ctc L_ctc + L_commit.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from einops import rearrange
from torch import Tensor, nn

from iclr26.checks import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_probability,
    check_tensor,
    check_token_ids,
)
from iclr26.generative.sitok.ctc import CTCHead, pad_targets
from iclr26.generative.sitok.decoder import RectifiedFlowDecoder, flow_matching_loss
from iclr26.generative.sitok.quantizer import EMAVectorQuantizer, codebook_perplexity

__all__ = ["CausalEncoder", "SiTokenizer"]


class CausalEncoder(nn.Module):
    """Pre-norm causal transformer over (B, T, in_dim) stacked frames -> (B, T, d_model)."""

    def __init__(
        self, in_dim: int, d_model: int, n_layers: int, n_heads: int, max_len: int, mlp_ratio: int = 4
    ) -> None:
        super().__init__()
        for name, value in (
            ("in_dim", in_dim),
            ("d_model", d_model),
            ("n_layers", n_layers),
            ("n_heads", n_heads),
            ("max_len", max_len),
            ("mlp_ratio", mlp_ratio),
        ):
            check_int(name, value, low=1)
        self.inp = nn.Linear(in_dim, d_model)
        self.pos = nn.Parameter(torch.randn(max_len, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(
            d_model,
            n_heads,
            mlp_ratio * d_model,
            dropout=0.0,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.layers = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x: Tensor) -> Tensor:
        check_tensor("x", x, ndim=3, floating=True, shape=(None, None, self.inp.in_features))
        n = x.shape[1]
        if n > self.pos.shape[0]:
            raise ValueError(f"x has {n} frames, more than max_len = {self.pos.shape[0]}")
        causal = torch.triu(torch.full((n, n), float("-inf"), device=x.device), 1)
        h = self.inp(x) + self.pos[:n]
        return self.norm(self.layers(h, mask=causal, is_causal=True))


class SiTokenizer(nn.Module):
    """Encoder -> single VQ codebook -> diffusion (or regression) decoder, with a CTC head on the quantised latents.

    Parameters
    ----------
    n_mels : mel bins (128). stack : frames per token (4: 50 Hz -> 12.5 Hz).
    d_model, enc_layers, dec_layers, n_heads : transformer sizes (paper: 1536 wide, 16 layers; quick: 128, 2).
    codebook_size, code_dim : the codebook (paper: 65,536 x 32; quick: 1,024 x 32).
    decay, commitment, dead_code_threshold : EMA decay, commitment beta, optional dead-code restarts.
    n_symbols : transcript symbols of the CTC head (blank added). ctc_upsample : CTC frames per token.
    lambda_ctc : weight of L_ctc (0 gives the no-CTC diffusion autoencoder).
    decoder : ``"diffusion"`` (rectified flow) or ``"regression"`` (L1).
    cond_drop : condition-dropout probability for classifier-free guidance. max_tokens : longest token sequence.
    mlp_ratio : transformer MLP width / d_model. data_init : initialise the codebook from the first batch.

    Examples
    --------
    >>> tok = SiTokenizer(n_mels=16, d_model=32, enc_layers=1, dec_layers=1, n_heads=2, codebook_size=8,
    ...                   code_dim=4, n_symbols=5)
    >>> mel = torch.randn(2, 16, 12)
    >>> codes = tok.encode(mel)
    >>> codes.shape, tok.decode(codes, steps=2).shape
    (torch.Size([2, 3]), torch.Size([2, 16, 12]))
    >>> out = tok(mel, [torch.tensor([1, 2]), torch.tensor([3])])
    >>> sorted(out)
    ['loss', 'loss_commit', 'loss_ctc', 'loss_diff', 'perplexity']
    """

    def __init__(
        self,
        n_mels: int = 128,
        stack: int = 4,
        d_model: int = 128,
        enc_layers: int = 2,
        dec_layers: int = 2,
        n_heads: int = 4,
        codebook_size: int = 1024,
        code_dim: int = 32,
        decay: float = 0.99,
        commitment: float = 0.25,
        dead_code_threshold: float = 0.0,
        n_symbols: int = 35,
        ctc_upsample: int = 2,
        lambda_ctc: float = 1.0,
        decoder: str = "diffusion",
        cond_drop: float = 0.0,
        max_tokens: int = 256,
        mlp_ratio: int = 4,
        data_init: bool = True,
    ) -> None:
        super().__init__()
        self.n_mels = check_int("n_mels", n_mels, low=1)
        self.stack = check_int("stack", stack, low=1)
        d_model = check_int("d_model", d_model, low=1)
        n_heads = check_int("n_heads", n_heads, low=1)
        if d_model % n_heads:
            raise ValueError(f"d_model must be divisible by n_heads={n_heads}, got {d_model}")
        check_int("enc_layers", enc_layers, low=1)
        check_int("dec_layers", dec_layers, low=1)
        check_int("codebook_size", codebook_size, low=1)
        check_int("code_dim", code_dim, low=1)
        check_float("decay", decay, low=0.0, high=1.0)
        check_float("commitment", commitment, low=0.0)
        check_float("dead_code_threshold", dead_code_threshold, low=0.0)
        check_int("n_symbols", n_symbols, low=1)
        check_int("ctc_upsample", ctc_upsample, low=1)
        check_probability("cond_drop", cond_drop)
        check_bool("data_init", data_init)
        self.lambda_ctc = check_float("lambda_ctc", lambda_ctc, low=0.0)
        self.decoder_kind = check_choice("decoder", decoder, ("diffusion", "regression"))
        self.max_tokens = check_int("max_tokens", max_tokens, low=1)
        feat = n_mels * stack
        mlp_ratio = check_int("mlp_ratio", mlp_ratio, low=1)
        self.encoder = CausalEncoder(feat, d_model, enc_layers, n_heads, max_tokens, mlp_ratio)
        self.pre_vq = nn.Linear(d_model, code_dim)
        self.vq = EMAVectorQuantizer(
            codebook_size, code_dim, decay, commitment, 1e-5, dead_code_threshold, data_init
        )
        self.post_vq = nn.Linear(code_dim, d_model)
        self.ctc = CTCHead(d_model, n_symbols, ctc_upsample)
        self.decoder = RectifiedFlowDecoder(
            feat, d_model, d_model, dec_layers, n_heads, cond_drop, max_tokens, mlp_ratio
        )
        self.register_buffer("mel_mean", torch.zeros(n_mels))
        self.register_buffer("mel_std", torch.ones(n_mels))

    @property
    def codebook_size(self) -> int:
        return self.vq.codebook_size

    def set_normalization(self, mean: Tensor, std: Tensor) -> None:
        """Fixed per-bin statistics (from the training set) used to normalise every input and output mel."""
        check_tensor("mean", mean, shape=(self.n_mels,), floating=True, finite=True)
        check_tensor("std", std, shape=(self.n_mels,), floating=True, finite=True)
        if bool((std <= 0).any()):
            raise ValueError("std must be positive in every bin")
        self.mel_mean.copy_(mean)
        self.mel_std.copy_(std)

    # ------------------------------------------------------------------ shapes

    def _check_mel(self, mel: Tensor) -> None:
        check_tensor("mel", mel, ndim=3, floating=True, finite=True)
        if mel.shape[1] != self.n_mels:
            raise ValueError(
                f"mel must be (batch, n_mels={self.n_mels}, frames), got shape {tuple(mel.shape)}"
            )
        if mel.shape[2] == 0 or mel.shape[2] % self.stack:
            raise ValueError(
                f"mel frames must be a positive multiple of the stacking factor {self.stack}, got {mel.shape[2]} "
                "(pad with silence first)"
            )
        if mel.shape[2] // self.stack > self.max_tokens:
            raise ValueError(
                f"mel is too long: {mel.shape[2] // self.stack} tokens > max_tokens={self.max_tokens}"
            )

    def stack_frames(self, mel: Tensor) -> Tensor:
        """Raw log-mel (B, n_mels, F) -> normalised stacked frames (B, F / stack, stack * n_mels)."""
        x = (mel - self.mel_mean[:, None]) / self.mel_std[:, None]
        return rearrange(x, "b c (t s) -> b t (s c)", s=self.stack)

    def unstack_frames(self, x: Tensor) -> Tensor:
        """Inverse of :meth:`stack_frames`: (B, T, stack * n_mels) -> raw log-mel (B, n_mels, T * stack)."""
        mel = rearrange(x, "b t (s c) -> b c (t s)", s=self.stack)
        return mel * self.mel_std[:, None] + self.mel_mean[:, None]

    def _mask(self, batch: int, tokens: int, lengths: Tensor | None, device: torch.device) -> Tensor | None:
        if lengths is None:
            return None
        check_tensor("mel_lengths", lengths, shape=(batch,), floating=False)
        if bool((lengths % self.stack != 0).any()) or bool((lengths < self.stack).any()):
            raise ValueError(
                f"mel_lengths must be positive multiples of {self.stack}, got {lengths.tolist()}"
            )
        if int(lengths.max()) > tokens * self.stack:
            raise ValueError(f"mel_lengths must be <= the padded length {tokens * self.stack}")
        return torch.arange(tokens, device=device)[None] < (lengths.to(device)[:, None] // self.stack)

    # ------------------------------------------------------------------ the tokenizer

    def latents(self, mel: Tensor) -> Tensor:
        """Continuous pre-quantisation latents z (B, F / stack, code_dim)."""
        self._check_mel(mel)
        return self.pre_vq(self.encoder(self.stack_frames(mel)))

    @torch.no_grad()
    def encode(self, mel: Tensor) -> Tensor:
        """Codes (B, F / stack) of raw log-mel `mel` (B, n_mels, F); causal: code t reads frames < stack (t + 1)."""
        return self.vq.assign(self.latents(mel))

    def embed(self, codes: Tensor) -> Tensor:
        """Quantised embedding h (B, T, d_model) of `codes` (B, T): the CTC head's and the decoder's input."""
        check_token_ids("codes", codes, self.codebook_size)
        check_tensor("codes", codes, ndim=2)
        return self.post_vq(self.vq.get_codes_from_indices(codes))

    @torch.no_grad()
    def decode(
        self,
        codes: Tensor,
        steps: int = 16,
        generator: torch.Generator | None = None,
        mask: Tensor | None = None,
        guidance: float = 1.0,
    ) -> Tensor:
        """Raw log-mel (B, n_mels, T * stack) from `codes` (B, T): `steps` Euler steps of the flow (the regression
        decoder ignores `steps`)."""
        h = self.embed(codes)
        if self.decoder_kind == "regression":
            x = self._regress(h, mask)
        else:
            x = self.decoder.sample(h, steps, mask, generator, guidance)
        return self.unstack_frames(x)

    def _regress(self, h: Tensor, mask: Tensor | None) -> Tensor:
        zeros = h.new_zeros(h.shape[0], h.shape[1], self.decoder.feat_dim)
        return self.decoder.network(zeros, h.new_zeros(h.shape[0]), h, mask)

    def forward(
        self,
        mel: Tensor,
        text_tokens: Sequence[Tensor],
        mel_lengths: Tensor | None = None,
        generator: torch.Generator | None = None,
    ) -> dict[str, Tensor]:
        """Training losses on raw log-mel `mel` (B, n_mels, F) with transcripts `text_tokens` (B 1-D int tensors of
        symbol ids) and optional `mel_lengths` (B,) in frames (padding after them is ignored).

        Returns ``loss`` = L_diff + lambda_ctc L_ctc + L_commit and its parts, plus the batch's code perplexity.
        """
        self._check_mel(mel)
        targets, target_lengths = pad_targets(text_tokens)
        if len(text_tokens) != mel.shape[0]:
            raise ValueError(
                f"text_tokens must hold one transcript per utterance ({mel.shape[0]}), got {len(text_tokens)}"
            )
        check_token_ids("text_tokens", targets, self.ctc.n_symbols)
        x1 = self.stack_frames(mel)
        b, n = x1.shape[:2]
        mask = self._mask(b, n, mel_lengths, mel.device)
        valid = torch.ones(b, n, dtype=torch.bool, device=mel.device) if mask is None else mask
        z = self.pre_vq(self.encoder(x1))
        q_valid, idx, commit = self.vq(z[valid])
        q = torch.zeros_like(z).masked_scatter(valid[..., None], q_valid)
        h = self.post_vq(q)
        token_lengths = valid.sum(1)
        loss_ctc = self.ctc.loss(h, targets, token_lengths.cpu(), target_lengths)
        if self.decoder_kind == "diffusion":
            noise = torch.randn(x1.shape, generator=generator).to(x1.device)
            tau = torch.rand(b, generator=generator).to(x1.device)
            cond = self.decoder.drop_condition(h, generator)
            loss_diff = flow_matching_loss(lambda x, t: self.decoder(x, t, cond, mask), x1, noise, tau, mask)
        else:
            err = (self._regress(h, mask) - x1).abs().mean(-1)
            loss_diff = (err * valid).sum() / valid.sum()
        loss = loss_diff + self.lambda_ctc * loss_ctc + commit
        return {
            "loss": loss,
            "loss_diff": loss_diff,
            "loss_ctc": loss_ctc,
            "loss_commit": commit,
            "perplexity": torch.tensor(codebook_perplexity(idx, self.codebook_size)),
        }
