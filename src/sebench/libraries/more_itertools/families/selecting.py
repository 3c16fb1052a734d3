"""Selecting: stripping, filtering with exceptions, de-duplication, positions, replacement."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import G, I, L, S


def _texts(r, i):
    pool = ("12", "7", "x", "-3", "", "4.5", "abc", "0", "99", "1e3", "8")
    return {"texts": [r.choice(pool) for _ in range(r.randint(0 if i else 1, 8))]}


def _edges(r, i):
    inner = [r.randint(1, 9) for _ in range(r.randint(0, 5))]
    return {"values": [0] * r.randint(0, 3) + inner + [0] * r.randint(0, 3)}


def _item(r, i):
    kind = i % 4 if i < 4 else r.randrange(4)
    if kind == 0:
        return {"item": None}
    if kind == 1:
        return {"item": r.randint(0, 999)}
    if kind == 2:
        return {"item": "".join(r.choice("xyzw") for _ in range(r.randint(1, 4)))}
    return {"item": [r.randint(0, 99) for _ in range(r.randint(0, 4))]}


def templates() -> list:
    strip_gen = _edges
    return [
        S("strip", "trim_zeros", "values", "return list({strip}(values, lambda v: v == 0))", (
            "A signal `values` has zero padding at both ends. Remove the leading and trailing zeros (zeros inside stay) and return the rest as a list.",
            "Drop every 0 at the start and at the end of `values`, keeping interior zeros, and return the resulting list.",
        ), strip_gen),
        S("lstrip", "skip_leading", "values", "return list({lstrip}(values, lambda v: v == 0))", (
            "An audio clip `values` starts with silence (zeros). Remove the zeros at the beginning only and return the remaining samples.",
            "Return `values` without its leading run of zeros; everything from the first non-zero item on is kept, trailing zeros included.",
        ), strip_gen),
        S("rstrip", "drop_trailing", "values", "return list({rstrip}(values, lambda v: v == 0))", (
            "A fixed-length buffer `values` is padded with zeros at the end. Remove those trailing zeros only and return the content.",
            "Return `values` without the zeros at its end (leading and inner zeros stay).",
        ), strip_gen),
        S("filter_except", "valid_numbers", "texts", "return list({filter_except}(int, texts, ValueError))", (
            "A form collects the strings `texts`; keep only those that Python's int() accepts (the others raise ValueError). Return the kept strings unchanged, in order.",
            "Return the items of `texts` for which converting with int() does not raise ValueError, as the original strings.",
        ), _texts),
        S("map_except", "parse_ints", "texts", "return list({map_except}(int, texts, ValueError))", (
            "A spreadsheet column holds the strings `texts`. Convert each with int() and skip the ones that raise ValueError. Return the integers.",
            "Apply int() to every string of `texts`, silently leaving out those where it raises ValueError, and return the list of results.",
        ), _texts),
        S("filter_map", "digits_only", "texts", "return list({filter_map}(lambda s: int(s) if s.isdigit() else None, texts))", (
            "From the strings `texts`, keep those made only of decimal digits and return them converted to integers, in order.",
            "Map each string in `texts` to int(s) when s consists of digits only and drop it otherwise (a mapping that gives None means dropped). Return the integers.",
        ), _texts),
        S("iter_suppress", "until_zero", "values", "return list({iter_suppress}((60 // v for v in values), ZeroDivisionError))", (
            "A timer divides 60 by each divisor in `values` in turn (integer division) and stops quietly at the first zero divisor. Return the quotients computed before that.",
            "Compute 60 // v for the items v of `values`, left to right, ending the sequence (without an error) as soon as a ZeroDivisionError occurs. Return the list of quotients.",
        ), G(values=L(0, 6, (0, 8)))),
        S("unique_in_window", "recent_unique", "values size", "return list({unique_in_window}(values, size))", (
            "A notification system drops an alert code from `values` if the same code appeared among the previous `size` alerts it received (dropped ones count). Return the alerts that get shown.",
            "Yield the items of `values` that are not equal to any of the `size` items directly before them in the input. Return them as a list.",
        ), G(values=L(0, 4, (0, 10)), size=I(1, 3))),
        S("take", "first_few", "values count", "return list({take}(count, values))", (
            "A leaderboard `values` is already ranked. Return its first `count` entries (all of them if there are fewer).",
            "Return a list of the first `count` items of `values`.",
        ), G(values=L(0, 50, (0, 8)), count=I(0, 5))),
        S("tail", "last_few", "values count", "return list({tail}(count, values))", (
            "A log keeps the events `values` in order; show the most recent `count` events (all if there are fewer), oldest of them first.",
            "Return the final `count` items of `values`, in their original order.",
        ), G(values=L(0, 50, (0, 8)), count=I(0, 5))),
        S("unique_everseen", "first_visits", "values", "return list({unique_everseen}(values))", (
            "A visitor log `values` lists badge numbers; return each badge number the first time it appears, in order of first appearance.",
            "Remove repeated items from `values`, keeping only the first occurrence of each, and return the result in the original order.",
        ), G(values=L(0, 6, (0, 10)))),
        S("unique_justseen", "collapse_repeats", "values", "return list({unique_justseen}(values))", (
            "A thermostat logs the setting `values` every minute; keep one entry per run of equal consecutive settings. Return the list of settings as they changed.",
            "Merge consecutive equal items of `values` into one (non-adjacent repeats stay). Return the list.",
        ), G(values=L(0, 3, (0, 10)))),
        S("unique", "sorted_distinct", "values", "return list({unique}(values, reverse=True))", (
            "Return the distinct scores found in `values`, from the highest to the lowest, each once.",
            "A ranking table wants each different value of `values` exactly once, sorted in descending order. Return that list.",
        ), G(values=L(0, 9, (0, 10)))),
        S("locate", "where_equal", "values target", "return list({locate}(values, lambda v: v == target))", (
            "A seat map `values` holds ticket types; return the 0-based positions of all seats whose type equals `target`, ascending.",
            "Return the indices at which `values` contains `target`, in increasing order.",
        ), G(values=L(0, 4, (0, 10)), target=I(0, 2))),
        S("rlocate", "where_equal_backwards", "values target", "return list({rlocate}(values, lambda v: v == target))", (
            "Return the 0-based positions of every item equal to `target` in `values`, starting from the highest position and going down.",
            "An undo stack `values` holds action codes; list the indices of all actions equal to `target`, most recent (largest index) first.",
        ), G(values=L(0, 4, (0, 10)), target=I(0, 2))),
        S("replace", "substitute", "values old new", "return list({replace}(values, lambda v: v == old, new))", (
            "In the recipe steps `values`, every step equal to `old` must be replaced by the sequence of steps `new` (a list, possibly empty). Return the new list of steps.",
            "Return `values` where each occurrence of the item `old` is replaced by all the items of the list `new`, in order.",
        ), G(values=L(0, 4, (0, 8)), old=I(0, 2), new=L(5, 9, (0, 3), empty=False))),
        S("takewhile_inclusive", "up_to_first_big", "values limit", "return list({takewhile_inclusive}(lambda v: v <= limit, values))", (
            "A pump reads the pressures `values` until the first one above `limit`, which it still records before stopping. Return the recorded pressures.",
            "Take items from the start of `values` while they are at most `limit`, and also include the first item that breaks the rule (if any). Return the list.",
        ), G(values=L(0, 9, (0, 9)), limit=I(2, 7))),
        S("before_and_after", "split_at_first_big", "values limit", "a, b = {before_and_after}(lambda v: v <= limit, values)\nreturn [list(a), list(b)]", (
            "A queue `values` is cut at the first item greater than `limit`: return [items before it, that item and everything after it].",
            "Return two lists: the longest prefix of `values` whose items are all at most `limit`, and the remainder of `values`.",
        ), G(values=L(0, 9, (0, 9)), limit=I(2, 7))),
        S("map_if", "negate_odd", "values", "return list({map_if}(values, lambda v: v % 2 == 1, lambda v: -v))", (
            "In the ledger `values`, odd amounts are refunds and must be shown negated; even amounts stay. Return the adjusted ledger.",
            "Return `values` with every odd item replaced by its negative and every other item unchanged.",
        ), G(values=L(0, 20, (0, 9)))),
        S("iter_index", "positions_from", "values target start", "return list({iter_index}(values, target, start))", (
            "Return the positions in `values` where the item equals `target`, looking only at positions `start` and later, ascending.",
            "A train timetable `values` lists platform numbers; from stop index `start` onwards, at which stops is the platform `target`? Return those indices.",
        ), G(values=L(0, 3, (0, 10)), target=I(0, 2), start=I(0, 4))),
        S("difference", "undo_running_total", "totals", "return list({difference}(totals))", (
            "A bank statement `totals` shows running balances; recover the individual transactions: the first balance itself, then each balance minus the previous one.",
            "Invert a cumulative sum: given `totals`, return a list whose first item is totals[0] and whose later items are totals[k] - totals[k-1].",
        ), G(totals=L(-20, 40, (0, 9)))),
        S("always_iterable", "as_items", "item", "return list({always_iterable}(item))", (
            "A config value `item` may be None, a single value (a number or a string) or a list of values. Return it as a list of values: None gives [], a single value v gives [v], a list stays the same list.",
            "Normalise `item` to a list: [] for None, the items for a list, and a one-element list for a number or a string (strings are not split into characters).",
        ), _item),
        S("circular_shifts", "rotations", "values", "return [list(s) for s in {circular_shifts}(values)]", (
            "A round table seats the guests `values`; list every seating obtained by rotating everyone to the left by 0, 1, 2, ... places (as many seatings as guests). Return them as lists.",
            "Return all left rotations of `values`, starting with `values` itself, then the list moved left by one position, and so on, one per item.",
        ), G(values=L(0, 9, (1, 5), empty=False))),
        S("tabulate", "squares_from", "start count offset", "return [v for v, _ in zip({tabulate}(lambda k: k * k + offset, start), range(count))]", (
            "Return the values k * k + `offset` for k = `start`, `start` + 1, ..., taking `count` of them, computed as a table of a function over consecutive integers.",
            "A physics sheet lists distance k*k + `offset` at times k starting at `start`. Return the first `count` entries.",
        ), G(start=I(-3, 5), count=I(0, 6), offset=I(0, 9))),
        S("iterate", "collatz", "start count", "return [v for v, _ in zip({iterate}(lambda x: x // 2 if x % 2 == 0 else 3 * x + 1, start), range(count))]", (
            "Return the first `count` terms of the sequence that begins at `start` and repeatedly applies: halve an even number, replace an odd number x by 3x + 1.",
            "A puzzle repeatedly transforms a positive number (even: divide by two; odd: triple it and add one), starting from `start`. Return the first `count` numbers of that orbit, `start` included.",
        ), G(start=I(1, 40), count=I(1, 10))),
    ]
