import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakepkg import make_fake_instance


@pytest.fixture(scope="session")
def fake_instance(tmp_path_factory) -> Path:
    return make_fake_instance(tmp_path_factory.mktemp("fake"))
