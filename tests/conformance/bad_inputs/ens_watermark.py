"""Bad input to the ENS watermark components (OpenReview iZ7i2y1YxO)."""

import torch

from iclr26.inference.ens_watermark import (
    DiPmarkReweight,
    ENSDetector,
    ENSLogitsProcessor,
    KGWLogitsProcessor,
    substitution_attack,
)

CASES = [
    (lambda: ENSLogitsProcessor([]), ValueError, ["secret_keys", "empty"]),
    (lambda: ENSLogitsProcessor([b"same", b"same"]), ValueError, ["duplicate", "independence"]),
    (lambda: ENSLogitsProcessor(["not-bytes"]), TypeError, ["secret_keys[0]", "bytes"]),
    (lambda: ENSLogitsProcessor([b"k"], alpha=0.7), ValueError, ["alpha", "[0, 0.5]"]),
    (lambda: DiPmarkReweight(-0.1), ValueError, ["alpha", "[0, 0.5]"]),
    (lambda: ENSLogitsProcessor([b"k"], base="mcmark"), ValueError, ["base", "dipmark"]),
    (
        lambda: ENSLogitsProcessor([b"k"], vocab_size=10)(torch.tensor([[1]]), torch.zeros(1, 12)),
        ValueError,
        ["vocab_size", "mismatch"],
    ),
    (lambda: ENSLogitsProcessor([b"k"], context_width=0), ValueError, ["context_width"]),
    (lambda: ENSDetector([b"k"], vocab_size=10, gamma_g=1.0), ValueError, ["gamma_g", "(0, 1)"]),
    (lambda: ENSDetector([b"k"], vocab_size=10).score([1, 2, 30]), ValueError, ["ids", "outside"]),
    (lambda: KGWLogitsProcessor(b"k", delta=-1.0), ValueError, ["delta"]),
    (lambda: KGWLogitsProcessor(b"k", vocab_size=1), ValueError, ["vocab_size", ">= 2"]),
    (
        lambda: ENSLogitsProcessor([b"k"])(torch.tensor([[3, 12]]), torch.zeros(1, 8)),
        ValueError,
        ["input_ids", "[0, 8)", "[3, 12]"],
    ),
    (
        lambda: ENSLogitsProcessor([b"k"])(torch.tensor([[-1, 2]]), torch.zeros(1, 8)),
        ValueError,
        ["input_ids", "[0, 8)"],
    ),
    (
        lambda: ENSLogitsProcessor([b"k"])(torch.tensor([[1.0, 2.0]]), torch.zeros(1, 8)),
        TypeError,
        ["input_ids", "integer"],
    ),
    (lambda: ENSLogitsProcessor([b"k"], cache_size=-1), ValueError, ["cache_size", ">= 0"]),
    (lambda: ENSDetector([b"k"], vocab_size=10, cache_size=-1), ValueError, ["cache_size", ">= 0"]),
    (lambda: ENSDetector([b"k"], vocab_size=10).score([4]), ValueError, ["1 tokens", "start=1", "no token"]),
    (
        lambda: ENSDetector([b"k"], vocab_size=10).score([4, 5, 6], start=3),
        ValueError,
        ["3 tokens", "start=3", "at least 4"],
    ),
    (
        lambda: substitution_attack(torch.zeros(2, 5, dtype=torch.long), 1.5, 10, 1),
        ValueError,
        ["eps", "[0, 1]"],
    ),
]
