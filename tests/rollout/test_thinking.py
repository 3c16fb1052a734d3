"""A model's thinking and a budget that fits it: read from its chat template or its served name; `sebench rollout`
picks 8192 tokens for a thinking model, `sebench run` refuses a preset's budget that would cut the thinking off,
and a served model sebench does not know is asked about, in one line, before anything is written."""

from __future__ import annotations

import json

import pytest
from cli_fixtures import write_tiny_instance
from fake_openai_server import FakeOpenAIServer

from sebench.cli import main
from sebench.rollout.thinking import THINKING_TOKENS, model_thinking

QWEN3_TEMPLATE = "{%- if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>{%- endif %}"


def _folder(tmp_path, name, template, as_file=False):
    folder = tmp_path / name
    folder.mkdir()
    if as_file:
        (folder / "chat_template.jinja").write_text(template)
    else:
        (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": template}))
    return folder


def test_the_thinking_is_read_from_the_template_or_the_served_name(tmp_path):
    assert model_thinking(f"hf:{_folder(tmp_path, 'q', QWEN3_TEMPLATE)}").thinks is True
    assert model_thinking(str(_folder(tmp_path, 'j', QWEN3_TEMPLATE, as_file=True))).thinks is True
    assert model_thinking(f"hf:{_folder(tmp_path, 'plain', '{{ messages }}')}").thinks is False
    (tmp_path / "none").mkdir()
    assert model_thinking(f"hf:{tmp_path / 'none'}").thinks is False  # sebench's ChatML
    assert model_thinking("hf:nobody/uncached-model").thinks is None
    assert model_thinking("hf:nobody/Qwen3-0.6B").thinks is True  # not cached: its name
    assert model_thinking("openai:Qwen/Qwen3-8B@http://x/v1").thinks is True
    assert model_thinking("openai:Qwen/Qwen3-4B-Instruct-2507@http://x/v1").thinks is False
    assert model_thinking("openai:my-model@http://x/v1").thinks is None
    assert model_thinking("smollm2-135m").thinks is False and model_thinking("fake:echo").thinks is False


@pytest.mark.parametrize("config", ["[1, 2]", "[" * 100_000, '{"chat_template": 5}', "{", "\udcff"])
def test_a_tokenizer_config_that_is_not_an_object_of_a_template_is_no_template(tmp_path, config):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer_config.json").write_text(config, encoding="utf-8", errors="surrogateescape")
    assert model_thinking(f"hf:{folder}").thinks is False  # as a folder without one: sebench's ChatML


@pytest.fixture()
def served(tmp_path):
    bodies: list[dict] = []

    def answer(body):
        bodies.append(body)
        return "```python\ndef solve(a):\n    return 1\n```"

    with FakeOpenAIServer(answer=answer) as server:
        yield write_tiny_instance(tmp_path / "inst"), server.url, bodies


def _rollout(tmp_path, inst, model, *flags):
    out = tmp_path / f"r{len(list(tmp_path.glob('r*.jsonl')))}.jsonl"
    return main(["rollout", "--data", str(inst), "--split", "single_test", "--model", model, "--out", str(out),
                 "--limit", "1", *flags]), out


def test_rollout_picks_the_papers_budget_for_a_thinking_model(served, tmp_path, capsys):
    inst, url, bodies = served
    code, _ = _rollout(tmp_path, inst, f"openai:Qwen/Qwen3-8B@{url}")
    assert code == 0 and bodies[-1]["max_tokens"] == THINKING_TOKENS and "chat_template_kwargs" not in bodies[-1]
    code, _ = _rollout(tmp_path, inst, f"openai:Qwen/Qwen3-8B@{url}", "--thinking", "off")
    assert code == 0 and bodies[-1]["max_tokens"] == 512
    assert bodies[-1]["chat_template_kwargs"] == {"enable_thinking": False}
    code, _ = _rollout(tmp_path, inst, f"openai:Qwen/Qwen3-8B@{url}", "--max-tokens", "1000")  # the user's choice
    assert code == 0 and bodies[-1]["max_tokens"] == 1000


def test_rollout_asks_about_a_served_model_it_does_not_know(served, tmp_path, capsys):
    inst, url, bodies = served
    code, out = _rollout(tmp_path, inst, f"openai:my-model@{url}")
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--thinking off" in err and "--max-tokens 8192" in err
    assert not out.exists() and not bodies
    code, _ = _rollout(tmp_path, inst, f"openai:my-model@{url}", "--thinking", "off")
    assert code == 0 and bodies[-1]["max_tokens"] == 512


def test_run_refuses_a_preset_budget_that_cuts_the_thinking_off(tmp_path, capsys):
    def show(*flags):
        code = main(["run", "--out", str(tmp_path / "run"), "--regimes", "--show-config", *flags])
        captured = capsys.readouterr()
        return code, captured

    code, captured = show("--preset", "quick", "--model", "openai:Qwen/Qwen3-8B@http://127.0.0.1:9/v1")
    line = captured.err.strip()
    assert code == 2 and len(line.splitlines()) == 1 and "128 tokens would cut it off" in line
    assert "--max-tokens 8192" in line and "--thinking off" in line
    code, captured = show("--preset", "quick", "--model", "openai:my-model@http://127.0.0.1:9/v1")
    assert code == 2 and "cannot tell whether it thinks" in captured.err
    code, captured = show("--preset", "quick", "--model", "openai:Qwen/Qwen3-8B@http://127.0.0.1:9/v1",
                          "--thinking", "off")
    assert code == 0 and json.loads(captured.out)["rollout"]["thinking"] == "off"
    code, captured = show("--preset", "eval", "--model", "openai:Qwen/Qwen3-8B@http://127.0.0.1:9/v1")
    rollout = json.loads(captured.out)["rollout"]
    assert code == 0 and (rollout["n"], rollout["temperature"], rollout["max_tokens"]) == (5, 0.6, 8192)
