"""``TinyCNNBackend``: a small CNN over the panels + a question-template embedding + an option-scoring head.

The trained backend of the brief's offline reproduction. Each panel is fed at ``input_size`` pixels through a
shared four-layer strided CNN whose flattened map keeps where things are; the panel codes are concatenated with an
embedding of the question template (level x language) and mapped to a query ``h``; an option is scored by
``h . e(option) + b(option)`` with one embedding per option token (8 culture names, Kai, Lumi, Noor, "none" in any
language). L1 and L2 pick the best of the 4 offered options; L3 is a retrieval head over the phrase table: it scores
all 8 cultures and answers with the chosen culture's greeting sentence in the question's language.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from PIL import Image
from torch import nn

from iclr26.checks import check_float, check_int
from iclr26.generative.c3b.comics import split_panels
from iclr26.generative.c3b.cultures import (
    CHARACTERS,
    CULTURES,
    LANGUAGES,
    NONE_WORD,
    QUESTIONS,
    greeting_reference,
)
from iclr26.lab.vision import VLMBackend, VQAItem, images_to_tensor, load_image

__all__ = ["OPTION_TOKENS", "TinyCNN", "TinyCNNBackend", "option_token", "template_id"]

OPTION_TOKENS = (*[c.name for c in CULTURES], *CHARACTERS, "none")
_TOKEN = {t: i for i, t in enumerate(OPTION_TOKENS)}
_TOKEN.update({w: len(OPTION_TOKENS) - 1 for w in NONE_WORD.values()})
_TEMPLATE = {
    QUESTIONS[lv][lang]: (lv - 1) * len(LANGUAGES) + j for lv in (1, 2, 3) for j, lang in enumerate(LANGUAGES)
}
_L3 = tuple(range(len(CULTURES)))


def template_id(question: str) -> int | None:
    """The index of a known question template (level x language), or None."""
    return _TEMPLATE.get(question)


def option_token(choice: str) -> int | None:
    """The option-token index of a choice's text, or None for an unknown option."""
    return _TOKEN.get(choice)


class TinyCNN(nn.Module):
    """``(batch, panels, 3, S, S)`` panels and template ids -> a query vector per item, scored against options."""

    def __init__(self, input_size: int = 96, n_panels: int = 3, width: int = 32, dim: int = 64) -> None:
        super().__init__()
        check_int("input_size", input_size, 1)
        check_int("n_panels", n_panels, 1)
        check_int("width", width, 2)
        check_int("dim", dim, 1)
        chans = [3, width // 2, width, width, width]
        layers: list[nn.Module] = []
        for a, b in zip(chans[:-1], chans[1:], strict=True):
            layers += [nn.Conv2d(a, b, 3, stride=2, padding=1), nn.ReLU()]
        self.encoder = nn.Sequential(*layers, nn.Flatten())
        side = input_size
        for _ in range(4):
            side = (side + 1) // 2
        self.panel = nn.Linear(width * side * side, dim)
        self.template = nn.Embedding(len(_TEMPLATE), 32)
        self.query = nn.Sequential(nn.Linear(n_panels * dim + 32, 128), nn.ReLU(), nn.Linear(128, dim))
        self.options = nn.Embedding(len(OPTION_TOKENS), dim)
        self.option_bias = nn.Embedding(len(OPTION_TOKENS), 1)
        self.n_panels = n_panels

    def encode(self, panels: torch.Tensor) -> torch.Tensor:
        """``(batch, panels, 3, S, S)`` -> ``(batch, panels * dim)``."""
        b, p = panels.shape[:2]
        z = torch.relu(self.panel(self.encoder(panels.flatten(0, 1))))
        return z.reshape(b, p * z.shape[-1])

    def scores(self, code: torch.Tensor, templates: torch.Tensor, options: torch.Tensor) -> torch.Tensor:
        """Option scores ``(items, k)`` for image codes ``(items, d)``, template ids ``(items,)``, option ids
        ``(items, k)``."""
        h = self.query(torch.cat([code, self.template(templates)], dim=-1))
        return torch.einsum("nd,nkd->nk", h, self.options(options)) + self.option_bias(options).squeeze(-1)


def _panels(image: Image.Image, size: int) -> torch.Tensor:
    return images_to_tensor(split_panels(load_image(image)), size=size)


class TinyCNNBackend(VLMBackend):
    """The trained offline backend: ``fit`` on the training split, then ``predict`` like any VLM.

    Parameters
    ----------
    input_size : pixels each panel is resized to (the brief: 96).
    epochs, batch_size, lr : training (Adam, cross-entropy over the offered options); a batch is ``batch_size``
        strips with all their items.
    seed : the initialisation and shuffling seed.

    Example
    -------
    >>> from iclr26.generative.c3b import ComicGenerator
    >>> train = ComicGenerator(panel_size=64).split(8, seed=0)
    >>> backend = TinyCNNBackend(input_size=32, epochs=1).fit(train)
    >>> isinstance(backend.predict(train[0].image, train[0].question, choices=train[0].choices), str)
    True
    """

    name = "tinycnn"

    def __init__(
        self, input_size: int = 96, epochs: int = 2, batch_size: int = 32, lr: float = 2e-3, seed: int = 0
    ) -> None:
        self.input_size = check_int("input_size", input_size, 16, 512)
        self.epochs = check_int("epochs", epochs, 0)
        self.batch_size = check_int("batch_size", batch_size, 1)
        self.lr = check_float("lr", lr, 0.0, None, low_open=True)
        self.seed = check_int("seed", seed, 0)
        self.model: TinyCNN | None = None
        self.losses: list[float] = []

    @staticmethod
    def _targets(item: VQAItem) -> tuple[int, list[int], int] | None:
        t = template_id(item.question)
        if t is None:
            return None
        if item.choices is None:
            return t, list(_L3), CULTURES.index(next(c for c in CULTURES if c.key == item.meta["answer_key"]))
        opts = [option_token(c) for c in item.choices]
        if any(o is None for o in opts):
            return None
        return t, opts, item.choices.index(item.answer)  # type: ignore[return-value]

    def fit(self, items: Sequence[VQAItem]) -> TinyCNNBackend:
        """Train on ``items`` (items sharing one image object are encoded once per step)."""
        if not items:
            raise ValueError("items must be a non-empty sequence of VQAItem")
        torch.manual_seed(self.seed)
        rng = np.random.default_rng(self.seed)
        self.model = TinyCNN(self.input_size)
        index: dict[int, int] = {}
        images: list[torch.Tensor] = []
        rows: list[list[tuple[int, list[int], int]]] = []
        for it in items:
            tgt = self._targets(it)
            if tgt is None:
                continue
            k = index.setdefault(id(it.image), len(images))
            if k == len(images):
                images.append((_panels(it.image, self.input_size) * 255).round().to(torch.uint8))
                rows.append([])
            rows[k].append(tgt)
        if not images:
            raise ValueError("no trainable item: every question or option is unknown to the backend")
        pix = torch.stack(images)
        opt = torch.optim.Adam(self.model.parameters(), lr=self.lr)
        self.losses = []
        for _ in range(self.epochs):
            order = rng.permutation(len(images))
            for start in range(0, len(images), self.batch_size):
                sel = order[start : start + self.batch_size]
                code = self.model.encode(pix[sel].float() / 255.0)
                owner, tmpl, opts, target, mask = [], [], [], [], []
                for j, k in enumerate(sel):
                    for t, o, y in rows[k]:
                        owner.append(j)
                        tmpl.append(t)
                        opts.append(o + [0] * (len(_L3) - len(o)))
                        mask.append([True] * len(o) + [False] * (len(_L3) - len(o)))
                        target.append(y)
                s = self.model.scores(code[owner], torch.tensor(tmpl), torch.tensor(opts))
                s = s.masked_fill(~torch.tensor(mask), float("-inf"))
                loss = nn.functional.cross_entropy(s, torch.tensor(target))
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.losses.append(loss.item())
        self.model.eval()
        return self

    @torch.no_grad()
    def predict(self, image, question, *, choices=None, max_tokens=64):
        if self.model is None:
            raise RuntimeError("TinyCNNBackend is not fitted: call fit(train_items) first")
        t = template_id(question)
        if t is None:
            return None
        opts = list(_L3) if not choices else [option_token(c) for c in choices]
        if any(o is None for o in opts):
            return None
        code = self.model.encode(_panels(image, self.input_size)[None])
        s = self.model.scores(code, torch.tensor([t]), torch.tensor([opts]))[0]
        best = int(s.argmax())
        if choices:
            return choices[best]
        return greeting_reference(CULTURES[best], LANGUAGES[t % len(LANGUAGES)])
