from sebench.answers import extract_code


def test_extract():
    assert extract_code("no code here") is None and extract_code("") is None
    text = "<think>\n```python\nbad()\n```\n</think>\nFirst:\n```python\na = 1\n```\nFinal:\n```python\nb = 2\n```"
    assert extract_code(text) == "b = 2\n"
    assert extract_code("```\nc = 3\n```") == "c = 3\n"
    assert extract_code("```py\nd = 4") == "d = 4\n"  # truncated answer
    assert extract_code("<think>long reasoning ```python\nx = 1\n```") is None  # unclosed think
    assert extract_code("```python\n```") is None
