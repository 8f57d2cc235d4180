"""Tests of the function-induction prompt layer (the experiment is not built yet)."""

import pytest
import torch

from iclr26.mechanisms.function_induction import Vocab, contrast_pairs


def test_number_tokenisation_round_trips():
    v = Vocab()
    text = "<bos> 3 + 4 = 8 ; 99 + 0 ="
    assert v.decode(v.encode(text)) == text
    assert all(v.encode(str(n)) == [n] for n in range(100))


def test_contrast_pairs_same_numbers_and_offset():
    base, cont, yb, yc = contrast_pairs(20, shots=4, delta=1, seed=0)
    assert base.shape == cont.shape == (20, 6 * 4 + 5)
    assert torch.equal(yc, yb + 1)
    diff = base != cont
    # only the demo answer tokens differ, each by exactly delta
    answer_pos = [1 + 6 * j + 4 for j in range(4)]
    assert diff[:, [i for i in range(base.shape[1]) if i not in answer_pos]].sum() == 0
    assert torch.equal(cont[:, answer_pos] - base[:, answer_pos], torch.ones(20, 4, dtype=torch.long))
    q = base[:, -4:]
    assert torch.equal(q[:, 0] + q[:, 2], yb)


def test_bad_inputs():
    with pytest.raises(ValueError, match="shots"):
        contrast_pairs(3, shots=-1)
    with pytest.raises(ValueError, match="max_operand"):
        contrast_pairs(3, shots=2, max_operand=60)
    with pytest.raises(ValueError, match="unknown symbol"):
        Vocab().encode("1 * 2")
