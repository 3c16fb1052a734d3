"""The isolation layers the fence tests run under: each layer this machine has, forced in turn."""

import pytest

from sebench.methods import available_layers

KERNEL_LAYERS = [layer for layer in ("bwrap", "landlock") if layer in available_layers()]
LAYERS = [*KERNEL_LAYERS, "audit-hook"]


@pytest.fixture(params=LAYERS)
def layer(request, monkeypatch):
    """SEBENCH_ISOLATION forces one layer for the test."""
    monkeypatch.setenv("SEBENCH_ISOLATION", request.param)
    return request.param
