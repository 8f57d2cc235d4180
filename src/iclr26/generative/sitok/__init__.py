"""SiTok: "Scaling Speech Tokenizers with Diffusion Autoencoders" (Wang, Tang, ..., Liu; ICLR 2026, arXiv 2602.06602).

A single-stage speech tokenizer: causal encoder -> one EMA vector-quantised codebook at 12.5 Hz -> rectified-flow
diffusion decoder over mel frames, with a CTC head on the quantised latents as a semantic regulariser:
L = L_diff + lambda_ctc L_ctc + L_commit.
"""

from iclr26.generative.sitok.baselines import KMeansTokenizer
from iclr26.generative.sitok.ctc import CTCHead, ctc_greedy_decode, edit_distance, phone_error_rate
from iclr26.generative.sitok.data import PHONES, VOICES, espeak_corpus, log_mel, mel_filterbank, synthesize
from iclr26.generative.sitok.decoder import RectifiedFlowDecoder, euler_sample, flow_matching_loss
from iclr26.generative.sitok.metrics import frechet_distance
from iclr26.generative.sitok.quantizer import EMAVectorQuantizer, bitrate_bps, codebook_perplexity
from iclr26.generative.sitok.recognizer import PhoneRecognizer, recognize, train_ctc_model
from iclr26.generative.sitok.tokenizer import CausalEncoder, SiTokenizer
from iclr26.generative.sitok.training import train_tokenizer

__all__ = [
    "PHONES",
    "VOICES",
    "CTCHead",
    "CausalEncoder",
    "EMAVectorQuantizer",
    "KMeansTokenizer",
    "PhoneRecognizer",
    "RectifiedFlowDecoder",
    "SiTokenizer",
    "bitrate_bps",
    "codebook_perplexity",
    "ctc_greedy_decode",
    "edit_distance",
    "espeak_corpus",
    "euler_sample",
    "flow_matching_loss",
    "frechet_distance",
    "log_mel",
    "mel_filterbank",
    "phone_error_rate",
    "recognize",
    "synthesize",
    "train_ctc_model",
    "train_tokenizer",
]
