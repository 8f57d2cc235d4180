"""Multi-domain synthetic language: each sequence is a walk on one of D random sparse Markov chains.

Every domain d gives each token v of a shared vocabulary ``n_successors`` distinct successors, drawn at random;
a sequence picks a domain uniformly, a start token uniformly, then moves to a uniformly chosen successor at each
step. The domain is never shown to the model, so a router that specialises by domain must infer it from context.
Because the chains are known, the Bayes-optimal next-token loss (posterior over domains given the prefix) is
computable exactly and serves as the floor of the validation loss; so is the loss of the best predictor that
ignores the history (position and current token only), the floor of a model that never infers the domain.
"""

from __future__ import annotations

import torch
from torch import Tensor

from iclr26.checks import check_int

__all__ = ["MultiDomainMarkov"]


class MultiDomainMarkov:
    """D random sparse order-1 Markov chains over one vocabulary (the generator of the DirMoE reproduction).

    Examples
    --------
    >>> data = MultiDomainMarkov(n_domains=3, vocab_size=10, n_successors=2, seed=0)
    >>> tokens, domains = data.sample(4, 6, torch.Generator().manual_seed(0))
    >>> tokens.shape, domains.shape
    (torch.Size([4, 6]), torch.Size([4]))
    >>> bool(data.is_valid(tokens, domains).all())
    True
    """

    def __init__(
        self, n_domains: int = 8, vocab_size: int = 128, n_successors: int = 4, seed: int = 0
    ) -> None:
        self.n_domains = check_int("n_domains", n_domains, low=1)
        self.vocab_size = check_int("vocab_size", vocab_size, low=2)
        self.n_successors = check_int("n_successors", n_successors, low=1)
        check_int("seed", seed, low=0)
        if n_successors > vocab_size:
            raise ValueError(f"n_successors must be <= vocab_size={vocab_size}, got {n_successors}")
        gen = torch.Generator().manual_seed(int(seed))
        # successors[d, v] = the n_successors tokens that may follow v in domain d
        self.successors = torch.stack(
            [
                torch.stack(
                    [torch.randperm(vocab_size, generator=gen)[:n_successors] for _ in range(vocab_size)]
                )
                for _ in range(n_domains)
            ]
        )
        allowed = torch.zeros(n_domains, vocab_size, vocab_size, dtype=torch.bool)
        self.allowed = allowed.scatter_(-1, self.successors, True)

    def sample(self, n_seqs: int, seq_len: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        """Token ids (n_seqs, seq_len) and the hidden domain of each sequence (n_seqs,)."""
        check_int("n_seqs", n_seqs, low=1)
        check_int("seq_len", seq_len, low=1)
        domains = torch.randint(self.n_domains, (n_seqs,), generator=generator)
        tokens = torch.empty(n_seqs, seq_len, dtype=torch.long)
        tokens[:, 0] = torch.randint(self.vocab_size, (n_seqs,), generator=generator)
        for t in range(1, seq_len):
            choice = torch.randint(self.n_successors, (n_seqs,), generator=generator)
            tokens[:, t] = self.successors[domains, tokens[:, t - 1], choice]
        return tokens, domains

    def is_valid(self, tokens: Tensor, domains: Tensor) -> Tensor:
        """Whether every transition of each sequence is allowed in its domain, (n_seqs,)."""
        ok = self.allowed[domains[:, None], tokens[:, :-1], tokens[:, 1:]]
        return ok.all(-1)

    def bayes_loss(self, tokens: Tensor) -> float:
        """Mean next-token cross-entropy (nats) of the Bayes-optimal predictor over positions 1..T-1.

        The posterior over domains after a prefix is uniform over the domains in which every transition so far
        is allowed; the prediction is that posterior's mixture of the uniform successor distributions.
        """
        prev, nxt = tokens[:, :-1], tokens[:, 1:]
        # ok[n, t, d]: transition t of sequence n is allowed in domain d
        ok = self.allowed[:, prev, nxt].permute(1, 2, 0)
        alive = torch.cat(
            [torch.ones_like(ok[:, :1]), torch.cumprod(ok, dim=1)[:, :-1].bool()], dim=1
        ).double()
        post = alive / alive.sum(-1, keepdim=True)
        p_next = (post * ok.double()).sum(-1) / self.n_successors
        return float(-torch.log(p_next).mean())

    def domain_blind_loss(self, tokens: Tensor) -> float:
        """Mean next-token cross-entropy (nats) over positions 1..T-1 of the best predictor that sees only the
        position and the current token, not the history: the floor of a model that never infers the domain.

        At position t the domain posterior given only ``x_t = v`` is proportional to ``mu_{d,t}(v)``, the chance
        that domain d's walk (uniform start) is at v after t steps; the prediction is that posterior's mixture of
        the domains' uniform successor distributions.
        """
        trans = self.allowed.double() / self.n_successors  # (D, V, V)
        mu = torch.full((self.n_domains, self.vocab_size), 1.0 / self.vocab_size, dtype=torch.float64)
        total, count = 0.0, 0
        for t in range(tokens.shape[1] - 1):
            prev, nxt = tokens[:, t], tokens[:, t + 1]
            w = mu[:, prev]  # (D, n): unnormalised posterior over domains given x_t
            p = (w * trans[:, prev, nxt]).sum(0) / w.sum(0)
            total += float(-torch.log(p).sum())
            count += prev.numel()
            mu = torch.einsum("dv,dvw->dw", mu, trans)
        return total / count
