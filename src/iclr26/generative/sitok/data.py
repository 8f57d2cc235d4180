"""Offline speech for the SiTok reproduction (arXiv 2602.06602): a small formant synthesiser with exact phone labels.

``espeak-ng`` is not installed on the machines this library targets, so :func:`espeak_corpus` (the brief's name)
renders sentences of a tiny grammar with a Klatt-style cascade/parallel formant synthesiser written here:

- source: a glottal pulse train at f0 (phase accumulation, two one-pole low-passes for the -12 dB/oct tilt) plus
  aspiration noise, and a separate frication noise source;
- filters: three cascade resonators y[n] = A x[n] + B y[n-1] + C y[n-2] with B = 2 e^{-pi b T} cos(2 pi f T),
  C = -e^{-2 pi b T}, A = 1 - B - C (piecewise constant over 10 ms chunks, state carried across chunks) for the
  voiced and aspirated path, one resonator for frication;
- phones: 35 ARPAbet-like symbols (vowels, diphthongs, approximants, nasals, fricatives, stops with closure,
  voice bar and burst), formant transitions over the first 30 % of each phone from the previous phone's targets;
- voices: f0, vocal-tract length (a formant scale), breathiness; per utterance a speaking rate and a pitch offset.

The phone sequence of each utterance is known exactly (it is what was synthesised), so CTC targets and phone
error rates need no aligner. Log-mel: 16 kHz, hann window 1024, hop 320 (50 Hz), 128 Slaney-mel bins 0-8 kHz,
``log(max(mel, 1e-5))``; every utterance is padded with silence to a multiple of 4 frames (the stacking factor).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy.signal import lfilter

from iclr26.checks import check_array, check_int, check_tensor

__all__ = [
    "HOP",
    "N_MELS",
    "PHONES",
    "SAMPLE_RATE",
    "VOICES",
    "Voice",
    "espeak_corpus",
    "log_mel",
    "mel_filterbank",
    "synthesize",
]

SAMPLE_RATE = 16_000
HOP = 320
N_FFT = 1024
N_MELS = 128
STACK = 4
_CHUNK = 160  # 10 ms of piecewise-constant filter coefficients

# kind, (F1, F2, F3) target (start), end target for diphthongs, amplitudes (voicing, aspiration, frication),
# frication resonator (centre, bandwidth), duration range in ms
_V = "vowel"
_SPEC: dict[str, tuple] = {
    "iy": (_V, (270, 2290, 3010), None, (1.0, 0, 0), None, (90, 150)),
    "ih": (_V, (390, 1990, 2550), None, (1.0, 0, 0), None, (80, 130)),
    "eh": (_V, (530, 1840, 2480), None, (1.0, 0, 0), None, (80, 130)),
    "ae": (_V, (660, 1720, 2410), None, (1.0, 0, 0), None, (90, 150)),
    "aa": (_V, (730, 1090, 2440), None, (1.0, 0, 0), None, (90, 150)),
    "ao": (_V, (570, 840, 2410), None, (1.0, 0, 0), None, (90, 150)),
    "uh": (_V, (440, 1020, 2240), None, (1.0, 0, 0), None, (80, 130)),
    "uw": (_V, (300, 870, 2240), None, (1.0, 0, 0), None, (90, 150)),
    "ah": (_V, (640, 1190, 2390), None, (1.0, 0, 0), None, (80, 130)),
    "er": (_V, (490, 1350, 1690), None, (1.0, 0, 0), None, (90, 150)),
    "ay": (_V, (730, 1090, 2440), (300, 2200, 2900), (1.0, 0, 0), None, (130, 190)),
    "ey": (_V, (530, 1840, 2480), (300, 2250, 2950), (1.0, 0, 0), None, (120, 180)),
    "ow": (_V, (570, 900, 2400), (320, 800, 2250), (1.0, 0, 0), None, (120, 180)),
    "l": ("approx", (360, 1300, 2700), None, (0.6, 0, 0), None, (60, 90)),
    "r": ("approx", (420, 1300, 1600), None, (0.6, 0, 0), None, (60, 90)),
    "w": ("approx", (300, 610, 2200), None, (0.6, 0, 0), None, (60, 90)),
    "y": ("approx", (280, 2250, 2900), None, (0.6, 0, 0), None, (60, 90)),
    "m": ("nasal", (250, 1100, 2300), None, (0.35, 0, 0), None, (60, 100)),
    "n": ("nasal", (250, 1700, 2500), None, (0.35, 0, 0), None, (60, 100)),
    "ng": ("nasal", (250, 2300, 2750), None, (0.35, 0, 0), None, (60, 100)),
    "s": ("fric", (400, 1700, 2600), None, (0, 0, 0.5), (5500, 1800), (80, 130)),
    "z": ("fric", (300, 1700, 2600), None, (0.25, 0, 0.35), (5300, 1800), (70, 110)),
    "sh": ("fric", (400, 1900, 2500), None, (0, 0, 0.5), (3000, 1200), (80, 130)),
    "zh": ("fric", (300, 1900, 2500), None, (0.25, 0, 0.35), (2900, 1200), (70, 110)),
    "f": ("fric", (400, 1100, 2400), None, (0, 0, 0.15), (6500, 4000), (70, 120)),
    "v": ("fric", (300, 1100, 2400), None, (0.3, 0, 0.1), (6200, 4000), (60, 100)),
    "th": ("fric", (400, 1400, 2600), None, (0, 0, 0.12), (5000, 5000), (70, 120)),
    "dh": ("fric", (300, 1400, 2600), None, (0.3, 0, 0.08), (4800, 5000), (50, 80)),
    "h": ("aspir", (500, 1500, 2500), None, (0, 0.6, 0), None, (50, 90)),
    "p": ("stop", (400, 800, 2200), None, (0, 0, 0.5), (900, 1200), (70, 110)),
    "t": ("stop", (400, 1800, 2600), None, (0, 0, 0.5), (4500, 2500), (70, 110)),
    "k": ("stop", (400, 2200, 2700), None, (0, 0, 0.5), (2300, 1200), (70, 110)),
    "b": ("stop", (300, 800, 2200), None, (0.15, 0, 0.35), (900, 1200), (60, 100)),
    "d": ("stop", (300, 1800, 2600), None, (0.15, 0, 0.35), (4500, 2500), (60, 100)),
    "g": ("stop", (300, 2200, 2700), None, (0.15, 0, 0.35), (2300, 1200), (60, 100)),
}
PHONES: tuple[str, ...] = tuple(_SPEC)
"""The 35 phone symbols; CTC targets are indices into this tuple (the CTC blank is ``len(PHONES)``)."""

_LEXICON = {
    "det": ["dh ah", "ah", "dh ih s", "dh ae t", "m ay", "h ih z", "w ah n"],
    "adj": [
        "b ih g", "r eh d", "ow l d", "n uw", "s m ao l", "g r iy n", "d aa r k", "w ao r m", "s ao f t",
        "b l uw", "b ey zh", "y ah ng",
    ],
    "noun": [
        "k ae t", "d ao g", "m ae n", "f ih sh", "t r iy", "b ow t", "k ey k", "r ow d", "b er d", "m uw n",
        "k ih ng", "sh ih p", "b ae g", "s ah n", "g ey m", "l ae m p", "h ih l", "w uh l f", "z uw", "v ey s",
        "th ih ng", "r ow z", "y aa r d",
    ],
    "verb": [
        "s iy z", "l ay k s", "t ey k s", "f ay n d z", "m uw v z", "w aa n t s", "k iy p s", "n iy d z",
        "p ey n t s", "h iy r z", "l ah v z", "sh ow z", "g ih v z",
    ],
}  # fmt: skip


@dataclass(frozen=True)
class Voice:
    """A synthetic speaker: mean f0 (Hz), formant scale (vocal-tract length), breathiness, spectral tilt."""

    f0: float
    formant_scale: float
    breathiness: float
    tilt: float


VOICES: tuple[Voice, ...] = (
    Voice(105.0, 0.92, 0.02, 0.97),
    Voice(125.0, 0.97, 0.05, 0.95),
    Voice(190.0, 1.10, 0.06, 0.93),
    Voice(225.0, 1.16, 0.08, 0.92),
    Voice(140.0, 1.00, 0.03, 0.96),  # held out from training in the reproduction
    Voice(205.0, 1.13, 0.07, 0.94),  # held out from training in the reproduction
)


def _sentence(rng: np.random.Generator) -> list[list[str]]:
    """Words (as phone lists) of one sentence: DET [ADJ] NOUN VERB [DET [ADJ] NOUN]."""
    pick = lambda cat: _LEXICON[cat][rng.integers(len(_LEXICON[cat]))].split()  # noqa: E731
    words = [pick("det")]
    if rng.random() < 0.5:
        words.append(pick("adj"))
    words += [pick("noun"), pick("verb")]
    if rng.random() < 0.6:
        words.append(pick("det"))
        if rng.random() < 0.4:
            words.append(pick("adj"))
        words.append(pick("noun"))
    return words


def _resonate(x: np.ndarray, freqs: np.ndarray, bws: np.ndarray) -> np.ndarray:
    """One second-order resonator with coefficients constant per 10 ms chunk, state carried across chunks."""
    out = np.empty_like(x)
    zi = np.zeros(2)
    big_t = 1.0 / SAMPLE_RATE
    for c in range(len(freqs)):
        sl = slice(c * _CHUNK, (c + 1) * _CHUNK)
        f = min(float(freqs[c]), 0.45 * SAMPLE_RATE)
        cc = -math.exp(-2 * math.pi * bws[c] * big_t)
        bb = 2 * math.exp(-math.pi * bws[c] * big_t) * math.cos(2 * math.pi * f * big_t)
        aa = 1.0 - bb - cc
        out[sl], zi = lfilter([aa], [1.0, -bb, -cc], x[sl], zi=zi)
    return out


def synthesize(
    phones: list[str], voice: Voice, rate: float, pitch: float, rng: np.random.Generator
) -> np.ndarray:
    """Render `phones` (symbols of :data:`PHONES`) with `voice` at speaking-rate factor `rate` (durations are divided
    by it) and pitch factor `pitch`; returns a float32 waveform at 16 kHz with 50 ms of silence at both ends."""
    chunks: list[dict] = []
    prev = np.array([500.0, 1500.0, 2500.0])
    lead = 5  # 50 ms of silence
    chunks += [dict(f=prev, av=0.0, ah=0.0, af=0.0, ff=3000.0, bf=2000.0)] * lead
    for sym in phones:
        kind, tgt, end, (av, ah, af), fric, (lo, hi) = _SPEC[sym]
        n = max(3, round(rng.uniform(lo, hi) / rate / 10))
        start = np.array(tgt, float) * voice.formant_scale
        stop = np.array(end if end is not None else tgt, float) * voice.formant_scale
        ff, bf = fric if fric is not None else (3000.0, 2000.0)
        for i in range(n):
            u = i / max(n - 1, 1)
            f = start + (stop - start) * u
            if u < 0.3:  # transition from the previous phone's formants
                f = prev + (f - prev) * (u / 0.3)
            if kind == "stop":
                burst = i == n - 2 or i == n - 1 and n < 4
                closure = i < n - 2
                chunks.append(
                    dict(f=f if not closure else np.array([150.0, f[1], f[2]]), av=av if closure else av * 0.5,
                         ah=0.0, af=af if burst else 0.0, ff=ff, bf=bf)
                )  # fmt: skip
            else:
                chunks.append(dict(f=f, av=av, ah=ah, af=af, ff=ff * voice.formant_scale, bf=bf))
        prev = stop
    chunks += [dict(f=prev, av=0.0, ah=0.0, af=0.0, ff=3000.0, bf=2000.0)] * lead
    n_chunks = len(chunks)
    n = n_chunks * _CHUNK
    track = lambda key: np.repeat(np.array([c[key] for c in chunks], float), _CHUNK, axis=0)  # noqa: E731
    av, ah, af = track("av"), track("ah"), track("af")
    # smooth amplitude steps over ~5 ms
    kernel = np.hanning(81)
    kernel /= kernel.sum()
    av, ah, af = (np.convolve(a, kernel, mode="same") for a in (av, ah, af))
    # glottal source: f0 with declination, slow vibrato and jitter
    t = np.arange(n) / SAMPLE_RATE
    f0 = voice.f0 * pitch * (1.1 - 0.2 * t / t[-1]) * (1 + 0.02 * np.sin(2 * math.pi * 4.5 * t))
    f0 *= 1 + 0.01 * np.repeat(rng.standard_normal(n_chunks), _CHUNK)
    phase = np.cumsum(f0 / SAMPLE_RATE)
    pulses = np.diff(np.floor(phase), prepend=0.0)
    glottal = lfilter([1.0], [1.0, -voice.tilt], lfilter([1.0], [1.0, -voice.tilt], pulses))
    glottal -= glottal.mean()
    glottal /= np.abs(glottal).max() + 1e-9
    noise = rng.standard_normal(n) * 0.3
    source = av * glottal + (ah + voice.breathiness * av) * noise
    formants = np.array([c["f"] for c in chunks])
    bws = np.stack([60 + 0.05 * formants[:, 0], 90 + 0.03 * formants[:, 1], 150 + 0.02 * formants[:, 2]], 1)
    y = source
    for k in range(3):
        y = _resonate(y, formants[:, k], bws[:, k])
    fr = _resonate(
        rng.standard_normal(n) * af, np.array([c["ff"] for c in chunks]), np.array([c["bf"] for c in chunks])
    )
    y = y / (np.abs(y).max() + 1e-9) + 0.6 * fr / (np.abs(fr).max() + 1e-9) * (af.max() > 0)
    y = 0.5 * y / (np.abs(y).max() + 1e-9) + 1e-4 * rng.standard_normal(n)
    return y.astype(np.float32)


def mel_filterbank(n_mels: int = N_MELS, n_fft: int = N_FFT, sample_rate: int = SAMPLE_RATE) -> torch.Tensor:
    """Slaney-scale triangular mel filters, (n_mels, n_fft // 2 + 1), each normalised to unit area (Slaney norm)."""
    n_mels = check_int("n_mels", n_mels, low=1)
    n_fft = check_int("n_fft", n_fft, low=2)
    sample_rate = check_int("sample_rate", sample_rate, low=1)

    def hz_to_mel(f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, float)
        lin = f / (200.0 / 3)
        log = 15.0 + np.log(np.maximum(f, 1e-9) / 1000.0) / (np.log(6.4) / 27.0)
        return np.where(f >= 1000.0, log, lin)

    def mel_to_hz(m: np.ndarray) -> np.ndarray:
        m = np.asarray(m, float)
        return np.where(m >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0)), m * 200.0 / 3)

    edges = mel_to_hz(np.linspace(0.0, hz_to_mel(sample_rate / 2), n_mels + 2))
    freqs = np.linspace(0.0, sample_rate / 2, n_fft // 2 + 1)
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    tri = np.maximum(0.0, np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)))
    tri *= 2.0 / (hi - lo)
    return torch.tensor(tri, dtype=torch.float32)


_FBANK: torch.Tensor | None = None


def log_mel(wave: torch.Tensor | np.ndarray) -> torch.Tensor:
    """(n_samples,) 16 kHz waveform -> (128, frames) log-mel at 50 Hz, frames = 1 + n_samples // 320."""
    global _FBANK
    if torch.is_tensor(wave):
        check_tensor("wave", wave, floating=True)
    else:
        wave = check_array("wave", wave)
    x = torch.as_tensor(wave, dtype=torch.float32)
    check_tensor("wave", x, ndim=1, floating=True, finite=True)
    if _FBANK is None:
        _FBANK = mel_filterbank()
    spec = torch.stft(x, N_FFT, HOP, window=torch.hann_window(N_FFT), center=True, return_complex=True)
    power = spec.abs().pow(2)
    return torch.log(torch.clamp(_FBANK @ power, min=1e-5))


def espeak_corpus(n_utts: int, voices: tuple[int, ...] | list[int] = (0, 1, 2, 3), seed: int = 0) -> dict:
    """`n_utts` synthetic utterances of the grammar, spoken by the voices (indices into :data:`VOICES`) in turn.

    Returns a dict of lists: ``mel`` (128, frames) float tensors with frames a multiple of 4, ``phones`` int64
    tensors of indices into :data:`PHONES`, ``voice`` ints, ``text`` (phone strings, words separated by ``|``).
    The name is the brief's; the audio comes from the formant synthesiser of this module, not from espeak-ng.
    Speaking rate is drawn per utterance in [0.85, 1.2] and pitch in [0.85, 1.15] (the brief's 130-190 wpm and
    pitch 30-70 ranges, mapped to factors).
    """
    n_utts = check_int("n_utts", n_utts, low=1)
    seed = check_int("seed", seed, low=0)
    voices = tuple(voices)
    if not voices or not all(isinstance(v, int) and 0 <= v < len(VOICES) for v in voices):
        raise ValueError(f"voices must be a non-empty sequence of ints in [0, {len(VOICES)}), got {voices!r}")
    rng = np.random.default_rng(seed)
    out: dict[str, list] = {"mel": [], "phones": [], "voice": [], "text": []}
    for i in range(n_utts):
        v = voices[i % len(voices)]
        words = _sentence(rng)
        phones = [p for w in words for p in w]
        wave = synthesize(phones, VOICES[v], rng.uniform(0.85, 1.2), rng.uniform(0.85, 1.15), rng)
        frames = 1 + len(wave) // HOP
        target = -(-frames // STACK) * STACK  # pad with silence to a multiple of the stacking factor
        pad = max(0, (target - 1) * HOP + 1 - len(wave))
        wave = np.concatenate([wave, 1e-4 * rng.standard_normal(pad).astype(np.float32)])
        mel = log_mel(wave[: (target - 1) * HOP + 1])
        out["mel"].append(mel)
        out["phones"].append(torch.tensor([PHONES.index(p) for p in phones], dtype=torch.long))
        out["voice"].append(v)
        out["text"].append(" | ".join(" ".join(w) for w in words))
    return out
