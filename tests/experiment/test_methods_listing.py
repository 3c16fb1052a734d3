"""`sebench methods` lists every name in one table: each row's origin starts in the same column, whatever
the length of the longest name, and every name the study accepts is listed once."""

import contextlib
import io

from sebench.cli import main
from sebench.experiment.methods_cli import rows


def test_every_row_of_the_listing_has_its_origin_in_one_column():
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["methods"]) == 0
    lines = [line for line in printed.getvalue().splitlines() if line.strip()]
    expected = rows()
    assert [line.split()[0] for line in lines] == [name for name, _, _ in expected]
    columns = {line.index(f" {origin} ", len(name)) for line, (name, origin, _) in zip(lines, expected)}
    assert len(columns) == 1, columns
    longest = max(len(name) for name, _, _ in expected)
    assert columns.pop() > longest  # the longest name keeps a space before its origin
