"""Tests for iclr26.lab.llm: scripted, cached, OpenAI-compatible (against a local stub) and local HF."""

from __future__ import annotations

import json
import socket

import pytest
import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from iclr26.lab.llm import (
    CachedBackend,
    Completion,
    LLMError,
    Message,
    OpenAICompatibleBackend,
    ScriptedBackend,
    TransformersBackend,
    make_backend,
    transcript,
)
from tests.llm_stub import ok_reply, serve_stub

SECRET = "sk-test-7f3a9c1d-do-not-leak"

# ---------------------------------------------------------------------------------------------------------
# Argument validation (shared by every backend through LLMBackend.chat)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": 2.5}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"temperature": -0.1}, "temperature"),
        ({"temperature": float("nan")}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"stop": ""}, "stop"),
        ({"stop": ["ok", 3]}, "stop"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_chat_rejects_bad_arguments_naming_them(kwargs, argument):
    llm = ScriptedBackend(["x"])
    with pytest.raises(ValueError, match=argument):
        llm.chat([Message("user", "hi")], **kwargs)
    assert llm.calls == []


@pytest.mark.parametrize(
    ("messages", "fragment"),
    [([], "messages must be non-empty"), ("hi", "messages"), ([{"role": "user"}], "messages")],
)
def test_chat_rejects_bad_messages(messages, fragment):
    with pytest.raises(ValueError, match=fragment):
        ScriptedBackend(["x"]).chat(messages)


def test_message_rejects_unknown_role_and_dicts_are_accepted():
    with pytest.raises(ValueError, match="role"):
        Message("robot", "beep")
    with pytest.raises(ValueError, match="role"):
        ScriptedBackend(["x"]).chat([{"role": "robot", "content": "beep"}])
    llm = ScriptedBackend(["x"])
    llm.chat([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}])
    assert llm.calls[0].messages == (Message("system", "s"), Message("user", "u"))


def test_complete_sends_one_user_message_and_validates_prompt():
    llm = ScriptedBackend(["x"])
    llm.complete("hello", max_tokens=5, temperature=0.5, stop="\n", seed=2)
    call = llm.calls[0]
    assert call.messages == (Message("user", "hello"),)
    assert (call.max_tokens, call.temperature, call.stop, call.seed) == (5, 0.5, ("\n",), 2)
    with pytest.raises(ValueError, match="prompt"):
        llm.complete(["not", "a", "str"])


# ---------------------------------------------------------------------------------------------------------
# ScriptedBackend


def test_scripted_list_in_order_then_error_or_cycle():
    llm = ScriptedBackend(["a", "b"])
    assert [llm.complete("q").text for _ in range(2)] == ["a", "b"]
    with pytest.raises(LLMError, match="ran out of responses after 2"):
        llm.complete("q")
    cyc = ScriptedBackend(["a", "b"], cycle=True)
    assert [cyc.complete("q").text for _ in range(5)] == ["a", "b", "a", "b", "a"]


def test_scripted_dict_matches_substring_of_last_user_message():
    llm = ScriptedBackend({"capital": "Paris", "2 + 2": "4"}, default="?")
    msgs = [Message("user", "What is the capital?"), Message("assistant", "Paris"), Message("user", "2 + 2?")]
    assert llm.chat(msgs).text == "4"
    assert llm.complete("the capital of France").text == "Paris"
    assert llm.complete("unrelated").text == "?"
    with pytest.raises(LLMError, match="no reply for 'unrelated'"):
        ScriptedBackend({"capital": "Paris"}).complete("unrelated")


def test_scripted_callable_gets_messages_and_calls_are_recorded():
    seen = []

    def responder(messages):
        seen.append(messages)
        return f"{len(messages)} messages"

    llm = ScriptedBackend(responder)
    out = llm.chat([Message("system", "s"), Message("user", "one two three")], max_tokens=7)
    assert out.text == "2 messages"
    assert seen[0] == [Message("system", "s"), Message("user", "one two three")]
    assert len(llm.calls) == 1 and llm.calls[0].max_tokens == 7
    assert (out.prompt_tokens, out.completion_tokens, out.model) == (4, 2, "scripted")
    assert out.latency_s >= 0 and out.logprobs is None


def test_scripted_honours_stop_strings():
    llm = ScriptedBackend(["Thought: go\nAction: search\nObservation: fake"], cycle=True)
    assert llm.complete("q", stop=["Observation:", "\nAction"]).text == "Thought: go"
    assert llm.complete("q").text.endswith("fake")


@pytest.mark.parametrize("responses", [[], [1, 2], "just a string", 42, {"k": 1}])
def test_scripted_rejects_bad_responses(responses):
    with pytest.raises(ValueError, match="responses"):
        ScriptedBackend(responses)


# ---------------------------------------------------------------------------------------------------------
# CachedBackend


def test_cache_hit_does_not_reach_inner_backend(tmp_path):
    inner = ScriptedBackend(["first", "second"], cycle=True)
    llm = CachedBackend(inner, tmp_path / "cache")
    a = llm.complete("hi", max_tokens=8)
    b = llm.complete("hi", max_tokens=8)
    assert a.text == b.text == "first"
    assert len(inner.calls) == 1 and (llm.hits, llm.misses) == (1, 1)
    # Any change of argument is a different entry.
    assert llm.complete("hi", max_tokens=9).text == "second"
    assert llm.complete("hi", max_tokens=8, stop=["x"]).text == "first"
    assert len(inner.calls) == 3
    files = sorted((tmp_path / "cache").iterdir())
    assert len(files) == 3 and all(f.suffix == ".json" for f in files)
    entry = json.loads(files[0].read_text())
    assert set(entry) == {"key", "request", "completion"} and files[0].stem == entry["key"]


def test_cache_persists_across_instances_and_seeded_sampling_is_cached(tmp_path):
    inner = ScriptedBackend(["x", "y"], cycle=True)
    CachedBackend(inner, tmp_path).complete("hi", temperature=0.7, seed=3)
    again = CachedBackend(inner, tmp_path)
    assert again.complete("hi", temperature=0.7, seed=3).text == "x"
    assert len(inner.calls) == 1 and again.hits == 1


def test_cache_skips_nondeterministic_requests(tmp_path):
    inner = ScriptedBackend(["x", "y"])
    llm = CachedBackend(inner, tmp_path)
    assert [llm.complete("hi", temperature=0.7).text for _ in range(2)] == ["x", "y"]
    assert len(inner.calls) == 2 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "corruption",
    ["{not json", "\xff\xfe binary", "[]", '{"key": "wrong", "completion": {"text": "evil"}}', "null"],
)
def test_corrupt_cache_entry_is_ignored_and_overwritten(tmp_path, corruption):
    inner = ScriptedBackend(["fresh"], cycle=True)
    llm = CachedBackend(inner, tmp_path)
    llm.complete("hi")
    (path,) = tmp_path.iterdir()
    path.write_text(corruption, encoding="latin-1")
    assert llm.complete("hi").text == "fresh"
    assert len(inner.calls) == 2
    assert json.loads(path.read_text())["completion"]["text"] == "fresh"
    assert llm.complete("hi").text == "fresh" and len(inner.calls) == 2
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp files left behind


def test_cache_entry_with_wrong_field_types_is_a_miss(tmp_path):
    inner = ScriptedBackend(["fresh"], cycle=True)
    llm = CachedBackend(inner, tmp_path)
    llm.complete("hi")
    (path,) = tmp_path.iterdir()
    entry = json.loads(path.read_text())
    entry["completion"]["prompt_tokens"] = "many"
    path.write_text(json.dumps(entry))
    assert llm.complete("hi").prompt_tokens == 1 and len(inner.calls) == 2


# ---------------------------------------------------------------------------------------------------------
# OpenAICompatibleBackend against a stub server on 127.0.0.1


@pytest.fixture
def stub():
    with serve_stub() as served:
        yield served


def test_http_request_body_headers_and_parsing(stub):
    url, state = stub
    llm = OpenAICompatibleBackend(url + "/", "tiny-chat", api_key=SECRET, backoff_s=0)
    msgs = [Message("system", "Be brief."), Message("user", "ping")]
    out = llm.chat(msgs, max_tokens=5, temperature=0.2, stop=["\n"], seed=7)
    (req,) = state.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["body"] == {
        "model": "tiny-chat",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "ping"}],
        "max_tokens": 5,
        "temperature": 0.2,
        "stop": ["\n"],
        "seed": 7,
    }
    assert req["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert req["headers"]["Content-Type"] == "application/json"
    assert (out.text, out.prompt_tokens, out.completion_tokens, out.model) == ("pong", 11, 1, "stub-model")
    assert out.finish_reason == "stop" and out.raw["id"] == "chatcmpl-1" and out.logprobs is None
    llm.complete("again")
    assert "stop" not in state.requests[1]["body"] and "seed" not in state.requests[1]["body"]


def test_http_key_from_env_and_never_in_repr(stub, monkeypatch):
    url, state = stub
    monkeypatch.setenv("MY_LLM_KEY", SECRET)
    llm = OpenAICompatibleBackend(url, "m", api_key_env="MY_LLM_KEY")
    llm.complete("hi")
    assert state.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in repr(llm) and "***" in repr(llm)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    OpenAICompatibleBackend(url, "m").complete("hi")
    assert "Authorization" not in state.requests[1]["headers"]


def test_http_retries_500_then_succeeds(stub):
    url, state = stub
    state.replies = [(500, {"error": {"message": "overloaded"}}), (429, "slow down"), ok_reply("finally")]
    out = OpenAICompatibleBackend(url, "m", api_key=SECRET, backoff_s=0, max_retries=2).complete("hi")
    assert out.text == "finally" and len(state.requests) == 3


def test_http_gives_up_after_max_retries(stub):
    url, state = stub
    state.replies = [(503, {"error": {"message": "down"}})] * 3
    with pytest.raises(LLMError, match="HTTP 503 after 2 attempts: down") as info:
        OpenAICompatibleBackend(url, "m", backoff_s=0, max_retries=1).complete("hi")
    assert info.value.status == 503 and len(state.requests) == 2


def test_http_400_is_a_clear_error_without_the_key(stub):
    url, state = stub
    echoed = f"Invalid request: unknown field 'temprature' (key {SECRET})"
    state.replies = [(400, {"error": {"message": echoed, "type": "invalid_request_error"}})]
    llm = OpenAICompatibleBackend(url, "m", api_key=SECRET, backoff_s=0)
    with pytest.raises(LLMError) as info:
        llm.complete("hi")
    text = str(info.value)
    assert info.value.status == 400 and len(state.requests) == 1
    assert "HTTP 400" in text and "unknown field 'temprature'" in text and url in text
    assert SECRET not in text and "***" in text
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_http_malformed_response_and_logprobs(stub):
    url, state = stub
    lp = {"content": [{"token": "po", "logprob": -0.5}, {"token": "ng", "logprob": -0.25}]}
    state.replies = [(200, {"choices": []}), (200, "<html>oops</html>"), ok_reply()]
    state.replies[2][1]["choices"][0]["logprobs"] = lp
    llm = OpenAICompatibleBackend(url, "m", backoff_s=0, request_logprobs=True)
    with pytest.raises(LLMError, match="no choices"):
        llm.complete("hi")
    with pytest.raises(LLMError, match="not JSON"):
        llm.complete("hi")
    assert llm.complete("hi").logprobs == [-0.5, -0.25]
    assert state.requests[0]["body"]["logprobs"] is True


def test_http_unreachable_server_retries_then_raises():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again on exit: nothing listens there
    llm = OpenAICompatibleBackend(f"http://127.0.0.1:{port}/v1", "m", api_key=SECRET, backoff_s=0, timeout=2)
    with pytest.raises(LLMError, match="could not reach .* after 3 attempts") as info:
        llm.complete("hi")
    assert info.value.status is None and SECRET not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"base_url": "ftp://h/v1"}, "base_url"),
        ({"base_url": "http://user:pw@h/v1"}, "base_url"),
        ({"model": ""}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"backoff_s": -1}, "backoff_s"),
    ],
)
def test_http_rejects_bad_constructor_arguments(kwargs, argument):
    args = {"base_url": "http://127.0.0.1:1/v1", "model": "m", **kwargs}
    with pytest.raises(ValueError, match=argument):
        OpenAICompatibleBackend(**args)


# ---------------------------------------------------------------------------------------------------------
# TransformersBackend with a tiny random GPT-2 and a character-level tokenizer built offline

CHARS = "abcdefghijklmnopqrstuvwxyz:.!?> \n"


def char_tokenizer() -> PreTrainedTokenizerFast:
    vocab = {"<unk>": 0, "<eos>": 1, **{c: i + 2 for i, c in enumerate(CHARS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>")


def tiny_gpt2(n_positions: int = 96) -> GPT2LMHeadModel:
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(CHARS) + 2, n_embd=16, n_layer=1, n_head=2, n_positions=n_positions, bos_token_id=None,
        eos_token_id=None,
    )  # fmt: skip
    return GPT2LMHeadModel(config)


@pytest.fixture(scope="module")
def tiny():
    return tiny_gpt2(), char_tokenizer()


def test_hf_greedy_is_deterministic_and_matches_uncached_argmax(tiny):
    model, tok = tiny
    llm = TransformersBackend(model, tok)
    a, b = llm.complete("hi there", max_tokens=12), llm.complete("hi there", max_tokens=12)
    assert a.text == b.text and a.logprobs == b.logprobs
    # Oracle: recompute the whole sequence at every step, no key/value cache.
    ids = tok(transcript([Message("user", "hi there")]))["input_ids"]
    assert a.prompt_tokens == len(ids)
    generated = []
    with torch.no_grad():
        for _ in range(a.completion_tokens):
            generated.append(int(model(torch.tensor([ids + generated])).logits[0, -1].argmax()))
    assert a.text == tok.decode(generated, skip_special_tokens=True)
    assert len(a.logprobs) == a.completion_tokens and all(lp <= 0 for lp in a.logprobs)


def test_hf_seed_makes_sampling_reproducible(tiny):
    llm = TransformersBackend(*tiny)
    draws = [llm.complete("hi", max_tokens=16, temperature=1.0, seed=s).text for s in (3, 3, 4)]
    assert draws[0] == draws[1] != draws[2]
    greedy = llm.complete("hi", max_tokens=16).text
    assert draws[0] != greedy
    state = torch.random.get_rng_state()
    llm.complete("hi", max_tokens=4, temperature=1.0, seed=5)
    assert torch.equal(state, torch.random.get_rng_state())  # the global RNG is left alone


def test_hf_stop_strings_truncate(tiny):
    llm = TransformersBackend(*tiny)
    full = llm.complete("hi", max_tokens=24)
    assert full.finish_reason == "length" and full.completion_tokens == 24
    stop = full.text[6:8]
    cut = llm.complete("hi", max_tokens=24, stop=[stop, "not-there"])
    assert cut.text == full.text[: full.text.find(stop)] and cut.finish_reason == "stop"
    assert stop not in cut.text and cut.completion_tokens < 24


def test_hf_end_of_sequence_stops_generation(tiny):
    model, tok = tiny
    first = TransformersBackend(model, tok).complete("hi", max_tokens=3).text[0]
    eos_model = tiny_gpt2()
    eos_model.generation_config.eos_token_id = tok.convert_tokens_to_ids(first)
    out = TransformersBackend(eos_model, tok).complete("hi", max_tokens=3)
    assert (out.text, out.completion_tokens, out.finish_reason) == ("", 1, "stop")


def test_hf_uses_chat_template_when_present(tiny):
    model, _ = tiny
    tok = char_tokenizer()
    tok.chat_template = (
        "{% for m in messages %}{{ m.role[0] }}> {{ m.content }}\n{% endfor %}"
        "{% if add_generation_prompt %}a>{% endif %}"
    )
    out = TransformersBackend(model, tok).chat(
        [Message("system", "be kind"), Message("user", "hi")], max_tokens=2
    )
    assert out.prompt_tokens == len("s> be kind\nu> hi\na>")


def test_hf_context_length_is_respected():
    llm = TransformersBackend(tiny_gpt2(n_positions=24), char_tokenizer(), name="ctx24")
    out = llm.complete("hi", max_tokens=50)  # the prompt is 19 tokens, so only 5 fit
    assert out.completion_tokens == 5 and out.finish_reason == "length" and out.model == "ctx24"
    with pytest.raises(ValueError, match="at most 24"):
        llm.complete("a much longer prompt than fits")


def test_hf_rejects_non_models():
    with pytest.raises(ValueError, match="model"):
        TransformersBackend("gpt2", char_tokenizer())


# ---------------------------------------------------------------------------------------------------------
# make_backend


def test_make_backend_scripted_and_cache_dir(tmp_path):
    echo = make_backend("scripted")
    assert isinstance(echo, ScriptedBackend) and echo.complete("ping").text == "ping"
    canned = make_backend("scripted", responses=["a"], cache_dir=tmp_path)
    assert isinstance(canned, CachedBackend) and canned.complete("q").text == "a"
    assert canned.complete("q").text == "a" and canned.hits == 1


@pytest.mark.parametrize(
    ("spec", "base_url", "model"),
    [
        ("http://127.0.0.1:8000/v1@llama3:8b", "http://127.0.0.1:8000/v1", "llama3:8b"),
        ("https://api.example.com/v1@org/model-7b", "https://api.example.com/v1", "org/model-7b"),
        ("  http://localhost:11434/v1/@qwen  ", "http://localhost:11434/v1", "qwen"),
    ],
)
def test_make_backend_http(spec, base_url, model):
    llm = make_backend(spec, api_key=SECRET, timeout=5)
    assert isinstance(llm, OpenAICompatibleBackend)
    assert (llm.base_url, llm.model, llm.timeout) == (base_url, model, 5.0)
    assert SECRET not in repr(llm)


def test_make_backend_hf_loads_local_directory(tmp_path, tiny):
    model, tok = tiny
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    llm = make_backend(f"hf:{tmp_path}")
    assert isinstance(llm, TransformersBackend) and llm.model == str(tmp_path)
    assert (
        llm.complete("hi", max_tokens=8).text
        == TransformersBackend(model, tok).complete("hi", max_tokens=8).text
    )


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "gpt-4o",
        "scripted-v2",
        "http://127.0.0.1:8000/v1",
        "http://127.0.0.1:8000/v1@",
        "http://@model",
        "http://user:pw@host/v1@model",
        "ftp://host/v1@model",
        "hf:",
        "hf:/definitely/not/a/dir",
        None,
    ],
)
def test_make_backend_rejects_bad_specs(spec, tmp_path):
    with pytest.raises(ValueError, match="accepted forms") as info:
        make_backend(spec)
    assert repr(spec.strip() if isinstance(spec, str) else spec) in str(info.value)
    for form in ("scripted", "http://host:port/v1@model-name", "hf:"):
        assert form in str(info.value)


def test_completion_defaults():
    c = Completion("t")
    assert (c.prompt_tokens, c.completion_tokens, c.raw, c.logprobs, c.finish_reason) == (None,) * 5


# ---------------------------------------------------------------------------------------------------------
# Redirects and credentials


@pytest.fixture
def other_stub():
    """A second server: another origin (another port) that records whatever reaches it."""
    with serve_stub() as served:
        yield served


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_http_redirect_to_another_origin_never_gets_the_key(stub, other_stub, code):
    url, state = stub
    other_url, other = other_stub
    for allow in (False, True):
        state.replies = [(code, {"__location__": other_url + "/chat/completions"})]
        llm = OpenAICompatibleBackend(
            url, "m", api_key=SECRET, backoff_s=0, max_retries=0, allow_redirects=allow
        )
        with pytest.raises(LLMError, match="redirect") as info:
            llm.complete("hi")
        assert SECRET not in str(info.value)
    assert other.requests == []


def test_http_same_origin_redirect_only_when_allowed(stub):
    url, state = stub
    state.replies = [(307, {"__location__": url + "/chat/completions?v=2"})]
    with pytest.raises(LLMError, match="redirects are refused"):
        OpenAICompatibleBackend(url, "m", api_key=SECRET, backoff_s=0, max_retries=0).complete("hi")
    state.replies = [(307, {"__location__": url + "/chat/completions?v=2"}), ok_reply("moved")]
    llm = OpenAICompatibleBackend(url, "m", api_key=SECRET, backoff_s=0, max_retries=0, allow_redirects=True)
    assert llm.complete("hi").text == "moved"


def test_cache_never_writes_a_key_the_server_echoes(stub, tmp_path):
    url, state = stub
    state.replies = [ok_reply(f"your key is {SECRET.upper()}", echo={"authorization": f"Bearer {SECRET}"})]
    llm = CachedBackend(OpenAICompatibleBackend(url, "m", api_key=SECRET), tmp_path)
    llm.complete("hi", temperature=0.0)
    written = "".join(p.read_text() for p in tmp_path.glob("*.json"))
    assert (
        written and SECRET not in written and SECRET.upper() not in written and SECRET.lower() not in written
    )
    assert "chatcmpl-1" not in written  # the raw response is not stored at all


@pytest.mark.parametrize(
    "text",
    [
        "sk-proj-abcdefgh12345678",
        "SK-ABCDEFGHIJKLMNOP",
        "Bearer abc.def.ghi-123",
        "hf_abcdefghijklmnop",
        '"api_key": "s3cr3tvalue"',
        "X-API-KEY=s3cr3tvalue",
    ],
)
def test_credential_shaped_strings_are_redacted(text):
    from iclr26.lab.llm.redact import redact_secrets

    out = redact_secrets(f"before {text} after")
    assert "***" in out and out.startswith("before") and out.endswith("after")
