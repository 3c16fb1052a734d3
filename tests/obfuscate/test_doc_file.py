"""The docstrings file is written for any docs, also when the plain compression spells a flagged word.

Seeds 127 and 132 used to fail their builds: their docs compressed to bytes holding "np.", and the old
writer only varied a nonce at the end of the text, which leaves the bytes before it unchanged.
"""

from __future__ import annotations

import importlib
import json
import random
import sys
import zlib

from sebench.obfuscate.names import generate_names
from sebench.obfuscate.package import (
    DOC_NAME,
    FORBIDDEN,
    clean_binary,
    default_docs,
    write_package,
)

SEED = 5


def _docs_with_filler(names, filler_seed: int) -> dict[str, str]:
    """The default docs, each lengthened with random words (about the size of real rewritten docs)."""
    rng = random.Random(filler_seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = {}
    for public, doc in default_docs(names).items():
        words = ("".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(120))
        out[public] = doc + "\n\n" + " ".join(words)
    return out


def _plain_compression(docs: dict[str, str]) -> bytes:
    text = json.dumps({"d": docs}, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return zlib.compress(text.encode("utf-8"), 9)


def _docs_whose_plain_compression_is_flagged(names) -> dict[str, str]:
    for filler_seed in range(400):
        docs = _docs_with_filler(names, filler_seed)
        if FORBIDDEN.search(_plain_compression(docs).decode("latin-1")):
            return docs
    raise AssertionError("no filler made the plain compression spell a flagged word")


def test_flagged_plain_compression_still_gives_a_clean_readable_file(tmp_path):
    names = generate_names(SEED)
    docs = _docs_whose_plain_compression_is_flagged(names)
    assert not clean_binary(_plain_compression(docs), names)

    pkg_dir = write_package(tmp_path, names, docs)

    data = (pkg_dir / DOC_NAME).read_bytes()
    assert clean_binary(data, names)
    assert json.loads(zlib.decompress(data).decode("utf-8"))["d"] == docs
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module(names.package)
        public = names.functions["numpy.mean"]
        assert getattr(module, public.rsplit(".", 1)[1]).__doc__ == docs[public]
    finally:
        sys.path.remove(str(tmp_path))
        for mod in [m for m in sys.modules if m == names.package or m.startswith(names.package + ".")]:
            del sys.modules[mod]
