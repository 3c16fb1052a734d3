"""The generated package's files hold no readable mapping and no NumPy name a reader could follow."""

from __future__ import annotations

import io
import json
import re
import tokenize
import zlib

from sebench.obfuscate.surface import load_surface

NUMPY_FUNCTIONS = {f.name for f in load_surface()}


def package_files(gen):
    return sorted(p for p in (gen.root / gen.names.package).rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def test_file_set_has_no_mapping_file(generated):
    for gen in generated:
        names = {p.name for p in package_files(gen)}
        assert names == {"__init__.py", f"{gen.names.linalg}.py", "_core.py", "_doc.bin"}


def test_no_numpy_word_in_any_file(generated):
    for gen in generated:
        for path in package_files(gen):
            text = path.read_bytes().decode("latin-1")
            for word in ("numpy", "ndarray", "np.", "ufunc", "linalg", "dispatcher"):
                assert word not in text.lower(), (path.name, word)


def test_no_numpy_name_beside_its_new_name(generated):
    """The audit's rule: no line holds a public name with its NumPy original on it or next to it."""
    for gen in generated:
        pairs = {}
        for key, public in gen.names.functions.items():
            pairs.setdefault(public.rsplit(".", 1)[1], set()).add(key.rsplit(".", 1)[1])
        for path in package_files(gen):
            lines = path.read_bytes().decode("latin-1").split("\n")
            words = [set(re.findall(r"[A-Za-z_]\w*", ln)) for ln in lines]
            for i, ws in enumerate(words):
                near = set().union(*words[max(0, i - 1): i + 2])
                for new in ws & pairs.keys():
                    assert not (pairs[new] & near), (path.name, i + 1, new, pairs[new] & near)


def test_python_sources_use_no_numpy_function_name(generated):
    """No identifier or string literal of the package's code is one of the 278 NumPy names."""
    for gen in generated:
        for path in package_files(gen):
            if path.suffix != ".py":
                continue
            for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
                if tok.type == tokenize.NAME and not (tok.string.startswith("__") and tok.string.endswith("__")):
                    assert tok.string not in NUMPY_FUNCTIONS, (path.name, tok.start, tok.string)
                if tok.type == tokenize.STRING and not tok.string.startswith(("f", '"""')):
                    value = tok.string.strip("\"'")
                    assert value not in NUMPY_FUNCTIONS, (path.name, tok.start, tok.string)


def test_public_names_appear_in_no_source_file(generated):
    """The names live only in the encoded blobs (and in the compressed docstrings)."""
    for gen in generated:
        public = {v.rsplit(".", 1)[1] for v in gen.names.functions.values()}
        for path in package_files(gen):
            if path.suffix == ".py":
                words = set(re.findall(r"[A-Za-z_]\w*", path.read_text(encoding="utf-8")))
                assert not (words & (public - {gen.names.linalg})), path.name


def test_docstrings_file_holds_public_names_only(generated):
    for gen in generated:
        docs = json.loads(zlib.decompress((gen.root / gen.names.package / "_doc.bin").read_bytes()))["d"]
        assert set(docs) == set(gen.names.functions.values())
        assert not any(k.startswith("numpy") for k in docs)
