"""Oracle tests of dParallel (arXiv 2509.26488): masks, loss, decoders, distillation data, claim rule."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from iclr26.harness.claims import Outcome
from iclr26.inference.dparallel import (
    CertaintyForcingTrainer,
    HFMaskedDiffusionAdapter,
    MaskedDiffusionLM,
    SymbolTask,
    certainty_forcing_loss,
    decode,
    generate,
    predictive_entropy,
    self_distill_dataset,
    semi_ar_masks,
    tempered_entropy,
    transfer_schedule,
)
from iclr26.inference.dparallel.claim_check import dparallel_decider
from iclr26.inference.dparallel.teacher import TeacherConfig, load_or_train_teacher
from iclr26.lab.masked_diffusion import MaskedDiffusionTransformer
from tests.conformance.bad_inputs.dparallel import CASES

MASK = 7


def tiny(seq_len: int = 14, seed: int = 0) -> MaskedDiffusionTransformer:
    return MaskedDiffusionTransformer(
        n_tokens=MASK, seq_len=seq_len, d_model=16, n_layers=1, n_heads=2, init_seed=seed
    )


class Recorder(nn.Module):
    """Wraps a denoiser and keeps every input it was called on."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model, self.mask_id, self.inputs = model, model.mask_id, []

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        self.inputs.append(ids.clone())
        return self.model(ids)


class Oracle(nn.Module):
    """Knows the answer: near one-hot logits on a fixed target sequence (``sharp`` sets the margin)."""

    def __init__(self, target: torch.Tensor, vocab: int, sharp: float = 50.0) -> None:
        super().__init__()
        self.mask_id = vocab - 1
        self.logits = sharp * F.one_hot(target, vocab).double()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.logits.expand(ids.shape[0], -1, -1)


# ----------------------------------------------------------------------------------------------- masks


@pytest.mark.parametrize("plen", [3, torch.tensor([0, 2, 5, 3, 1, 4])])
def test_semi_ar_masks_partition_the_block(plen):
    L, B = 21, 4
    ids = torch.randint(0, MASK, (6, L), generator=torch.Generator().manual_seed(0))
    gen = torch.Generator().manual_seed(1)
    seen_blocks = set()
    for _ in range(40):
        noisy, noisy_rev, m, m_rev = semi_ar_masks(ids, plen, B, 0.5, gen, mask_id=MASK)
        assert not (m & m_rev).any()
        seg = m | m_rev
        pl = torch.as_tensor(plen).expand(6)
        for i in range(6):
            p, r = int(pl[i]), L - int(pl[i])
            where = seg[i].nonzero().flatten()
            n_blocks = r // B
            if where.numel() == 0:  # the last segment is empty only when B divides R
                assert r % B == 0
                start = end = L
            else:
                start, end = int(where[0]), int(where[-1]) + 1
                assert where.numel() == end - start  # contiguous
                assert (start - p) % B == 0
                blk = (start - p) // B
                assert end == (L if blk == n_blocks else start + B)
                seen_blocks.add((i, blk))
            for x, mm in ((noisy, m), (noisy_rev, m_rev)):
                assert torch.equal(x[i, :start], ids[i, :start])  # prompt and earlier blocks clean
                assert (x[i, end:] == MASK).all()  # later blocks all masked, unsupervised
                assert torch.equal(x[i, start:end] == MASK, mm[i, start:end])
            assert not seg[i, :start].any() and not seg[i, end:].any()
    assert len(seen_blocks) > 12  # several block indices drawn


def test_semi_ar_masks_rate_and_block_uniformity():
    L, P, B = 2 + 4 * 8, 2, 8  # R = 32: block index uniform on {0..4}, b = 4 gives an empty segment
    ids = torch.zeros(4000, L, dtype=torch.long)
    _, _, m, m_rev = semi_ar_masks(ids, P, B, 0.5, torch.Generator().manual_seed(0), mask_id=MASK)
    seg = m | m_rev
    frac = m[seg].float().mean()
    assert abs(float(frac) - (0.999 * 0.5 + 0.001)) < 0.01
    empty = (~seg.any(1)).float().mean()
    assert abs(float(empty) - 0.2) < 0.03


# ------------------------------------------------------------------------------------------------ loss


def test_beta_zero_is_masked_cross_entropy():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 5, 6, generator=g)
    labels = torch.randint(0, 6, (3, 5), generator=g)
    mask = torch.rand(3, 5, generator=g) < 0.5
    ref = F.cross_entropy(logits[mask], labels[mask])
    for t in (0.1, 0.5, 3.0):
        assert torch.allclose(certainty_forcing_loss(logits, labels, mask, temperature=t, beta=0.0), ref)


def test_entropy_term_only_on_correct_masked_positions():
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(2, 6, 5, generator=g, dtype=torch.float64)
    labels = logits.argmax(-1).clone()
    labels[0, :3] = (labels[0, :3] + 1) % 5  # wrong guesses there
    mask = torch.ones(2, 6, dtype=torch.bool)
    mask[1, 4:] = False
    z, y = logits[mask], labels[mask]
    p = torch.softmax(z / 0.5, -1)
    h = -(p * p.log()).sum(-1)
    ok = z.argmax(-1) == y
    ref = F.cross_entropy(z, y) + 2.0 * h[ok].mean()
    assert torch.allclose(certainty_forcing_loss(logits, labels, mask), ref)
    assert torch.allclose(tempered_entropy(z, 0.5), h)


def test_entropy_term_gradcheck():
    g = torch.Generator().manual_seed(2)
    logits = torch.randn(2, 4, 5, generator=g, dtype=torch.float64, requires_grad=True)
    labels = logits.detach().argmax(-1)
    labels[0, 0] = (labels[0, 0] + 1) % 5
    mask = torch.tensor([[True, True, False, True], [True, False, True, True]])
    torch.autograd.gradcheck(lambda z: certainty_forcing_loss(z, labels, mask, 0.5, 2.0), (logits,))
    torch.autograd.gradcheck(lambda z: tempered_entropy(z, 0.7).sum(), (logits,))


def test_empty_mask_gives_zero_loss_with_graph():
    logits = torch.randn(1, 3, 4, requires_grad=True)
    loss = certainty_forcing_loss(
        logits, torch.zeros(1, 3, dtype=torch.long), torch.zeros(1, 3, dtype=torch.bool)
    )
    loss.backward()
    assert float(loss.detach()) == 0.0 and logits.grad is not None


# -------------------------------------------------------------------------------------------- decoding


def test_one_token_per_call_never_overwrites():
    model = Recorder(tiny())
    prompt = torch.randint(0, MASK, (1, 6), generator=torch.Generator().manual_seed(0))
    ids, nfe = generate(model, prompt, gen_len=8, block_size=4, steps=8)
    assert nfe == 8 == len(model.inputs)
    states = [*model.inputs, ids]
    for a, b in zip(states, states[1:]):
        newly = (a == MASK) & (b != MASK)
        assert int(newly.sum()) == 1
        assert torch.equal(a[a != MASK], b[a != MASK])  # committed tokens never change
        pos = int(newly.nonzero()[0, 1]) - 6
        first_masked = int((a[0, 6:] == MASK).nonzero()[0])
        assert pos // 4 == first_masked // 4  # inside the current block
    assert not (ids == MASK).any() and torch.equal(ids[:, :6], prompt)


def test_fixed_steps_commit_schedule():
    assert transfer_schedule(8, 3) == [3, 3, 2]
    out = decode(tiny(), torch.zeros(2, 6, dtype=torch.long), 8, 4, steps=4)
    assert out.nfe.tolist() == [4, 4] and [c.tolist() for c in out.commits] == [[2, 2]] * 4


@pytest.mark.parametrize("rule", [{"entropy_threshold": 0.6}, {"confidence_threshold": 0.2}])
def test_threshold_commits_at_least_one_and_terminates(rule):
    prompts = torch.randint(0, MASK, (5, 6), generator=torch.Generator().manual_seed(3))
    out = decode(tiny(), prompts, 8, 4, **rule)
    assert all(((c >= 1) | (out.nfe < k + 1)).all() for k, c in enumerate(out.commits))
    assert (out.nfe <= 8).all() and (out.nfe >= 2).all() and not (out.ids == MASK).any()


def test_tau_zero_is_one_token_per_call():
    prompt = torch.randint(0, MASK, (3, 6), generator=torch.Generator().manual_seed(4))
    out = decode(tiny(), prompt, 8, 4, entropy_threshold=0.0)
    assert out.nfe.tolist() == [8, 8, 8] and all((c == 1).all() for c in out.commits)
    # a one-hot oracle has entropy exactly 0 everywhere: still one token per call at tau = 0
    target = torch.randint(0, 6, (14,), generator=torch.Generator().manual_seed(5))
    ids, nfe = generate(Oracle(target, 8, sharp=1e4), prompt[:1], 8, 4, entropy_threshold=0.0)
    assert nfe == 8 and torch.equal(ids[0, 6:], target[6:])


def test_official_entropy_rule_fails_the_tau_zero_oracle():
    """Sabotage: the official `H <= tau` with a 1e-12 log offset admits one-hot tokens at tau = 0."""
    logits = 1e4 * F.one_hot(torch.tensor([[1, 2, 3]]), 8).double()
    p = torch.softmax(logits, -1)
    official = -(p * torch.log(p + 1e-12)).sum(-1)
    assert int((official <= 0.0).sum()) == 3  # would commit all three in one call
    assert int((predictive_entropy(logits) < 0.0).sum()) == 0  # ours: only the forced one


def test_confidence_one_equals_fixed_one_per_call():
    prompt = torch.randint(0, MASK, (3, 6), generator=torch.Generator().manual_seed(6))
    a = decode(tiny(), prompt, 8, 4, steps=8)
    b = decode(tiny(), prompt, 8, 4, confidence_threshold=1.0)
    assert torch.equal(a.ids, b.ids) and torch.equal(a.nfe, b.nfe)


def test_certain_oracle_fills_each_block_in_one_call():
    target = torch.randint(0, 6, (18,), generator=torch.Generator().manual_seed(7))
    prompt = target[None, :6]
    for rule in ({"entropy_threshold": 0.5}, {"confidence_threshold": 0.9}):
        ids, nfe = generate(Oracle(target, 8), prompt, 12, 4, **rule)
        assert nfe == 3 and torch.equal(ids[0], target)


def test_batched_rows_decode_independently():
    model = tiny()
    prompts = torch.randint(0, MASK, (4, 6), generator=torch.Generator().manual_seed(8))
    batch = decode(model, prompts, 8, 4, entropy_threshold=1.2)
    for i in range(4):
        one = decode(model, prompts[i : i + 1], 8, 4, entropy_threshold=1.2)
        assert torch.equal(one.ids[0], batch.ids[i]) and int(one.nfe) == int(batch.nfe[i])


def test_record_confidence_shapes():
    out = decode(tiny(), torch.zeros(2, 6, dtype=torch.long), 8, 4, record=True)
    assert len(out.confidence) == 8 and out.confidence[0].shape == (2, 8)
    assert torch.isnan(out.confidence[-1]).sum() == 2 * 7  # only the last masked position remains


# ------------------------------------------------------------------------------------ models and data


def test_hf_adapter_wraps_a_masked_lm():
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig(
        vocab_size=9,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    torch.manual_seed(0)
    lm = HFMaskedDiffusionAdapter(BertForMaskedLM(cfg).eval(), mask_id=8)
    assert isinstance(lm, MaskedDiffusionLM)
    ids, nfe = generate(lm, torch.zeros(1, 3, dtype=torch.long), 8, 4, entropy_threshold=0.3)
    assert ids.shape == (1, 11) and 2 <= nfe <= 8 and not (ids == 8).any()


def test_self_distill_dataset_is_one_token_per_call_decoding():
    teacher = tiny()
    prompts = torch.randint(0, MASK, (5, 6), generator=torch.Generator().manual_seed(9))
    data = self_distill_dataset(teacher, prompts, 8, 4, batch_size=2)
    assert torch.equal(data.ids, decode(teacher, prompts, 8, 4, steps=8).ids) and data.prompt_len == 6
    kept = self_distill_dataset(teacher, prompts, 8, 4, keep=lambda p, g: p[:, 0] > 2)
    assert kept.ids.shape[0] == int((prompts[:, 0] > 2).sum()) and kept.n_dropped == 5 - kept.ids.shape[0]


def test_trainer_fits_teacher_outputs_and_beta_zero_is_ce():
    torch.manual_seed(0)
    model = tiny(seq_len=14)
    data = torch.randint(0, MASK, (16, 14), generator=torch.Generator().manual_seed(10))
    tr = CertaintyForcingTrainer(model, block_size=4, lr=3e-3, beta=2.0)
    res = tr.fit(data, 6, steps=30, batch_size=16, seed=0)
    assert sum(res.losses[-10:]) < sum(res.losses[:10])
    ce = CertaintyForcingTrainer(model, block_size=4, beta=0.0)
    g1, g2 = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    noisy, noisy_rev, m, m_rev = semi_ar_masks(data, 6, 4, 0.5, g2, mask_id=MASK)
    logits = model(torch.cat([noisy, noisy_rev]))
    logits[..., MASK] = -1e4
    ref = F.cross_entropy(logits[:16][m], data[m]) + F.cross_entropy(logits[16:][m_rev], data[m_rev])
    assert torch.allclose(ce.loss(data, 6, g1), ref, atol=1e-6)


def test_seeded_max_task_and_checker():
    t = SymbolTask(n_values=6, n_segments=3, segment_len=4, seed_prob=0.5)
    prompts, answers = t.sample(50, torch.Generator().manual_seed(0))
    assert prompts.shape == (50, 10) and answers.shape == (50, 12) and (prompts[:, -1] == t.sep).all()
    for p, a in zip(prompts.tolist(), answers.tolist()):
        for j in range(3):
            seg, xs = a[4 * j : 4 * j + 4], p[3 * j : 3 * j + 3]
            assert seg == [max([seg[0], *xs[:k]]) for k in range(4)]
    assert t.correct(prompts, answers).all()
    other = t.answer(prompts[:, :9], torch.full((50, 3), 5))  # any seed is a correct answer
    assert t.correct(prompts, other).all()
    broken = answers.clone()
    broken[:, 2] = (broken[:, 2] + 1) % 6
    assert not t.correct(prompts, broken).any()
    eos_seed = answers.clone()
    eos_seed[:, 0] = t.eos
    assert not t.correct(prompts, eos_seed).any()
    assert (answers[:, ::4] == 0).float().mean() > 0.4  # the modal seed is the smallest letter


def test_teacher_cache_round_trip(tmp_path):
    cfg = TeacherConfig(
        task=SymbolTask(op="running_max", n_values=4, n_items=3, pad_to=4),
        block_size=2,
        d_model=8,
        n_layers=1,
        n_heads=2,
        steps=3,
        batch_size=4,
        n_distill=4,
    )
    m1, d1, l1 = load_or_train_teacher(cfg, cache_dir=tmp_path)
    m2, d2, l2 = load_or_train_teacher(cfg, cache_dir=tmp_path)
    assert torch.equal(d1, d2) and l1 == pytest.approx(l2)
    assert all(torch.equal(a, b) for a, b in zip(m1.state_dict().values(), m2.state_dict().values()))
    assert len(list(tmp_path.rglob("*.pt"))) == 1 and not list(tmp_path.rglob("*.tmp"))


# --------------------------------------------------------------------------------------------- claim


def _rows(teacher, dp, ce, nfe=8.0):
    return [
        {
            "acc_teacher_1tok": t,
            "acc_dparallel_budget": d,
            "acc_ce_budget": c,
            "nfe_dparallel_budget": nfe,
            "budget_nfe": 8.0,
        }
        for t, d, c in zip(teacher, dp, ce)
    ]


def test_decider_supported_not_supported_inconclusive():
    decide = dparallel_decider()
    good = _rows([0.90, 0.91, 0.89], [0.90, 0.90, 0.895], [0.80, 0.82, 0.79])
    assert decide(good).outcome is Outcome.SUPPORTED
    big_drop = _rows([0.90, 0.91, 0.89], [0.80, 0.82, 0.81], [0.60, 0.62, 0.61])
    assert decide(big_drop).outcome is Outcome.NOT_SUPPORTED
    # sabotage: the ablation's numbers in place of dParallel's -> the gain interval contains 0
    sab = _rows([0.90, 0.91, 0.89], [0.80, 0.82, 0.79], [0.80, 0.82, 0.79])
    assert decide(sab).outcome is Outcome.NOT_SUPPORTED
    mid = _rows([0.90, 0.91, 0.89], [0.87, 0.875, 0.86], [0.80, 0.82, 0.79])  # drop 3 points
    assert decide(mid).outcome is Outcome.INCONCLUSIVE
    over = _rows([0.90, 0.91, 0.89], [0.90, 0.90, 0.895], [0.80, 0.82, 0.79], nfe=12.0)
    assert decide(over).outcome is Outcome.INCONCLUSIVE
    assert decide(good[:1]).outcome is Outcome.INCONCLUSIVE


def test_decider_ablation_interval_containing_zero_is_inconclusive():
    """The quick run: dParallel - CE-only = +5.8 points [-1.5, 13.0] over 3 seeds. The interval reaches 0 but also
    the claimed 3 points: the brief's rule said "not supported", the three-way rule says inconclusive."""
    decide = dparallel_decider()
    rows = _rows([0.74, 0.74, 0.74], [0.80, 0.79, 0.784], [0.71, 0.75, 0.73])
    verdict = decide(rows)
    assert verdict.outcome is Outcome.INCONCLUSIVE
    # the whole gain interval below the claimed 3 points: not supported
    small = _rows([0.74, 0.74, 0.74], [0.80, 0.79, 0.785], [0.79, 0.78, 0.775])
    assert decide(small).outcome is Outcome.NOT_SUPPORTED


def test_teacher_learned_precondition():
    from iclr26.inference.dparallel.experiment import EXPERIMENT

    claim = next(c for c in EXPERIMENT.claims if c.id == "parallel-at-quarter-steps")
    good = _rows([0.90, 0.91, 0.89], [0.90, 0.90, 0.895], [0.80, 0.82, 0.79])
    assert claim.judge(good).outcome is Outcome.SUPPORTED  # the teacher learned: a real verdict
    untrained = _rows([0.01, 0.0, 0.02], [0.0, 0.0, 0.01], [0.0, 0.0, 0.0])
    assert claim.judge(untrained).outcome is Outcome.NOT_REPRODUCED
    speed = next(c for c in EXPERIMENT.claims if c.id == "distilled-speedup-at-tau-half")
    rows = [{"speedup_dparallel_tau0.5": 5.0 + 0.1 * i, "acc_teacher_1tok": 0.74} for i in range(3)]
    assert speed.judge(rows).outcome is Outcome.SUPPORTED
    assert speed.judge([{**r, "acc_teacher_1tok": 0.05} for r in rows]).outcome is Outcome.NOT_REPRODUCED


def test_from_pretrained_does_not_trust_remote_code_by_default(monkeypatch):
    import transformers

    seen = {}

    def fake(name, **kwargs):
        seen.update(kwargs, name=name)
        return torch.nn.Identity()

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", staticmethod(fake))
    HFMaskedDiffusionAdapter.from_pretrained("some/dllm", mask_id=3)
    assert seen["trust_remote_code"] is False
    HFMaskedDiffusionAdapter.from_pretrained("some/dllm", mask_id=3, trust_remote_code=True, revision="abc")
    assert seen["trust_remote_code"] is True and seen["revision"] == "abc"


def test_bad_inputs_raise():
    for call, exc, words in CASES:
        with pytest.raises(exc) as info:
            call()
        assert all(w in str(info.value) for w in words), (str(info.value), words)


def test_entropy_is_clamped_and_exact():
    z = torch.tensor([[0.0, 0.0], [800.0, 0.0]], dtype=torch.float64)
    h = predictive_entropy(z)
    assert h[0] == pytest.approx(math.log(2)) and h[1] == 0.0


# --- devices -----------------------------------------------------------------------------------------------------
