"""Oracle tests of the RNA co-design package: SO(3) maps, IGSO(3), frames, builder, folding, model, diffusion, RL,
metrics and the claim rules."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats

from iclr26.generative.rna_codesign import (
    CoDesignDiffusion,
    FrameSchedule,
    RF2NAAdapter,
    TinyFrameTransformer,
    atoms_from_frames,
    base_pair_f1,
    build_coarse_3d,
    check_rotations,
    d0_rna,
    dot_bracket_to_pairs,
    encode,
    fold,
    frame_loss,
    frames_from_atoms,
    igso3_angle_density,
    igso3_sample,
    kabsch,
    nussinov,
    pairs_from_frames,
    pairs_to_dot_bracket,
    random_rotations,
    rl_finetune,
    rmsd,
    sequence_diversity,
    so3_exp,
    so3_log,
    stem_loop_sequences,
    structure_energy,
    tm_score,
    zuker_lite,
)
from iclr26.generative.rna_codesign.claim_check import pooled_difference, pretraining_decider, rl_decider
from iclr26.generative.rna_codesign.folding import MASK_ID, NUSSINOV_WEIGHT, can_pair
from iclr26.generative.rna_codesign.geometry import PAIR_DISTANCE
from iclr26.harness.claims import Outcome
from iclr26.lab.threads import limited_threads


@pytest.fixture(autouse=True)
def _one_thread():
    with limited_threads(1):
        yield


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# ----------------------------------------------------------------------------------------------- SO(3)
def test_exp_log_round_trip_and_rodrigues_against_matrix_exponential():
    w = torch.randn(200, 3, generator=_gen(), dtype=torch.float64)
    w = w / w.norm(dim=-1, keepdim=True) * torch.rand(200, 1, generator=_gen(1), dtype=torch.float64) * 3.1
    r = so3_exp(w)
    ref = torch.linalg.matrix_exp(
        torch.stack(
            [
                torch.zeros(200),
                -w[:, 2],
                w[:, 1],
                w[:, 2],
                torch.zeros(200),
                -w[:, 0],
                -w[:, 1],
                w[:, 0],
                torch.zeros(200),
            ],
            -1,
        )
        .view(200, 3, 3)
        .double()
    )
    torch.testing.assert_close(r, ref, atol=1e-12, rtol=0)
    torch.testing.assert_close(so3_log(r), w, atol=1e-9, rtol=0)
    tiny = torch.tensor([[1e-9, -2e-9, 3e-9]], dtype=torch.float64)
    torch.testing.assert_close(so3_log(so3_exp(tiny)), tiny, atol=1e-15, rtol=0)


def test_log_near_pi_and_of_random_rotations():
    axis = torch.tensor([[0.3, -0.5, 0.81]], dtype=torch.float64)
    axis = axis / axis.norm()
    w = axis * (math.pi - 1e-5)
    torch.testing.assert_close(so3_log(so3_exp(w)), w, atol=1e-6, rtol=0)
    r = random_rotations(100, _gen(2), dtype=torch.float64)
    check_rotations("r", r)
    torch.testing.assert_close(so3_exp(so3_log(r)), r, atol=1e-7, rtol=0)


def test_uniform_rotations_have_the_haar_angle_density():
    r = random_rotations(4000, _gen(3), dtype=torch.float64)
    angle = so3_log(r).norm(dim=-1).numpy()
    cdf = lambda w: (w - np.sin(w)) / np.pi  # noqa: E731  (density (1 - cos w) / pi)
    assert stats.kstest(angle, cdf).pvalue > 1e-3


@pytest.mark.parametrize("eps", [0.3, 0.8, 1.5])
def test_igso3_sampler_matches_its_angle_density(eps):
    w = np.linspace(0, np.pi, 4001)
    pdf = igso3_angle_density(w, eps)
    assert abs(np.trapezoid(pdf, w) - 1) < 1e-3
    cdf_grid = np.concatenate([[0], np.cumsum((pdf[1:] + pdf[:-1]) / 2 * np.diff(w))])
    angle = so3_log(igso3_sample(3000, eps, _gen(4), dtype=torch.float64)).norm(dim=-1).numpy()
    assert stats.kstest(angle, lambda x: np.interp(x, w, cdf_grid)).pvalue > 1e-3


def test_igso3_small_eps_is_the_tangent_gaussian():
    eps = 0.1
    w = np.linspace(1e-4, 0.6, 500)
    maxwell = stats.maxwell.pdf(w, scale=eps)
    assert np.max(np.abs(igso3_angle_density(w, eps, terms=400) - maxwell)) < 0.02 * maxwell.max()


# ----------------------------------------------------------------------------------------------- frames, loss, metrics
def test_atoms_and_frames_round_trip():
    r = random_rotations(50, _gen(5), dtype=torch.float64)
    p = torch.randn(50, 3, generator=_gen(6), dtype=torch.float64)
    r2, p2 = frames_from_atoms(atoms_from_frames(r, p))
    torch.testing.assert_close(r2, r, atol=1e-12, rtol=0)
    torch.testing.assert_close(p2, p, atol=1e-12, rtol=0)


def test_frame_loss_zero_at_truth_and_invariant_to_global_rigid_motion():
    g = _gen(7)
    r = random_rotations(12, g, dtype=torch.float64).view(2, 6, 3, 3)
    p = torch.randn(2, 6, 3, generator=g, dtype=torch.float64)
    rh = r @ igso3_sample(12, 0.4, g, dtype=torch.float64).view(2, 6, 3, 3)
    ph = p + 0.3 * torch.randn(2, 6, 3, generator=g, dtype=torch.float64)
    assert float(frame_loss(r, p, r, p).abs().max()) < 1e-12
    q = random_rotations(1, g, dtype=torch.float64)[0]
    c = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    moved = frame_loss(q @ rh, ph @ q.T + c, q @ r, p @ q.T + c)
    torch.testing.assert_close(moved, frame_loss(rh, ph, r, p), atol=1e-10, rtol=0)
    # hand case: one unit translation error and a rotation by 0.5 rad at one of two nucleotides
    r1 = torch.eye(3, dtype=torch.float64).expand(1, 2, 3, 3)
    rh1 = torch.stack(
        [torch.eye(3, dtype=torch.float64), so3_exp(torch.tensor([0.0, 0.0, 0.5], dtype=torch.float64))]
    )[None]
    p1 = torch.zeros(1, 2, 3, dtype=torch.float64)
    ph1 = torch.tensor([[[1.0, 0, 0], [0, 0, 0]]], dtype=torch.float64)
    torch.testing.assert_close(
        frame_loss(rh1, ph1, r1, p1), torch.tensor([(1 + 0.25) / 2], dtype=torch.float64)
    )


def test_frame_loss_gradient_matches_finite_differences():
    g = _gen(8)
    r = random_rotations(4, g, dtype=torch.float64).view(1, 4, 3, 3)
    p = torch.randn(1, 4, 3, generator=g, dtype=torch.float64)
    w = (0.3 * torch.randn(1, 4, 3, generator=g, dtype=torch.float64)).requires_grad_()
    ph = torch.randn(1, 4, 3, generator=g, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(lambda w, ph: frame_loss(r @ so3_exp(w), ph, r, p), (w, ph))


def test_kabsch_rmsd_tm_on_a_known_rigid_motion():
    g = _gen(9)
    x = 5 * torch.randn(40, 3, generator=g, dtype=torch.float64)
    q = random_rotations(1, g, dtype=torch.float64)[0]
    y = x @ q.T + torch.tensor([3.0, 1.0, -2.0], dtype=torch.float64)
    rot, t = kabsch(x, y)
    torch.testing.assert_close(rot, q, atol=1e-10, rtol=0)
    assert rmsd(x, y) < 1e-9
    assert abs(tm_score(x, y) - 1) < 1e-12
    # the score is at least the TM at the Kabsch superposition, written out here, and at most 1
    noisy = x + 0.8 * torch.randn(40, 3, generator=g, dtype=torch.float64)
    rot, t = kabsch(noisy, x)
    d = (noisy @ rot.T + t - x).norm(dim=-1)
    at_kabsch = float((1 / (1 + (d / d0_rna(40)) ** 2)).mean())
    assert at_kabsch - 1e-12 <= tm_score(noisy, x) <= 1.0
    assert tm_score(noisy, x, iterations=1) == pytest.approx(at_kabsch, abs=1e-12)


def test_d0_rna_matches_us_align_constants():
    assert [d0_rna(n) for n in (5, 11, 12, 15, 16, 19, 20, 23, 24, 29)] == [
        0.3,
        0.3,
        0.4,
        0.4,
        0.5,
        0.5,
        0.6,
        0.6,
        0.7,
        0.7,
    ]
    assert d0_rna(30) == pytest.approx(0.6 * math.sqrt(29.5) - 2.5)
    assert d0_rna(100) == pytest.approx(0.6 * math.sqrt(99.5) - 2.5)


def test_pair_f1_and_diversity_hand_cases():
    assert base_pair_f1(dot_bracket_to_pairs("((....))"), dot_bracket_to_pairs("((....))")) == 1.0
    assert base_pair_f1(dot_bracket_to_pairs("(......)"), dot_bracket_to_pairs("((....))")) == pytest.approx(
        2 / 3
    )
    assert base_pair_f1(dot_bracket_to_pairs("...."), dot_bracket_to_pairs("....")) == 1.0
    tok = torch.tensor([[0, 0, 0, 0], [0, 0, 1, 1], [2, 2, 1, 1]])
    # identities: (0,1) 0.5, (0,2) 0, (1,2) 0.5 -> mean 1/3
    assert sequence_diversity(tok) == pytest.approx(1 - 1 / 3)


# ----------------------------------------------------------------------------------------------- builder
STRUCTURES = [
    "((((....))))",
    "..((((....))))...(((...))).",
    "((((..((((....))))...(((....)))..))))",
    "(((.((....)).)))",
    "((((((...)))..))).......",
    "..........",
]


@pytest.mark.parametrize("db", STRUCTURES)
def test_builder_places_pairs_at_ideal_distance_and_reads_back(db):
    rots, trans = build_coarse_3d(db)
    check_rotations("rots", rots)
    pairs = dot_bracket_to_pairs(db)
    for i, j in enumerate(pairs):
        if j > i:
            assert float((trans[i] - trans[j]).norm()) == pytest.approx(PAIR_DISTANCE, abs=1e-9)
    step = (trans[1:] - trans[:-1]).norm(dim=-1)
    assert float(step.min()) > 3.5 and float(step.max()) < 7.5
    assert pairs_to_dot_bracket(pairs_from_frames(rots, trans)) == db
    assert float(trans.mean(0).abs().max()) < 1e-9
    r2, t2 = build_coarse_3d(db, 0.2, _gen(10))
    assert pairs_to_dot_bracket(pairs_from_frames(r2, t2)) == db


def test_builder_reads_back_oracle_folds_of_grammar_sequences():
    seqs = stem_loop_sequences(30, 32, _gen(11), loop_range=(3, 9))
    for db in fold(seqs, "zuker-lite"):
        r, p = build_coarse_3d(db)
        assert pairs_to_dot_bracket(pairs_from_frames(r, p)) == db


# ----------------------------------------------------------------------------------------------- folding
def _all_structures(seq: str, i: int = 0, j: int | None = None):
    j = len(seq) if j is None else j
    if j - i <= 0:
        yield {}
        return
    yield from _all_structures(seq, i + 1, j)
    for k in range(i + 4, j):
        if can_pair(seq[i], seq[k]):
            for a in _all_structures(seq, i + 1, k):
                for b in _all_structures(seq, k + 1, j):
                    yield {i: k, **a, **b}


def _db(n: int, d: dict) -> str:
    p = [-1] * n
    for a, b in d.items():
        p[a], p[b] = b, a
    return pairs_to_dot_bracket(p)


def _nussinov_score(seq: str, db: str) -> int:
    return sum(NUSSINOV_WEIGHT[seq[i] + seq[j]] for i, j in enumerate(dot_bracket_to_pairs(db)) if j > i)


def test_zuker_lite_and_nussinov_find_the_brute_force_optimum():
    g = _gen(12)
    seqs = [
        "".join("ACGU"[i] for i in torch.randint(0, 4, (10 + k % 3,), generator=g).tolist())
        for k in range(12)
    ]
    seqs += stem_loop_sequences(6, 12, g)
    for seq in seqs:
        structs = [_db(len(seq), d) for d in _all_structures(seq)]
        best = min(structure_energy(seq, s) for s in structs)
        assert structure_energy(seq, zuker_lite(seq)) == pytest.approx(best, abs=1e-9)
        score = [_nussinov_score(seq, s) for s in structs]
        assert _nussinov_score(seq, nussinov(seq)) == max(score)


def test_zuker_lite_hand_case_and_batching():
    seq = "GGGGAAAACCCC"
    assert zuker_lite(seq) == "((((....))))"
    assert structure_energy(seq, "((((....))))") == pytest.approx(-9.9 + 4.5 + 1.1 * math.log(4 / 3))
    seqs = stem_loop_sequences(10, 24, _gen(13)) + ["GGGGAAAACCCC"]
    assert zuker_lite(seqs) == [zuker_lite(s) for s in seqs]
    assert fold("AAAAAAAAAA", "zuker-lite") == ".........."


# ----------------------------------------------------------------------------------------------- model and diffusion
def _model(seed: int = 0, **kw) -> CoDesignDiffusion:
    return CoDesignDiffusion(TinyFrameTransformer(16, 1, 2, 8, init_seed=seed), **kw)


def test_denoiser_is_se3_equivariant_in_float64():
    den = TinyFrameTransformer(16, 2, 2, 8, init_seed=1).double()
    with torch.no_grad():  # non-zero frame head so the check is not trivial
        den.frame_head.weight.normal_(0, 0.3, generator=_gen(14))
    g = _gen(15)
    tok = torch.randint(0, 5, (2, 9), generator=g)
    r = random_rotations(18, g, dtype=torch.float64).view(2, 9, 3, 3)
    p = torch.randn(2, 9, 3, generator=g, dtype=torch.float64)
    t = torch.tensor([0.3, 0.8], dtype=torch.float64)
    q = random_rotations(1, g, dtype=torch.float64)[0]
    c = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    lg, rh, ph = den(tok, r, p, t)
    lg2, rh2, ph2 = den(tok, q @ r, p @ q.T + c, t)
    torch.testing.assert_close(lg2, lg, atol=1e-10, rtol=0)
    torch.testing.assert_close(rh2, q @ rh, atol=1e-10, rtol=0)
    torch.testing.assert_close(ph2, ph @ q.T + c, atol=1e-10, rtol=0)
    assert float((ph - p).detach().abs().max()) > 1e-3


def test_sampling_with_every_token_fixed_returns_the_input_and_frames_are_valid():
    model = _model(2)
    tok = torch.tensor([0, 1, 2, 3, 3, 2, 1, 0, 0, 1])
    out = model.sample(3, 10, cond={"tokens": tok}, steps=4, generator=_gen(16))
    assert torch.equal(out.tokens, tok.expand(3, 10))
    check_rotations("rots", out.rots)
    free = model.sample(3, 10, steps=4, generator=_gen(16))
    assert int((free.tokens == MASK_ID).sum()) == 0 and int(free.tokens.max()) < 4
    part = tok.clone()
    part[3:] = MASK_ID
    fixed = model.sample(4, 10, cond={"tokens": part}, steps=3, generator=_gen(17))
    assert torch.equal(fixed.tokens[:, :3], tok[:3].expand(4, 3))
    fr, ft = build_coarse_3d("(((....)))")
    mask = torch.zeros(10, dtype=torch.bool)
    mask[:2] = True
    motif = model.sample(
        2, 10, cond={"frame_mask": mask, "rots": fr, "trans": ft}, steps=3, generator=_gen(18)
    )
    torch.testing.assert_close(motif.trans[:, :2].double(), ft[:2].expand(2, 2, 3), atol=1e-5, rtol=0)


def test_fold_mode_has_no_sequence_loss_and_loss_is_finite():
    model = _model(3)
    rots, trans = zip(*(build_coarse_3d(db) for db in ["((((....))))", "............"]))
    batch = {
        "tokens": torch.stack([encode("GGGGAAAACCCC"), encode("ACGUACGUACGU")]),
        "rots": torch.stack(rots).float(),
        "trans": torch.stack(trans).float(),
    }
    _, terms = model.loss(batch, _gen(19), mode="fold", return_terms=True)
    assert terms["seq"] == 0.0 and math.isfinite(terms["frame"])
    total = model.loss(batch, _gen(19))
    total.backward()
    assert math.isfinite(float(total.detach()))
    igso = _model(3, frame_schedule=FrameSchedule(rotation="igso3"))
    assert math.isfinite(igso.loss(batch, _gen(20)).item())


def test_noise_frames_interpolates_between_data_and_noise():
    model = _model(4)
    r, p = build_coarse_3d("((((....))))")
    r, p = r[None].float(), p[None].float()
    r0, p0 = model.noise_frames(r, p, torch.tensor([0.0]), _gen(21))
    torch.testing.assert_close(p0, p / 10.0)
    torch.testing.assert_close(r0, r, atol=1e-5, rtol=0)
    r1, _ = model.noise_frames(r, p, torch.tensor([1.0]), _gen(21))
    assert float(so3_log(r.transpose(-1, -2) @ r1).norm(dim=-1).mean()) > 0.5


def test_chain_log_prob_equals_the_per_step_sum():
    model = _model(5)
    smp = model.sample(3, 8, steps=4, generator=_gen(22), keep_states=True)
    total = model.chain_log_prob(smp)
    ref = torch.zeros(3)
    for t, _s, x, r, p, new in smp.states:
        logits, _, _ = model.denoiser(x, r, p, torch.full((3,), t))
        logp = torch.log_softmax(logits, -1)
        for b in range(3):
            for i in range(8):
                if x[b, i] == MASK_ID and new[b, i] != MASK_ID:
                    ref[b] += logp[b, i, new[b, i]]
    torch.testing.assert_close(total, ref, atol=1e-5, rtol=0)


def test_rl_with_zero_steps_is_identity_and_reinforce_moves_towards_the_reward():
    model = _model(6)
    before = {k: v.clone() for k, v in model.denoiser.state_dict().items()}
    rl_finetune(model, lambda s: torch.zeros(s.tokens.shape[0]), 0.1, 0, n=4, length=6, sample_steps=2)
    assert all(torch.equal(before[k], v) for k, v in model.denoiser.state_dict().items())

    def frac_g(s):
        return (s.tokens == 2).double().mean(-1)

    hist = rl_finetune(model, frac_g, 0.0, 40, n=16, length=6, sample_steps=3, lr=3e-2, generator=_gen(23))
    assert np.mean(hist["reward"][-5:]) > np.mean(hist["reward"][:5]) + 0.1
    changed = [k for k, v in model.denoiser.state_dict().items() if not torch.equal(before[k], v)]
    assert changed and all(k.startswith("seq_head") for k in changed)


def test_rf2na_adapter_raises_a_clear_error():
    with pytest.raises(RuntimeError, match="RoseTTAFold2NA"):
        RF2NAAdapter()


# ----------------------------------------------------------------------------------------------- claim rules
def _rows(a, b, c, d=None, se=0.01, div=(0.6, 0.6)):
    rows = []
    for k in range(3):
        r = {"a_tm": a + 0.001 * k, "b_tm": b, "c_tm": c, "a_tm_se": se, "b_tm_se": se, "c_tm_se": se}
        r |= {
            "d_tm": (a if d is None else d) + 0.001 * k,
            "d_tm_se": se,
            "a_diversity": div[0],
            "d_diversity": div[1],
        }
        rows.append(r)
    return rows


def test_pooled_difference_by_hand():
    est, lo, hi = pooled_difference(_rows(0.3, 0.2, 0.3), "a", "b")
    se = math.sqrt(3 * 2 * 0.01**2) / 3
    assert est == pytest.approx(0.101)
    assert (lo, hi) == pytest.approx((0.101 - 1.959963984540054 * se, 0.101 + 1.959963984540054 * se))


def test_pretraining_rule_outcomes():
    dec = pretraining_decider()
    assert dec(_rows(0.30, 0.20, 0.31)).outcome is Outcome.SUPPORTED
    assert dec(_rows(0.30, 0.20, 0.40)).outcome is Outcome.INCONCLUSIVE  # far below C
    assert dec(_rows(0.22, 0.20, 0.22)).outcome is Outcome.INCONCLUSIVE  # gap < 0.05
    assert dec(_rows(0.18, 0.20, 0.2)).outcome is Outcome.NOT_SUPPORTED
    assert dec(_rows(0.20, 0.20, 0.2, se=0.05)).outcome is not Outcome.SUPPORTED


def test_rl_rule_outcomes():
    dec = rl_decider()
    assert dec(_rows(0.3, 0, 0, d=0.4)).outcome is Outcome.SUPPORTED
    assert dec(_rows(0.3, 0, 0, d=0.4, div=(0.6, 0.4))).outcome is Outcome.INCONCLUSIVE
    assert dec(_rows(0.3, 0, 0, d=0.2)).outcome is Outcome.NOT_SUPPORTED


def test_rl_head_terms_equal_the_chain_log_prob_and_kl_vanishes_at_the_reference():
    import copy

    from iclr26.generative.rna_codesign.diffusion import _head_terms

    model = _model(7)
    smp = model.sample(4, 8, steps=3, generator=_gen(24), keep_states=True)
    lp, kl = _head_terms(model, smp, copy.deepcopy(model.denoiser.seq_head))
    torch.testing.assert_close(lp, model.chain_log_prob(smp), atol=1e-5, rtol=0)
    assert abs(kl.item()) < 1e-7


def test_non_equivariant_variant_uses_the_absolute_pose():
    den = TinyFrameTransformer(16, 1, 2, 8, init_seed=2, equivariant=False).double()
    g = _gen(25)
    tok = torch.randint(0, 5, (1, 6), generator=g)
    r = random_rotations(6, g, dtype=torch.float64).view(1, 6, 3, 3)
    p = torch.randn(1, 6, 3, generator=g, dtype=torch.float64)
    t = torch.tensor([0.5], dtype=torch.float64)
    q = random_rotations(1, g, dtype=torch.float64)[0]
    lg, _, _ = den(tok, r, p, t)
    lg2, _, _ = den(tok, q @ r, p @ q.T, t)
    assert (lg2 - lg).abs().max().item() > 1e-6
    with torch.no_grad():  # zero updates: the prediction is the input, in the global frame
        den.frame_head.weight.zero_()
        den.msg_out[1].weight.zero_()
        den.msg_out[1].bias.zero_()
    _, rh, ph = den(tok, r, p, t)
    torch.testing.assert_close(rh, r)
    torch.testing.assert_close(ph, p)


def test_pair_distance_loss_zero_at_truth_invariant_and_by_hand():
    from iclr26.generative.rna_codesign import pair_distance_loss

    g = _gen(26)
    p = torch.randn(2, 7, 3, generator=g, dtype=torch.float64)
    q = random_rotations(1, g, dtype=torch.float64)[0]
    assert float(pair_distance_loss(p @ q.T + 3.0, p, 10.0)) < 1e-20
    ph = p + 0.2 * torch.randn(2, 7, 3, generator=g, dtype=torch.float64)
    torch.testing.assert_close(pair_distance_loss(ph @ q.T, p, 1.5), pair_distance_loss(ph, p, 1.5))
    # three points on a line at 0, 1, 3; prediction 0, 2, 3; cutoff 2.5 keeps (0,1), (1,2) both ways
    x = torch.tensor([[[0.0, 0, 0], [1, 0, 0], [3, 0, 0]]], dtype=torch.float64)
    xh = torch.tensor([[[0.0, 0, 0], [2, 0, 0], [3, 0, 0]]], dtype=torch.float64)
    assert float(pair_distance_loss(xh, x, 2.5)) == pytest.approx((1.0 + 1.0) / 2)


def test_kabsch_batch_matches_the_single_version_and_the_aligned_model_runs():
    from iclr26.generative.rna_codesign import kabsch_batch

    g = _gen(27)
    x = torch.randn(3, 10, 3, generator=g, dtype=torch.float64)
    y = torch.randn(3, 10, 3, generator=g, dtype=torch.float64)
    rb, tb = kabsch_batch(x, y)
    for k in range(3):
        r, t = kabsch(x[k], y[k])
        torch.testing.assert_close(rb[k], r, atol=1e-10, rtol=0)
        torch.testing.assert_close(tb[k], t, atol=1e-10, rtol=0)
    model = _model(8, align=True)
    r0, p0 = build_coarse_3d("((((....))))")
    batch = {"tokens": encode("GGGGAAAACCCC")[None], "rots": r0[None].float(), "trans": p0[None].float()}
    _, terms = model.loss(batch, _gen(28), mode="fold", return_terms=True)
    out = model.sample(2, 12, steps=3, generator=_gen(29))
    check_rotations("rots", out.rots)
    assert math.isfinite(terms["frame"]) and math.isfinite(terms["distance"])
