"""Ctrl-C during GRPO training stops `sebench train` promptly with exit code 130 and the one-line message,
whatever the loop is doing (sampling, judging in the sandbox, updating)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("trl")


@pytest.mark.timeout(300)
def test_sigint_during_grpo_stops_the_training_with_its_message(tmp_path, built_instance, tiny_model):
    out = tmp_path / "ckpt"
    args = [sys.executable, "-m", "sebench.cli", "train", "--data", str(built_instance), "--regime", "closed-rl",
            "--out", str(out), "--model", str(tiny_model), "--max-steps", "10000", "--batch-size", "2",
            "--num-generations", "2", "--max-completion-length", "24", "--judge-workers", "1"]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    # Ctrl-C's default action in the child even when pytest runs in a background job (where the shell
    # starts it with SIGINT ignored, an inherited state Python then keeps)
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    samples = out / "rl_samples.jsonl"
    deadline = time.monotonic() + 240
    while not samples.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read()
    assert samples.exists(), "no GRPO batch was sampled in 240 s"
    time.sleep(0.5)  # somewhere in the next batch
    proc.send_signal(signal.SIGINT)  # to sebench itself, as a terminal's Ctrl-C reaches it
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("sebench train did not stop within 30 s of SIGINT")
    assert proc.returncode == 130, err
    assert "sebench train: interrupted; no checkpoint was saved" in err
    assert not (out / "model.safetensors").exists()
