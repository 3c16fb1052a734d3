"""Writes a library's package: DIR/package/<pkg>/{__init__.py, _core.py, _doc.bin}.

`_core.py` is a verbatim copy of sebench/libraries/runtime.py; `__init__.py` holds only a call to its `_setup`
with the encoded table (obfuscate's encoding), re-keyed until no original name, module path or leak word
can be read in it; `_doc.bin` holds the docstrings, zlib-compressed JSON, re-compressed with other settings
until no public name has its original beside it.
"""

from __future__ import annotations

import json
import random
import re
import zlib
from pathlib import Path

from sebench.errors import SebenchError
from sebench.libraries.contract import Library
from sebench.libraries.names import LibraryNames
from sebench.obfuscate import encode, module_source

RUNTIME_FILE = Path(__file__).with_name("runtime.py")
CORE_NAME = "_core.py"
DOC_NAME = "_doc.bin"
WORD = re.compile(r"[A-Za-z_]\w*")
REPLACEMENT = "object"  # what a leak word becomes in a message


def message_words(library: Library, names: LibraryNames) -> dict[str, str]:
    """Word -> the word shown instead, anywhere in a message: the module path to the package, leak words to
    a plain word."""
    words = {w: REPLACEMENT for w in library.leak_words}
    words |= {part: names.package for part in library.module.split(".")}
    words[library.module] = names.package
    return words


def code_words(names: LibraryNames) -> dict[str, str]:
    """Original name -> public name, where a message uses it as code (called, quoted, after `<`, `.` or "object "):
    a name that is also a plain word ("one") stays where it is prose."""
    return {key.rpartition(".")[2]: public.rpartition(".")[2] for key, public in names.public().items()}


def config(library: Library, names: LibraryNames) -> dict:
    """The decoded table of the package's `__init__.py` (runtime._setup reads it)."""
    return {
        "M": library.module,
        "F": [[public.rpartition(".")[2], key.rpartition(".")[2]] for key, public in names.functions.items()],
        "T": [[public.rpartition(".")[2], key.rpartition(".")[2]] for key, public in names.types.items()],
        "I": names.iterator_type,
        "W": message_words(library, names),
        "C": code_words(names),
    }


def flagged(library: Library) -> re.Pattern:
    """Words no package file may contain anywhere: the module path's parts and the leak words."""
    words = {*library.module.split("."), *library.leak_words}
    return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)), re.IGNORECASE)


def readable_pairs(text: str, names: LibraryNames) -> list[tuple[int, str, str]]:
    """(line, original, public) where a public name has its original on its line or the next."""
    pairs: dict[str, set[str]] = {}
    for key, public in names.public().items():
        pairs.setdefault(public.rpartition(".")[2], set()).add(key.rpartition(".")[2])
    words = [set(WORD.findall(line)) for line in text.split("\n")]
    found = []
    for i, ws in enumerate(words):
        near = set().union(*words[max(0, i - 1): i + 2])
        found += [(i + 1, old, new) for new in sorted(ws & pairs.keys()) for old in sorted(pairs[new] & near)]
    return found


def _clean(text: str, library: Library, names: LibraryNames) -> bool:
    originals = {key.rpartition(".")[2] for key in names.public()}
    return (not flagged(library).search(text) and not readable_pairs(text, names)
            and not any(set(WORD.findall(line)) & originals for line in text.split("\n")))


def write_package(package_root: Path, library: Library, names: LibraryNames, docs: dict[str, str]) -> Path:
    """Writes the package under package_root (the folder to put on sys.path); returns its folder."""
    pkg_dir = Path(package_root) / names.package
    pkg_dir.mkdir(parents=True, exist_ok=True)
    doc = f"{names.package}: the functions and types its documentation describes."
    tail = "del _core  # noqa: F821 - the runtime stays private"
    cfg, key, rng = config(library, names), names.key, random.Random(names.key)
    for _ in range(1000):
        text = module_source(doc, key, encode(cfg, key), tail)
        if _clean(text, library, names):
            break
        key = rng.getrandbits(64) | 1
    else:
        raise SebenchError("could not encode the package's table without a flagged word in 1000 keys; report this")
    (pkg_dir / "__init__.py").write_text(text, encoding="utf-8")
    (pkg_dir / CORE_NAME).write_text(RUNTIME_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    write_docs(pkg_dir, library, names, docs)
    return pkg_dir


def write_docs(pkg_dir: Path, library: Library, names: LibraryNames, docs: dict[str, str]) -> None:
    """The docstrings file (bare public name -> doc): the first zlib setting whose bytes read clean."""
    text = json.dumps(docs, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    for level in range(9, 0, -1):
        for mem in (8, 9, 7, 6, 5, 4, 3, 2, 1):
            packer = zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS, mem)
            data = packer.compress(text) + packer.flush()
            if _clean(data.decode("latin-1"), library, names):
                (pkg_dir / DOC_NAME).write_bytes(data)
                return
    raise SebenchError(f"{pkg_dir / DOC_NAME}: every compression of the docstrings spells a flagged word; report this")
