"""A local Hugging Face causal LM as a chat backend: greedy or seeded sampling, stop strings, token counts.

Decoding is a short explicit loop over the model's key/value cache rather than ``model.generate``, so that
the sampling rule is exactly ``softmax(logits / temperature)`` drawn with a ``torch.Generator`` seeded by
the request's ``seed`` (no hidden top-k/top-p defaults from a generation config, no global RNG state).
"""

from __future__ import annotations

import inspect
from typing import Any

import torch

from iclr26.lab.llm.base import ChatRequest, Completion, LLMBackend, Message, truncate_at_stop


def transcript(messages: tuple[Message, ...] | list[Message]) -> str:
    """The prompt used when a tokenizer has no chat template: ``role: content`` lines, then ``assistant:``."""
    return "\n".join(f"{m.role}: {m.content}" for m in messages) + "\nassistant:"


class TransformersBackend(LLMBackend):
    """Chat with any local causal LM and its tokenizer.

    The prompt is built with ``tokenizer.apply_chat_template`` when the tokenizer has a chat template, else
    with :func:`transcript`. ``temperature == 0`` decodes greedily; otherwise tokens are drawn from
    ``softmax(logits / temperature)`` with a generator seeded by ``seed`` (fresh entropy when ``seed`` is
    None). Generation ends at an end-of-sequence token, a stop string (the text is cut before it),
    ``max_tokens``, or the model's context length. ``completion_tokens`` counts every generated token
    (including the end-of-sequence or stop-completing one), and ``logprobs`` holds each token's
    log-probability under the model's untempered distribution.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        A causal LM; it is moved to ``device`` and put in eval mode.
    tokenizer : transformers.PreTrainedTokenizerBase
        Its tokenizer.
    device : str or torch.device
        Where to run the model.
    name : str, optional
        The model name reported in completions and used in cache keys; defaults to the model's
        ``name_or_path``. Give distinct names to distinct models that have no path (e.g. randomly
        initialised ones) before sharing a cache between them.

    Examples
    --------
    >>> from transformers import AutoModelForCausalLM, AutoTokenizer
    >>> path = "/path/to/local/model"  # doctest: +SKIP
    >>> llm = TransformersBackend(AutoModelForCausalLM.from_pretrained(path),
    ...                           AutoTokenizer.from_pretrained(path))  # doctest: +SKIP
    >>> llm.complete("Name a prime number.", max_tokens=8).text  # doctest: +SKIP
    """

    def __init__(
        self, model: Any, tokenizer: Any, device: str | torch.device = "cpu", name: str | None = None
    ):
        if not isinstance(model, torch.nn.Module) or not hasattr(model, "config"):
            raise ValueError(
                f"model must be a Hugging Face causal LM (torch module), got {type(model).__name__}"
            )
        if not callable(tokenizer) or not hasattr(tokenizer, "decode"):
            raise ValueError(f"tokenizer must be a Hugging Face tokenizer, got {type(tokenizer).__name__}")
        self.device = torch.device(device)
        self.lm = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.model = name or getattr(model, "name_or_path", "") or type(model).__name__
        forward_params = inspect.signature(model.forward).parameters
        self._cache_kw = "cache" if "cache" in forward_params else "past_key_values"
        self._max_positions = getattr(model.config, "max_position_embeddings", None)
        eos: set[int] = set()
        for source in (
            getattr(tokenizer, "eos_token_id", None),
            getattr(model.generation_config, "eos_token_id", None),
        ):
            eos.update([source] if isinstance(source, int) else list(source or ()))
        self._eos = eos

    @property
    def identity(self) -> str:
        return f"transformers:{self.model}"

    def _prompt_ids(self, messages: tuple[Message, ...]) -> torch.Tensor:
        if getattr(self.tokenizer, "chat_template", None):
            text = self.tokenizer.apply_chat_template(
                [m.to_dict() for m in messages], add_generation_prompt=True, tokenize=False
            )
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        else:
            ids = self.tokenizer(transcript(messages))["input_ids"]
        if len(ids) == 0:
            raise ValueError("messages encode to an empty prompt; the tokenizer produced no tokens")
        if self._max_positions is not None and len(ids) >= self._max_positions:
            raise ValueError(
                f"messages encode to {len(ids)} tokens but the model accepts at most {self._max_positions}"
            )
        return torch.tensor([ids], dtype=torch.long, device=self.device)

    def _next_token(self, logits: torch.Tensor, temperature: float, generator: torch.Generator | None) -> int:
        if generator is None:
            return int(logits.argmax())
        probs = torch.softmax(logits / temperature, dim=-1)
        return int(torch.multinomial(probs, 1, generator=generator))

    @torch.inference_mode()
    def _chat(self, request: ChatRequest) -> Completion:
        input_ids = self._prompt_ids(request.messages)
        prompt_len = input_ids.shape[1]
        budget = request.max_tokens
        if self._max_positions is not None:
            budget = min(budget, self._max_positions - prompt_len)
        generator = None
        if request.temperature > 0:
            generator = torch.Generator(device=self.device)
            if request.seed is None:
                generator.seed()
            else:
                generator.manual_seed(request.seed)
        tokens: list[int] = []
        logprobs: list[float] = []
        text, finish, cache = "", "length", None
        while len(tokens) < budget:
            out = self.lm(input_ids=input_ids, use_cache=True, **{self._cache_kw: cache})
            cache = out.get(self._cache_kw)
            logits = out.logits[0, -1].float()
            token = self._next_token(logits, request.temperature, generator)
            tokens.append(token)
            logprobs.append(float(torch.log_softmax(logits, dim=-1)[token]))
            if token in self._eos:
                finish = "stop"
                break
            text = self.tokenizer.decode(tokens, skip_special_tokens=True)
            text, stopped = truncate_at_stop(text, request.stop)
            if stopped:
                finish = "stop"
                break
            input_ids = torch.tensor([[token]], dtype=torch.long, device=self.device)
        return Completion(
            text=text,
            prompt_tokens=prompt_len,
            completion_tokens=len(tokens),
            model=self.model,
            logprobs=logprobs,
            finish_reason=finish,
        )

    def __repr__(self) -> str:
        return f"TransformersBackend(model={self.model!r}, device={str(self.device)!r})"
