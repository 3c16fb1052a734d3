"""Text helpers shared by the backends and retrieval: the answer part after thinking, and stops.

Code extraction is the judge's (sebench.answers), so that records and verdicts agree.
"""

from __future__ import annotations

import re

# An opening fence line, a body, and a closing fence at the start of a line (the first such block).
CODE_BLOCK_END = re.compile(r"```[^\n`]*\n(?:.*?\n)?[ \t]*```", re.DOTALL)


def answer_part(text: str) -> str:
    """The text after the thinking (nothing while a <think> block is still open)."""
    if "<think>" in text:
        end = text.rfind("</think>")
        return "" if end < 0 else text[end + len("</think>") :]
    return text


def cut_at_stop(text: str, stops: list[str] | None, code_block: bool = True) -> tuple[str, bool]:
    """(text up to the first stop, whether a stop was found): the end of the first closing code fence
    after the thinking, or the first stop string (excluded, as OpenAI servers do)."""
    offset = len(text) - len(answer_part(text))
    best = None
    if code_block:
        match = CODE_BLOCK_END.search(text, offset)
        if match:
            best = match.end()
    for stop in stops or []:
        at = text.find(stop, offset)
        if at >= 0 and (best is None or at < best):
            best = at
    return (text, False) if best is None else (text[:best], True)
