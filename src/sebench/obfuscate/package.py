"""Writes the generated package: DIR/package/<pkg>/{__init__.py, <linalg>.py, _core.py, _doc.bin}.

`_core.py` is a verbatim copy of sebench/obfuscate/runtime.py. The two modules hold only a call to its
`_setup` with an encoded configuration (see runtime.py), so no source file pairs a NumPy name with its
new name. `_doc.bin` holds the docstrings (zlib-compressed JSON, public name -> doc), compressed so that no
line of the file sets a NumPy word from a description beside a public name.
"""

from __future__ import annotations

import base64
import inspect
import json
import random
import re
import zlib
from pathlib import Path

import numpy

from sebench.errors import SebenchError
from sebench.obfuscate.names import Names
from sebench.obfuscate.surface import load_surface

RUNTIME_FILE = Path(__file__).with_name("runtime.py")
CORE_NAME = "_core.py"
DOC_NAME = "_doc.bin"
# Surface names whose NumPy target differs from the name ("~r:" = rendered with the package's names).
TARGETS = {"numpy.trapz": "trapezoid", "numpy.array_repr": "~r:array_repr"}
PUBLIC_ATTRS = ("shape", "ndim", "size", "dtype")
# Substrings that no package file may contain (an audit would rightly flag them); encoded parts that
# happen to spell one are re-encoded with another key (modules) or other zlib settings (docstrings).
FORBIDDEN = re.compile(r"numpy|ndarray|np\.|ufunc|linalg|dispatcher", re.IGNORECASE)
WORD = re.compile(r"[A-Za-z_]\w*")
# zlib (level, memLevel) settings tried in turn for the docstrings file, zlib's default (9, 8) first.
# The memory level sets the deflate block size and the level the matches, so each setting gives other
# blocks and Huffman tables and its bytes are in effect a fresh draw: a few in a hundred spell "np."
# somewhere in the ~140 kB file (seeds 127 and 132 with the first), and all 81 failing is out of reach.
DOC_SETTINGS = tuple((level, mem) for level in range(9, 0, -1) for mem in (8, 9, 7, 6, 5, 4, 3, 2, 1))


def target_of(key: str) -> str:
    """The attribute path under numpy that a mapping key is computed with."""
    if key in TARGETS:
        return TARGETS[key]
    return key[len("numpy."):]


def numpy_function(key: str):
    """The NumPy callable behind a mapping key (trapz -> trapezoid)."""
    target = target_of(key).removeprefix("~r:")
    obj = numpy
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def library_names() -> dict:
    """The NumPy names the runtime needs, looked up by role (they travel only inside the blob)."""
    return {
        "lb": "numpy", "short": "np", "nd": "ndarray", "gen": "generic", "dt": "dtype", "asarr": "asarray",
        "lin": "linalg", "linexc": "linalg.LinAlgError", "linexc_short": "LinAlgError",
        "axexc": "exceptions.AxisError", "axexc_short": "AxisError", "uf": "ufunc", "disp": "_dispatcher",
        "ctor": "array", "reprfn": "array_repr", "proto": "__array__", "attrs": list(PUBLIC_ATTRS),
        "blocked": sorted(n for n in dir(numpy.ndarray) if not n.startswith("__")),
    }


def configs(names: Names) -> tuple[dict, dict]:
    """The decoded configuration of the package's root module and of its linalg submodule."""
    root_funcs, lin_funcs = [], []
    message_names = {}
    for fn in load_surface():
        public = names.functions[fn.key]
        entry = [public.rsplit(".", 1)[1], target_of(fn.key)]
        (lin_funcs if fn.linalg else root_funcs).append(entry)
        short = ("linalg." if fn.linalg else "") + fn.name
        message_names[short] = public
    root = {
        "R": {
            "M": library_names(), "T": names.array_type, "S": names.slot, "C": names.constructor,
            "L": names.linalg, "XA": names.axis_error, "XL": names.linalg_error, "N": message_names,
        },
        "F": root_funcs,
        "E": {names.axis_error: "ax"},
    }
    lin = {"F": lin_funcs, "E": {names.linalg_error: "lin"}}
    return root, lin


def encode(cfg: dict, key: int) -> str:
    """zlib(JSON) XOR keystream(key), base64: the inverse of runtime._decode."""
    data = zlib.compress(json.dumps(cfg, sort_keys=True, separators=(",", ":")).encode("utf-8"), 9)
    x = key
    out = bytearray(len(data))
    for i, b in enumerate(data):
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        out[i] = b ^ (x >> 56)
    return base64.b64encode(bytes(out)).decode("ascii")


def numpy_names() -> frozenset[str]:
    return frozenset(f.name for f in load_surface())


def clean_source(text: str, names: Names) -> bool:
    """No flagged substring, and no token that is a NumPy function name or a public function name."""
    banned = numpy_names() | {v.rsplit(".", 1)[1] for v in names.functions.values()}
    return not FORBIDDEN.search(text) and not any(set(WORD.findall(line)) & banned for line in text.split("\n"))


def clean_binary(data: bytes, names: Names) -> bool:
    """No flagged substring, and no public name with its NumPy original on its line or the next."""
    text = data.decode("latin-1")
    if FORBIDDEN.search(text):
        return False
    pairs = {v.rsplit(".", 1)[1]: k.rsplit(".", 1)[1] for k, v in names.functions.items()}
    words = [set(WORD.findall(line)) for line in text.split("\n")]
    for i, ws in enumerate(words):
        near = set().union(*words[max(0, i - 1): i + 2])
        if any(pairs[w] in near for w in ws & pairs.keys()):
            return False
    return True


def encoded_module(doc: str, cfg: dict, key: int, names: Names, tail: str = "") -> str:
    """The module's source, re-keyed in the rare case the encoded text spells a flagged word."""
    rng = random.Random(key)
    for _ in range(1000):
        text = module_source(doc, key, encode(cfg, key), tail)
        if clean_source(text, names):
            return text
        key = rng.getrandbits(64) | 1
    raise SebenchError("could not encode the package configuration without a flagged word in 1000 keys; "
                       "report this as a bug")


def module_source(doc: str, key: int, blob: str, tail: str = "") -> str:
    """A generated module's source: its docstring, then one `_setup` call with the encoded table (and `tail`)."""
    lines = [f'"""{doc}"""', "from ._core import _setup", "", f'_setup(__name__, globals(), "{key:016x}", (']
    lines += [f'    "{blob[i:i + 76]}"' for i in range(0, len(blob), 76)]
    lines += ["))", "del _setup"]
    if tail:
        lines.append(tail)
    return "\n".join(lines) + "\n"


def default_docs(names: Names) -> dict[str, str]:
    """Minimal docstrings (signature + one line), used until the rewritten docs are written."""
    docs = {}
    for fn in load_surface():
        public = names.functions[fn.key]
        docs[public] = f"{public.rsplit('.', 1)[1]}{default_signature(fn.key)}\n\nA function of the " \
                       f"{names.package} package."
    return docs


def default_signature(key: str) -> str:
    try:
        sig = str(inspect.signature(numpy_function(key)))
    except (TypeError, ValueError):
        return "(*args, **kwargs)"
    return sig.replace("<no value>", "<unset>")


def doc_bytes(docs: dict[str, str], level: int, mem: int) -> bytes:
    """The docstrings file's content with the given zlib settings (what runtime._docs decompresses)."""
    text = json.dumps({"d": docs}, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    packer = zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS, mem)
    return packer.compress(text.encode("utf-8")) + packer.flush()


def write_docs(pkg_dir: Path, docs: dict[str, str], names: Names) -> None:
    """Writes the docstrings file that the package reads at import: the first of DOC_SETTINGS whose
    compressed bytes pass clean_binary. (Varying a nonce at the end of the text cannot help: the bytes
    before it, where a flagged spelling usually is, stay the same.)"""
    for level, mem in DOC_SETTINGS:
        data = doc_bytes(docs, level, mem)
        if clean_binary(data, names):
            (pkg_dir / DOC_NAME).write_bytes(data)
            return
    raise SebenchError(f"{pkg_dir / DOC_NAME}: every compression of the docstrings spells a flagged word; "
                       "report this as a bug")


def write_package(package_root: Path, names: Names, docs: dict[str, str] | None = None) -> Path:
    """Writes the package under package_root (the folder to put on sys.path); returns its folder."""
    pkg_dir = Path(package_root) / names.package
    pkg_dir.mkdir(parents=True, exist_ok=True)
    root_cfg, lin_cfg = configs(names)
    root_doc = (f"{names.package}: n-dimensional arrays and the functions that compute on them.\n\n"
                f"The submodule {names.package}.{names.linalg} holds the matrix functions.\n")
    lin_doc = f"{names.package}.{names.linalg}: matrix functions on {names.package} arrays.\n"
    tail = f"from . import {names.linalg}  # noqa: E402\n\ndel _core  # noqa: F821 - the runtime stays private"
    (pkg_dir / "__init__.py").write_text(encoded_module(root_doc, root_cfg, names.key, names, tail), encoding="utf-8")
    (pkg_dir / f"{names.linalg}.py").write_text(
        encoded_module(lin_doc, lin_cfg, names.key ^ 0x5DEECE66D, names), encoding="utf-8")
    (pkg_dir / CORE_NAME).write_text(RUNTIME_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    write_docs(pkg_dir, docs if docs is not None else default_docs(names), names)
    return pkg_dir
