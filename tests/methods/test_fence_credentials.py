"""The user's credentials beside what a method may read stay out of its reach.

The Hugging Face hub's model cache (~/.cache/huggingface/hub) is readable to a method, for the models it
loads; the user's token lies beside it (~/.cache/huggingface/token, stored_tokens), and their other
credentials in their home (~/.netrc, ~/.ssh, ~/.git-credentials, gh's hosts.yml). A hostile method
(hostile_methods.peek) reads each by Python, ctypes and a subprocess under each layer: a kernel layer gives it
none of them, and the audit hook refuses Python's reads; a model file in the cache is read (the control).
"""

from pathlib import Path

import pytest

from sebench.methods import run_method

from .test_fence import KERNEL_LAYERS, got, got_something, job, layout  # noqa: F401 - the layout fixture

SECRETS = (".cache/huggingface/token", ".cache/huggingface/stored_tokens", ".netrc", ".ssh/id_ed25519",
           ".git-credentials", ".config/gh/hosts.yml")
MODEL_FILE = ".cache/huggingface/hub/models--org--m/snapshots/0/config.json"


@pytest.fixture()
def home(layout, monkeypatch) -> Path:  # noqa: F811 - the layout fixture
    home = layout / "home"
    for name in ("HF_HOME", "HF_HUB_CACHE", "XDG_CACHE_HOME", "HF_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)
    for name in (*SECRETS, MODEL_FILE):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("hf_secret_token\n" if name != MODEL_FILE else '{"model_type": "llama"}')
    return home


def test_a_method_reads_the_hub_cache_and_none_of_the_users_credentials(layout, home, layer):  # noqa: F811
    targets = [str(home / name) for name in (*SECRETS, MODEL_FILE)]
    method = job(layout, "peek", targets=targets)
    record = run_method(method)
    reads = {path: {way: got_something(what) for way, what in ways.items()} for path, ways in got(method)["reads"].items()}
    assert str(home / ".cache" / "huggingface" / "hub") in record["allowed"]["read"]
    assert reads.pop(str(home / MODEL_FILE)) == {"python": True, "ctypes": True, "subprocess": True}
    assert not any(ways["python"] for ways in reads.values()), reads
    if layer in KERNEL_LAYERS:
        assert not any(any(ways.values()) for ways in reads.values()), reads
