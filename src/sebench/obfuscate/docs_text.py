"""Rewriting the prose of NumPy docstrings: sections, names, and the sentences that must go.

A `Namer` knows the function being documented and the mapping; `rewrite_prose` replaces every NumPy
identifier it can (np.X / numpy.X / numpy.linalg.X / bare `X` in backticks / ndarray / NumPy) and drops
each sentence that still names something the package lacks, cites a URL or a reference, or talks about
NumPy versions. Whatever is left is checked with the audit's own rules, so the audit never disagrees.
"""

from __future__ import annotations

import contextlib
import functools
import re
import textwrap
from dataclasses import dataclass, field

from sebench.obfuscate.audit import LeakChecker, numpy_function_names
from sebench.obfuscate.surface import NUMPY_RENAMED

SECTION_NAMES = (
    "Parameters", "Returns", "Yields", "Receives", "Other Parameters", "Raises", "Warns", "Warnings",
    "See Also", "Notes", "References", "Examples", "Attributes", "Methods",
)
_TITLES = {t.title(): t for t in SECTION_NAMES}
# NumPy constants that have a plain-Python spelling, in prose and in code.
PROSE_CONSTANTS = {"nan": "nan", "NaN": "nan", "inf": "inf", "Inf": "inf", "pi": "pi", "e": "e", "newaxis": "None"}
CODE_CONSTANTS = {"nan": "math.nan", "NaN": "math.nan", "inf": "math.inf", "Inf": "math.inf", "pi": "math.pi",
                  "e": "math.e", "newaxis": "None", "euler_gamma": "0.5772156649015329"}
_ROLE = re.compile(r":(?:py:)?(?P<role>[a-z]+(?::[a-z]+)?):`(?P<body>[^`]+)`")
_SPAN = re.compile(r"(?P<tick>``?)(?P<body>[^`\n]+?)(?P=tick)(?!`)")
_NPREF = re.compile(r"(?<![\w.])(?P<mod>np|numpy)\.(?:(?P<lin>linalg)\.)?(?P<name>[A-Za-z_]\w*)(?P<rest>(?:\.[A-Za-z_]\w*)*)")
_CITE = re.compile(r"\s*\[[\w\-. ]+\]_")
_BANNED_WORDS = re.compile(
    r"(?i)(https?://|www\.|\bscipy\b|\bmatplotlib\b|\bpandas\b|\bufuncs?\b|\barray[ -]api\b|"
    r"``matrix``|\bmatrix (?:object|class|subclass)|\bf2py\b|\bcython\b|\bnep\b|\bnumarray\b|\bnumeric\b(?= python)|__array(?:_\w+)?__|\bNPY_\w+|\bPy_\w+|\bC[- ]API\b|\bmasked arrays?\b|\bnp\.ma\b)"
)
_VERSION = re.compile(
    r"(?i)(\b(numpy|version|versions|since|as of|prior to|deprecated|legacy|release)\b[^.;]{0,40}\b\d+\.\d+"
    r"|\b\d+\.\d+(\.\d+)?\b[^.;]{0,20}\b(and (later|earlier)|or (later|earlier)|onwards|release|legacy)\b"
    r"|['\"]\d+\.\d+['\"])"
)
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|resp|approx|Eq|Ref)\.|\b[A-Z]\.)$")


@dataclass
class Namer:
    """Replaces NumPy names for one documented function."""

    mapping: dict
    in_linalg: bool = False
    params: frozenset = frozenset()
    own: str = ""  # the public name of the documented function
    errors: dict = field(default_factory=dict)  # "LinAlgError" -> the package's public error class
    main: dict = field(default_factory=dict)  # numpy short name -> public dotted name
    lin: dict = field(default_factory=dict)

    def __post_init__(self):
        for key, public in self.mapping["functions"].items():
            (self.lin if key.startswith("numpy.linalg.") else self.main)[key.rsplit(".", 1)[1]] = public
        for surface_name, numpy_name in NUMPY_RENAMED.items():
            if surface_name not in self.main and numpy_name in self.main:
                self.main[surface_name] = self.main[numpy_name]
        self.package = self.mapping["package"]
        self.array_type = self.mapping.get("array_type") or "array"

    def alias(self, canonical: str, own_name: str) -> None:
        """The doc is NumPy's doc of `canonical` (np.abs is documented as absolute): name it as our own."""
        table = self.lin if self.in_linalg else self.main
        if canonical in table and own_name in table:
            table[canonical] = table[own_name]

    def bare(self, name: str) -> str | None:
        """The public name for a bare NumPy function name, the documented namespace first."""
        first, second = (self.lin, self.main) if self.in_linalg else (self.main, self.lin)
        return first.get(name) or second.get(name)

    def dotted(self, linalg: bool, name: str) -> str | None:
        """The public name of numpy[.linalg].name; the other namespace's when NumPy has one object in both."""
        found = (self.lin if linalg else self.main).get(name)
        if found is None and name in (self.main if linalg else self.lin) and _same_in_both(name):
            found = (self.main if linalg else self.lin)[name]
        return found

    def words(self, text: str) -> str:
        """NumPy / numpy / ndarray words outside code."""
        text = re.sub(r"\b(?:np|numpy)\.ndarray\b", self.array_type, text)
        article = "an" if self.array_type[:1].lower() in "aeiou" else "a"
        text = re.sub(r"\b([Aa])n (ndarray|`ndarray`)\b", lambda m: (article.capitalize() if m.group(1) == "A"
                      else article) + " " + m.group(2), text)
        text = re.sub(r"\bndarrays\b", self.array_type + "s", text)
        text = re.sub(r"\bndarray\b", self.array_type, text)
        return re.sub(r"(?<![\w.])(?:NumPy|Numpy|numpy)(?![\w.])", self.package, text)


class Dropped(Exception):
    """Raised inside a sentence rewrite when the sentence has to go."""


def _prefixed(namer: Namer, m: re.Match, constants: dict) -> str:
    name, rest = m.group("name"), m.group("rest")
    if m.group("lin"):
        public = namer.dotted(True, name)
    elif name == "ndarray" and not rest:
        return namer.array_type
    elif name in constants and not rest:
        return constants[name]
    elif _scalar_type(name) and not rest:
        return name
    else:
        public = namer.dotted(False, name)
    if public is None or rest:
        raise Dropped(m.group(0))
    return public


def _same_in_both(name: str) -> bool:
    import numpy

    if name in _SAME_MEANING:
        return True
    return getattr(numpy, name, None) is not None and getattr(numpy, name, None) is getattr(numpy.linalg, name, 0)


# numpy.X and numpy.linalg.X that compute the same thing (others, like outer or cross, differ)
_SAME_MEANING = {"matrix_transpose", "matmul", "vecdot", "tensordot"}


@functools.cache
def _scalar_type(name: str) -> bool:
    """numpy.float64, numpy.int8, ...: in prose these become the plain dtype names."""
    import numpy

    obj = getattr(numpy, name, None)
    return isinstance(obj, type) and issubclass(obj, numpy.generic)


def rewrite_span(namer: Namer, body: str) -> str:
    """The content of a backtick span, NumPy names replaced; Dropped if a name has no counterpart."""
    body = body.strip().lstrip("~")
    if "<" in body and body.endswith(">"):
        body = body[body.index("<") + 1 : -1].lstrip("~")
    core = body[:-2] if body.endswith("()") else body
    suffix = body[len(core):]
    if re.fullmatch(r"[A-Za-z_]\w*", core):
        if core in namer.params:
            return body
        if core == "ndarray":
            return namer.array_type
        if core in _NUMPY_ERRORS:
            if core not in namer.errors:
                raise Dropped(core)
            return namer.errors[core]
        if core in numpy_function_names():
            public = namer.bare(core)
            if public is None:
                raise Dropped(core)
            return public + suffix
        return body
    body = _NPREF.sub(lambda m: _prefixed(namer, m, PROSE_CONSTANTS), body)

    def call(m: re.Match) -> str:
        name = m.group(1)
        if name in namer.params or name not in numpy_function_names() or name in __builtins_names():
            return m.group(0)
        public = namer.bare(name)
        if public is None:
            raise Dropped(name)
        return public + m.group(2)

    return re.sub(r"(?<![\w.])([A-Za-z_]\w*)(\s*\()", call, body)


@functools.lru_cache(maxsize=1)
def __builtins_names() -> frozenset:
    import builtins

    return frozenset(dir(builtins))


_NUMPY_ERRORS = ("LinAlgError", "AxisError")
_CODE_WORD = re.compile(r"(?<![\w.`'\"\x00-])[A-Za-z_][A-Za-z0-9_]*(?![\w`'\"(\x00-])")
# NumPy names that are also ordinary (mathematical) words; other NumPy names in running text are code
_PLAIN_WORDS = {
    "radians", "degrees", "percentile", "quantile", "concatenate", "reciprocal", "resize", "piecewise", "sqrt",
    "cos", "sin", "tan", "arccos", "arcsin", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "exp", "log", "sinc", "ceil", "floor", "qr", "cov", "std", "var", "ndim", "mod", "det", "inv", "norm", "svd",
    "eig", "trace", "dot", "cross", "outer", "inner", "median", "average", "histogram", "gradient", "interp",
    "roots", "cbrt", "hypot", "gcd", "lcm", "kron", "sign", "round", "log10", "log2",
}


@functools.lru_cache(maxsize=1)
def _english() -> frozenset:
    from importlib import resources

    try:
        text = resources.files("sebench.obfuscate").joinpath("data/english_words.txt").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return frozenset()
    return frozenset(w.strip().lower() for w in text.split())


def is_code_word(word: str) -> bool:
    """A NumPy function name that is not an ordinary word (cumsum, linspace; not mean, sqrt)."""
    return word in numpy_function_names() and word not in _PLAIN_WORDS and word.lower() not in _english()


def _code_word(namer: Namer, word: str) -> str:
    """A NumPy name used as a word in running text ("the cumsum of", "use linspace"): the public name,
    unless it is an ordinary word or a parameter."""
    if word in _NUMPY_ERRORS:
        if word not in namer.errors:
            raise Dropped(word)
        return namer.errors[word]
    if (word not in numpy_function_names() or word in namer.params or word in _PLAIN_WORDS
            or word.lower() in _english() or word[:1].isupper()):
        return word
    public = namer.bare(word)
    if public is None:
        raise Dropped(word)
    return f"``{public}``"


def rewrite_sentence(namer: Namer, text: str, checker: LeakChecker) -> str:
    """One sentence (or line) with names replaced; Dropped when it must go."""
    if _BANNED_WORDS.search(text):
        raise Dropped("banned")
    if _VERSION.search(text):
        raise Dropped("version")
    text = _CITE.sub("", text)

    def role(m: re.Match) -> str:
        kind = m.group("role").split(":")[-1]
        if kind == "math":
            return m.group(0)
        if kind in ("term",):
            return m.group("body").split("<")[0].strip()
        if kind in ("func", "meth", "class", "obj", "data", "attr", "const", "exc"):
            return "`" + m.group("body") + "`"
        raise Dropped(kind)

    text = _ROLE.sub(role, text)
    spans: list[str] = []

    def span(m: re.Match) -> str:
        if text[max(0, m.start() - 6) : m.start()].endswith(":math:"):
            spans.append(m.group(0))
        else:
            spans.append(m.group("tick") + rewrite_span(namer, m.group("body")) + m.group("tick"))
        return f"\x00{len(spans) - 1}\x00"

    text = _SPAN.sub(span, text)
    text = _NPREF.sub(lambda m: _prefixed(namer, m, PROSE_CONSTANTS), text)
    text = namer.words(text)
    text = _CODE_WORD.sub(lambda m: _code_word(namer, m.group(0)), text)
    text = re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)
    if namer.own and namer.own in text and re.search(r"(?i)shorthand|\balias", text):
        raise Dropped("self alias")
    if checker.prose(text, namer.params):
        raise Dropped("audit")
    return text


def split_sentences(text: str) -> list[str]:
    parts, start = [], 0
    for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z`(\[*\"'])", text):
        if _ABBREV.search(text[start : m.start()]):
            continue
        parts.append(text[start : m.start()])
        start = m.end()
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _is_structured(lines: list[str]) -> bool:
    """Tables, lists, literal blocks: rewritten line by line instead of sentence by sentence."""
    return any(
        re.match(r"\s*([-*+]\s|\d+\.\s|\||\+[-=]+\+|\.\. )", ln) or re.fullmatch(r"\s*=+(\s+=+)*\s*", ln)
        or ln.rstrip().endswith("::")
        for ln in lines
    ) or (len(lines) > 1 and all(len(ln.strip()) < 30 for ln in lines))


def rewrite_paragraph(namer: Namer, lines: list[str], checker: LeakChecker) -> list[str]:
    """A paragraph (same indentation, no blank lines): kept sentences, rewrapped if any was dropped."""
    indent = re.match(r"\s*", lines[0]).group(0)
    if _is_structured(lines):
        out = []
        for ln in lines:
            with contextlib.suppress(Dropped):
                out.append(rewrite_sentence(namer, ln, checker))
        return out
    joined = " ".join(ln.strip() for ln in lines)
    kept, dropped = [], False
    for sentence in split_sentences(joined):
        try:
            kept.append(rewrite_sentence(namer, sentence, checker))
        except Dropped:
            dropped = True
    if not kept:
        return []
    if kept[-1].rstrip().endswith(":") and dropped:
        kept = kept[:-1]
        if not kept:
            return []
    if not dropped and " ".join(kept) == joined:
        return [ln.rstrip() for ln in lines]  # nothing changed: keep the original line breaks
    return textwrap.wrap(" ".join(kept), width=max(40, 79 - len(indent)), initial_indent=indent,
                         subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def rewrite_block(namer: Namer, lines: list[str], checker: LeakChecker) -> list[str]:
    """Free text of a section: paragraphs, literal blocks and directives; returns the kept lines."""
    out: list[str] = []
    i, blank_before = 0, False

    def emit(kept: list[str]) -> None:
        if out and blank_before:
            out.append("")
        out.extend(kept)

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            blank_before = True
            i += 1
            continue
        indent = _indent_of(line)
        m = re.match(r"\s*\.\.\s+([\w-]+)::(.*)$", line)
        if m or re.match(r"\s*\.\.\s+\[", line):
            j = _block_end(lines, i + 1, indent)
            if m and m.group(1) == "math":
                blank_before = True
                emit(_squeeze_blanks([ln.rstrip() for ln in lines[i:j]]))
            elif m and m.group(1) in ("note", "warning", "hint", "important", "tip", "caution"):
                body = ([" " * (indent + 4) + m.group(2).strip()] if m.group(2).strip() else []) + lines[i + 1 : j]
                kept = rewrite_block(namer, textwrap.dedent("\n".join(body)).split("\n"), checker)
                if kept:
                    emit([" " * indent + ln if ln else "" for ln in kept])
            i, blank_before = j, False
            continue
        j = i
        while j < len(lines) and lines[j].strip() and _indent_of(lines[j]) == indent:
            if j > i and re.match(r"\s*\.\.\s", lines[j]):
                break
            j += 1
        kept = rewrite_paragraph(namer, lines[i:j], checker)
        if lines[j - 1].rstrip().endswith("::"):
            k = _block_end(lines, j, indent)
            literal = _literal(namer, lines[j:k], checker)
            if kept and literal:
                emit(kept)
                blank_before = True
                emit(literal)
            i, blank_before = k, False
            continue
        if kept:
            emit(kept)
        i, blank_before = j, False
    return _squeeze_blanks(out)


def _block_end(lines: list[str], j: int, indent: int) -> int:
    """End of an indented block starting at j (blank lines inside it belong to it)."""
    k = j
    while k < len(lines) and (not lines[k].strip() or _indent_of(lines[k]) > indent):
        k += 1
    while k > j and not lines[k - 1].strip():
        k -= 1
    return k


def _literal(namer: Namer, block: list[str], checker: LeakChecker) -> list[str]:
    """A literal block, kept verbatim with names replaced; [] if a line would have to go."""
    out = []
    for ln in block:
        if not ln.strip():
            out.append("")
            continue
        try:
            out.append(ln[: _indent_of(ln)] + rewrite_sentence(namer, ln.strip(), checker))
        except Dropped:
            return []
    return _squeeze_blanks(out)


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def _squeeze_blanks(lines: list[str]) -> list[str]:
    out = []
    for ln in lines:
        if ln.strip() or (out and out[-1].strip()):
            out.append(ln.rstrip())
    while out and not out[-1].strip():
        out.pop()
    return out


def split_sections(doc: str) -> tuple[list[str], dict[str, list[str]]]:
    """(summary lines, {section title: body lines}) of a dedented numpydoc docstring."""
    lines = doc.split("\n")
    head: list[str] = []
    sections: dict[str, list[str]] = {}
    current = head
    i = 0
    while i < len(lines):
        line = lines[i]
        if (
            i + 1 < len(lines)
            and line.strip().title() in _TITLES
            and re.fullmatch(r"-{3,}", lines[i + 1].strip())
        ):
            current = sections.setdefault(_TITLES[line.strip().title()], [])
            i += 2
            continue
        current.append(line)
        i += 1
    return head, sections


_ENTRY = re.compile(r"^\*{0,2}[A-Za-z_][\w.]*(\s*,\s*\*{0,2}[A-Za-z_][\w.]*)*\s*(:.*)?$|^[\w.:`~]+\s*:\s.*$")


def parse_entries(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Parameters/Returns style entries: (header line, dedented body lines); free text at the left margin
    (e.g. "A namedtuple with the following attributes:") comes as ("", its lines)."""
    entries: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.strip() and not line[0].isspace():
            if _ENTRY.match(line.rstrip()):
                entries.append((line.rstrip(), []))
            elif entries and entries[-1][0] == "" and entries[-1][1] and entries[-1][1][-1].strip():
                entries[-1][1].append(line)
            else:
                entries.append(("", [line]))
        elif entries:
            entries[-1][1].append(line)
    return [(h, textwrap.dedent("\n".join(b)).split("\n")) for h, b in entries]
