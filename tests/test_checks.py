"""The shared argument checks, and the lab components that use them on the inputs an outside probe tried."""

import math

import numpy as np
import pytest
import torch

from iclr26.checks import check_choice, check_float, check_int, check_tensor, check_token_ids
from iclr26.lab import flex


@pytest.mark.parametrize("bad", [True, 1.0, "3", None, 0, 11])
def test_check_int_names_argument_value_and_range(bad):
    with pytest.raises(ValueError, match=r"^n must be an int >= 1 and <= 10, got "):
        check_int("n", bad, 1, 10)


def test_check_int_accepts_numpy_integers():
    assert check_int("n", np.int64(3), 1) == 3


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1e-9, "0.1", True])
def test_check_float(bad):
    with pytest.raises(ValueError, match="lr must be a finite float >= 0"):
        check_float("lr", bad, 0.0)
    assert check_float("lr", 0.5, 0.0, 1.0, high_open=True) == 0.5


def test_check_choice_and_tensor():
    with pytest.raises(ValueError, match="mode must be one of 'a', 'b', got 'c'"):
        check_choice("mode", "c", ("a", "b"))
    with pytest.raises(TypeError, match="x must be a floating-point tensor"):
        check_tensor("x", torch.zeros(2, dtype=torch.long), floating=True)
    with pytest.raises(ValueError, match=r"x must have shape \(2, \*\)"):
        check_tensor("x", torch.zeros(3, 4), shape=(2, None))
    with pytest.raises(ValueError, match="must be finite"):
        check_tensor("x", torch.tensor([1.0, math.nan]), finite=True)
    with pytest.raises(ValueError, match=r"ids must hold token ids in \[0, 5\), got values in \[-1, 7\]"):
        check_token_ids("ids", torch.tensor([[-1, 7]]), 5)
    with pytest.raises(TypeError, match="integer tensor"):
        check_token_ids("ids", torch.tensor([[0.5]]), 5)


Q = torch.randn(1, 2, 5, 4)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"bias": torch.zeros(3, 5, 5)}, ValueError, "bias must broadcast"),
        (
            {"bias": torch.zeros(1, 2, 5, 5, dtype=torch.long)},
            TypeError,
            "bias must be a floating-point tensor",
        ),
        ({"scale": "x"}, ValueError, "scale must be a finite float > 0"),
        ({"scale": math.nan}, ValueError, "scale must be a finite float > 0"),
        ({"score_mod": flex.alibi([0.5, 0.25, 0.125])}, ValueError, "built for 3 heads"),
        (
            {"mask_mod": lambda b, h, q, k: torch.ones(7, 7, dtype=torch.bool)},
            ValueError,
            "mask_mod must return",
        ),
        ({"backend": "fast"}, ValueError, "backend must be one of"),
    ],
)
def test_flex_attention_rejects_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        flex.attention(Q, Q, Q, **kwargs)


def test_flex_attention_rejects_integer_inputs():
    ids = torch.zeros(1, 2, 5, 4, dtype=torch.long)
    with pytest.raises(TypeError, match="q must be a floating-point tensor"):
        flex.attention(ids, ids, ids)


def test_speculative_decode_rejects_bad_ids_and_arguments():
    from transformers import GPT2Config, GPT2LMHeadModel

    from iclr26.lab.speculative import speculative_decode

    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=11, n_positions=32, n_embd=8, n_layer=1, n_head=2)
    lm = GPT2LMHeadModel(cfg).eval()

    def verifier(target_rows, draft_logits, draft_ids, gen):
        return 0, int(target_rows[0].argmax())

    cases = [
        (torch.tensor([[3, 11]]), {}, ValueError, r"input_ids must hold token ids in \[0, 11\)"),
        (torch.tensor([[3, -1]]), {}, ValueError, "input_ids must hold token ids"),
        (torch.tensor([[3.0, 1.0]]), {}, TypeError, "input_ids must be an integer tensor"),
        (torch.tensor([[3, 1]]), {"seed": -1}, ValueError, "seed must be an int >= 0"),
        (torch.tensor([[3, 1]]), {"gamma": 0}, ValueError, "gamma must be an int >= 1"),
        (torch.tensor([[3, 1]]), {"eos_token_id": 11}, ValueError, "eos_token_id must be an int"),
    ]
    for ids, kwargs, error, match in cases:
        with pytest.raises(error, match=match):
            speculative_decode(lm, lm, ids, verifier, **kwargs)
    with pytest.raises(TypeError, match="verifier must be a Verifier"):
        speculative_decode(lm, lm, torch.tensor([[3, 1]]), None)


def test_check_bool_takes_bools_only():
    import numpy as np

    from iclr26.checks import check_bool

    assert check_bool("flag", True) is True and check_bool("flag", np.bool_(False)) is False
    for bad in (1, 0, "yes", None, 1.0):
        with pytest.raises(TypeError, match="flag must be a bool"):
            check_bool("flag", bad)


def test_type_error_option_keeps_range_errors_as_value_errors():
    from iclr26.checks import check_float, check_int

    with pytest.raises(TypeError, match="n must be an int"):
        check_int("n", 2.0, low=1, type_error=True)
    with pytest.raises(TypeError, match="n must be an int"):
        check_int("n", True, low=1, type_error=True)
    with pytest.raises(ValueError, match="n must be an int >= 1"):
        check_int("n", 0, low=1, type_error=True)
    with pytest.raises(TypeError, match="x must be a finite float"):
        check_float("x", "1", type_error=True)
    with pytest.raises(ValueError, match="x must be a finite float"):
        check_float("x", float("nan"), type_error=True)


#: the one shape a hand-written scalar check takes: a bool test joined to a type test of the same name
HAND_WRITTEN = r"isinstance\((\w+), bool\) or not \(?isinstance\(\1,"
#: places that test a type to dispatch on it (a tensor or a number), not to validate a scalar: path -> reason
DISPATCH = {
    "inference/cactus/verifiers.py": "a probability given as a tensor or as a number; the number branch refuses "
    "other types before converting",
}


def test_no_hand_written_scalar_checks_outside_the_checks_module():
    """Scalar arguments are validated through iclr26.checks (one wording, one range syntax), never by hand."""
    import re
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "iclr26"
    found = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        if rel == "checks.py" or rel in DISPATCH:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(HAND_WRITTEN, line):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert not found, "use iclr26.checks instead of:\n" + "\n".join(found)


def test_no_private_validator_copies():
    """No module defines its own copy of a shared check (``_check_int``, ``_check_positive``, ...)."""
    import re
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "iclr26"
    copies = re.compile(
        r"^\s*def _(check_(int|float|bool|positive|probability|choice|prob|unit_interval)|positive_int|as_int)\b"
    )
    found = [
        f"{p.relative_to(src).as_posix()}:{i}"
        for p in sorted(src.rglob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if copies.match(line)
    ]
    assert not found, "call iclr26.checks instead of a private copy: " + ", ".join(found)


def test_check_fit_data_names_the_argument_and_keeps_sklearns_message():
    import numpy as np
    import pytest
    from sklearn.linear_model import LinearRegression

    from iclr26.checks import check_fit_data

    X, y = np.arange(12.0).reshape(6, 2), np.arange(6.0)
    Xc, yc = check_fit_data(LinearRegression(), X, y, dtype=np.float64)
    assert np.array_equal(Xc, X) and np.array_equal(yc, y)
    with pytest.raises(ValueError, match=r"^X: Expected 2D array"):
        check_fit_data(LinearRegression(), np.arange(6.0), y)
    with pytest.raises(ValueError, match=r"^X: Complex data not supported"):
        check_fit_data(LinearRegression(), X + 1j, y)
    with pytest.raises(ValueError, match=r"^y: Found input variables with inconsistent numbers of samples"):
        check_fit_data(LinearRegression(), X, y[:5])
