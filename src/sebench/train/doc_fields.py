"""A function's documentation taken apart: its call line, summary, description and numpydoc sections,
its parameters, and the `>>>` statements of its Examples with their printed outputs.

Pure text rules, no model and no package: the docs-only methods (docs_data.py, doc_rewrites.py,
doc_tasks.py) build their training text and their judgeable prompts from these fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sebench.records import ApiDoc

_DASHES = re.compile(r"^-{3,}$")
_COLON_TITLE = re.compile(r"^Examples?:$")
_DETERMINERS = frozenset({"a", "an", "the", "this", "one", "each", "any", "some"})


@dataclass(frozen=True)
class Param:
    """One parameter of a signature: `positional` when a call may pass it by position."""

    name: str
    positional: bool


@dataclass(frozen=True)
class Statement:
    """One `>>>` statement of an Examples section (continuation lines joined) and what it printed."""

    source: str
    output: str  # the printed lines joined with newlines; "" when it printed nothing


@dataclass(frozen=True)
class DocFields:
    """One ApiDoc in parts; `call` is the dotted name with the signature's arguments."""

    name: str
    call: str
    summary: str
    description: str
    sections: tuple[tuple[str, str], ...]  # (title, body) in the doc's order

    @property
    def package(self) -> str:
        return self.name.split(".")[0]

    def section(self, title: str) -> str:
        return next((body for t, body in self.sections if t == title), "")


def qualified_call(doc: ApiDoc) -> str:
    """"quvohe(a)" with name "zwc.rfx.quvohe" -> "zwc.rfx.quvohe(a)" (the name alone without parentheses)."""
    signature = doc.signature.strip()
    paren = signature.find("(")
    return doc.name + signature[paren:] if paren >= 0 else doc.name


def parse_doc(doc: ApiDoc) -> DocFields:
    """The doc's summary (first paragraph), the rest of its description, and its titled sections."""
    lines = doc.doc.strip().splitlines()
    underlined = {i for i in range(len(lines) - 1) if lines[i].strip() and _DASHES.match(lines[i + 1].strip())}
    # a compact doc (sebench.rollout.compact_doc) titles its one example "Example:", with no underline
    colon = {i for i, line in enumerate(lines) if _COLON_TITLE.match(line.strip())}
    starts = sorted(underlined | colon)
    head = lines[: starts[0]] if starts else lines
    short = doc.name.rsplit(".", 1)[-1]
    paragraphs = [p for p in _paragraphs(head) if not p.startswith(short + "(")]
    sections = tuple(
        ("Examples" if s in colon else lines[s].strip(), "\n".join(lines[s + (1 if s in colon else 2): end]).strip())
        for s, end in zip(starts, [*starts[1:], len(lines)])
    )
    summary = " ".join(paragraphs[0].split()) if paragraphs else ""
    return DocFields(doc.name, qualified_call(doc), summary, "\n\n".join(paragraphs[1:]), sections)


def _paragraphs(lines: list[str]) -> list[str]:
    text = "\n".join(line.rstrip() for line in lines).strip()
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def params(signature: str) -> list[Param] | None:
    """The named parameters of a signature line, or None when calls cannot be mapped onto them (it takes
    `*args`, or a parameter is not a name, as in "arange([start,] stop[, step,])")."""
    inner = signature[signature.find("(") + 1: signature.rfind(")")] if "(" in signature else ""
    out: list[Param] = []
    positional = True
    for piece in _split_top(inner):
        piece = piece.strip()
        if piece == "/" or not piece:
            continue
        if piece == "*":
            positional = False
        elif piece.startswith("**"):
            continue
        elif piece.startswith("*"):
            return None
        else:
            name = piece.split("=")[0].split(":")[0].strip()
            if not name.isidentifier():
                return None
            out.append(Param(name, positional))
    return out


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets and quotes."""
    pieces, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    return [*pieces, text[start:]]


def example_statements(fields: DocFields) -> list[Statement]:
    """The Examples section's `>>>` statements in order, each with the lines it printed."""
    statements: list[Statement] = []
    source: list[str] = []
    output: list[str] = []
    for line in [*fields.section("Examples").splitlines(), ""]:
        text = line.strip()
        if text.startswith(">>>"):
            if source:
                statements.append(Statement("\n".join(source), "\n".join(output)))
            source, output = [text[4:]], []
        elif source and (text == "..." or text.startswith("... ")) and not output:
            source.append(text[4:])
        elif source and text:
            output.append("" if text == "<BLANKLINE>" else line.rstrip())
        elif source:
            statements.append(Statement("\n".join(source), "\n".join(output)))
            source, output = [], []
    return statements


def behaviour(summary: str) -> str:
    """The summary as what one wants done: "Calculate the sum." -> "calculate the sum", "Returns the
    sum." -> "return the sum", "Sum of the elements." -> "get the sum of the elements" (a noun phrase);
    the first word lower-cased unless an acronym, no final stop."""
    words = summary.strip().rstrip(".").split()
    if not words:
        return ""
    first = words[0] if len(words[0]) > 1 and words[0][1].isupper() else words[0][0].lower() + words[0][1:]
    if first in _DETERMINERS or (len(words) > 1 and words[1] in ("of", "for")):
        return " ".join(["get", first, *words[1:]])
    return " ".join([_plain_verb(first), *words[1:]])


def _plain_verb(word: str) -> str:
    """"returns" -> "return", "applies" -> "apply" (imperatives stay as they are)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if re.search(r"(ch|sh|ss|x)es$", word):
        return word[:-2]
    if word.endswith("s") and not re.search(r"(ss|us|is)$", word) and len(word) > 3:
        return word[:-1]
    return word


def third_person(phrase: str) -> str:
    """A behaviour phrase as a sentence's predicate: "calculate the sum" -> "calculates the sum"."""
    verb, _, rest = phrase.partition(" ")
    if re.search(r"(ch|sh|s|x|z)$", verb):
        verb += "es"
    elif re.search(r"[^aeiou]y$", verb):
        verb = verb[:-1] + "ies"
    else:
        verb += "s"
    return f"{verb} {rest}".strip()
