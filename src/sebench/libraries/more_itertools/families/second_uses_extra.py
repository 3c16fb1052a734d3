"""Second uses of the remaining families' functions (see second_uses: the same function with other
arguments, inputs or post-processing, so that test and train bodies can differ)."""

from __future__ import annotations

import math

from sebench.libraries.more_itertools.families.common import C, G, I, L, S, Str, ints


def _distinct(letters: str):
    """A string of 1 to len(letters) different letters of `letters`, in random order."""
    return lambda r, i: "".join(r.sample(letters, r.randint(1, len(letters))))


def _mixed_texts(r, i):
    pool = ("12", "7", "x", "ab", "40", "3", "-", "9", "q1", "05")
    return {"texts": [r.choice(pool) for _ in range(r.randint(1 if i else 0, 8))]}


def _value_parts(r, i):
    def part():
        return [r.randint(0, 9) for _ in range(r.randint(0, 3))] if r.random() < 0.5 else r.randint(0, 9)
    return {"parts": [part() for _ in range(r.randint(1 if i else 0, 6))]}


def _one_above(r, i):
    values = r.sample(range(0, 40), r.randint(1, 8))
    top = sorted(values)
    return {"values": values, "limit": top[-2] if len(top) > 1 and r.random() < 0.7 else top[-1]}


def _tiles(r, i):
    text = Str((1, 6), "abcd")(r, i)
    letters = list(text) if r.random() < 0.5 else list(Str((1, 6), "abcd")(r, i))
    return {"text": text, "letters": letters}


def _prefix_rows(r, i):
    base = [r.randint(0, 3) for _ in range(r.randint(0, 6))]
    rows = []
    for _ in range(r.randint(1, 4)):
        cut = r.randint(0, len(base))
        rows.append(base[:cut] + [r.randint(0, 3) for _ in range(r.randint(0, 2))])
    return {"rows": rows}


def _grid(r, i):
    cols = r.randint(1, 4)
    rows = [[r.randint(0, 9) for _ in range(cols)] for _ in range(r.randint(1, 4))]
    size = len(rows) * cols
    return {"rows": rows, "cols": r.choice([c for c in range(1, size + 1) if size % c == 0])}


def _matrices(r, i):
    n, m, k = r.randint(1, 3), r.randint(1, 3), r.randint(1, 3)
    return {"a": [[r.randint(-3, 5) for _ in range(m)] for _ in range(n)],
            "b": [[r.randint(-3, 5) for _ in range(k)] for _ in range(m)]}


def _letter_options(r, i):
    options = ["".join(r.sample("abcdef", r.randint(1, 3))) for _ in range(r.randint(1, 3))]
    return {"options": options, "index": r.randint(0, max(0, _count(options) - 1))}


def _count(options):
    n = 1
    for o in options:
        n *= len(o)
    return n


def _word_and_size(r, i):
    text = "".join(r.sample("abcdefg", r.randint(1, 5)))
    size = r.randint(1, len(text))
    return {"text": text, "size": size, "index": r.randint(0, math.perm(len(text), size) - 1)}


def _chosen_code(r, i):
    pool = "".join(sorted(r.sample("abcdefgh", r.randint(2, 6))))
    return {"code": "".join(r.sample(pool, r.randint(1, len(pool)))), "pool": pool}


def _chosen_subset(r, i):
    pool = "".join(sorted(r.sample("abcdefgh", r.randint(2, 6))))
    return {"code": "".join(sorted(r.sample(pool, r.randint(1, len(pool))))), "pool": pool}


def _perm_index(r, i):
    text = "".join(r.sample("abcdef", r.randint(1, 5)))
    total = 1
    for k in range(2, len(text) + 1):
        total *= k
    return {"text": text, "index": r.randint(0, total - 1)}


def templates() -> list:
    return [
        S("prepend", "with_currency", "sign amount", "return ''.join({prepend}(sign, amount))", (
            "A price tag shows the currency sign `sign` in front of the amount `amount` (a string of digits). Return the tag's text.",
            "Return the string made of the character `sign` followed by the characters of `amount`.",
        ), G(sign=C("$", "#", "+"), amount=Str((0, 6), "0123456789"))),
        S("value_chain", "total_of_parts", "parts", "return sum({value_chain}(*parts))", (
            "A till receives `parts`: some entries are single amounts, others are lists of amounts. Return the total of all amounts.",
            "Every item of `parts` is either a number or a list of numbers; return the sum of all these numbers.",
        ), _value_parts),
        S("filter_except", "count_numbers", "texts", "return len(list({filter_except}(int, texts, ValueError)))", (
            "A form has the entries `texts`; some are whole numbers written in digits, others are not. How many entries can be read as whole numbers?",
            "Return how many strings of `texts` convert to an integer with int() without a ValueError.",
        ), _mixed_texts),
        S("map_except", "sum_numbers", "texts", "return sum({map_except}(int, texts, ValueError))", (
            "A scanner reads the entries `texts`; it adds up every entry that is a whole number and ignores the rest. Return the sum.",
            "Convert each string of `texts` to an integer, skipping those that raise ValueError, and return the sum of the integers.",
        ), _mixed_texts),
        S("filter_map", "digit_lengths", "texts", "return list({filter_map}(lambda s: len(s) if s.isdigit() else None, texts))", (
            "A form's entries are `texts`. For every entry made only of digits, in order, return its number of digits (other entries are skipped).",
            "Return the lengths of the strings of `texts` that consist of digits only, in order.",
        ), _mixed_texts),
        S("tabulate", "remainders", "m start count", "return [v for v, _ in zip({tabulate}(lambda k: k % m, start), range(count))]", (
            "A clock with `m` positions shows, at tick k, the position k mod `m`. Return what it shows for `count` ticks starting with tick `start`.",
            "Return k mod `m` for the `count` consecutive integers k = `start`, `start` + 1, ...",
        ), G(m=I(1, 7), start=I(0, 20), count=I(0, 10))),
        S("only", "single_above", "values limit", "return {only}(v for v in values if v > limit)", (
            "A referee knows that at most one of the scores `values` is above `limit`. Return that score, or None when no score is above `limit`.",
            "Return the one item of `values` greater than `limit` (there is at most one), or None if there is none.",
        ), _one_above),
        S("iequals", "spelled_by_tiles", "text letters", "return {iequals}(text, letters)", (
            "A player lays the letter tiles `letters` in a row. Do they spell exactly the word `text`? Return a boolean.",
            "Return True if the characters of the string `text` are, in order, exactly the items of the list `letters`, else False.",
        ), _tiles),
        S("longest_common_prefix", "common_start", "rows", "return list({longest_common_prefix}(rows))", (
            "Several routes `rows`, each a list of stop numbers, start from the same depot. Return the stops all routes share from the start, until they first differ.",
            "Return the longest list that is a prefix of every list in `rows`.",
        ), _prefix_rows),
        S("count_cycle", "rounds_of", "values rounds target", "return [n for n, v in {count_cycle}(values, rounds) if v == target]", (
            "A band plays its setlist `values` `rounds` times, numbering the rounds from 0. Return the round number of every time the song `target` is played, in order.",
            "Cycle through `values` `rounds` times, pairing each item with its cycle number from 0, and return the cycle numbers of the items equal to `target`.",
        ), G(values=L(0, 3, (0, 6)), rounds=I(1, 3), target=I(0, 2))),
        S("flatten", "largest_cell", "rows", "return max({flatten}(rows), default=-1)", (
            "A seating plan `rows` lists seat prices row by row. Return the highest price, or -1 for a plan without seats.",
            "Return the largest number in the list of lists `rows`, or -1 when all rows are empty.",
        ), G(rows=lambda r, i: [ints(r, i, 0, 30, (0, 4)) for _ in range(r.randint(1 if i else 0, 4))])),
        S("zip_broadcast", "tag_both_sides", "day values unit", "return [list(t) for t in {zip_broadcast}(day, values, unit)]", (
            "A log writes every measurement of `values` as [day, measurement, unit], with the same day `day` and unit `unit` on every line. Return the lines.",
            "Return [day, v, unit] for every item v of `values`, the strings `day` and `unit` repeated on each.",
        ), G(day=C("mon", "tue", "wed"), values=L(0, 20, (0, 6)), unit=C("kg", "cm", "s"))),
        S("partial_product", "three_step_changes", "first_part second_part third_part", "return [''.join(t) for t in {partial_product}(first_part, second_part, third_part)]", (
            "A menu starts with the first options of `first_part`, `second_part` and `third_part` (strings of option letters) and changes one course at a time: first all later options of the first course, then of the second, then of the third. Return the menus as three-letter strings.",
            "Start with the first characters of the three strings and walk through the rest of the first string, then the second, then the third, changing one position at a time. Return every combination visited as a string.",
        ), G(first_part=_distinct("abc"), second_part=_distinct("def"), third_part=_distinct("ghi"))),
        S("dotproduct", "position_weighted", "values", "return {dotproduct}(values, range(len(values)))", (
            "A score sheet weights each answer `values` by its position (0 for the first answer, 1 for the next, ...). Return the weighted total.",
            "Return the sum of k times values[k] over all positions k of `values`.",
        ), G(values=L(-5, 9, (0, 8)))),
        S("reshape", "regrouped_sums", "rows cols", "return [sum(r) for r in {reshape}(rows, cols)]", (
            "A warehouse re-stacks the crates `rows` (read row by row) onto shelves of `cols` crates each. Return the total weight on every new shelf.",
            "Read the table `rows` row by row, regroup its numbers into rows of `cols` (which divides their count) and return each new row's sum.",
        ), _grid),
        S("matmul", "product_row_sums", "a b", "return [sum(r) for r in {matmul}(a, b)]", (
            "Factories produce goods by the recipe table `a` and goods cost by the price table `b` (matrix sizes fit). Return the row sums of the matrix product a times b.",
            "Multiply the matrices `a` and `b` (columns of a equal rows of b) and return the sum of each row of the product.",
        ), _matrices),
        S("convolve", "edge_differences", "signal", "return list({convolve}(signal, [1, -1]))", (
            "A detector turns the levels `signal` into changes: the first level itself, then each level minus the one before, then minus the last level at the end. Return the list.",
            "Convolve `signal` with the kernel [1, -1] (full length) and return the result.",
        ), G(signal=L(0, 9, (1, 7), empty=False))),
        S("partitions", "short_piece_splits", "values size", "return sum(1 for p in {partitions}(values) if all(len(x) <= size for x in p))", (
            "A train `values` can be cut into consecutive sections at any gaps between wagons. In how many ways can it be cut so that no section has more than `size` wagons?",
            "Count the ways to split the list `values` into contiguous non-empty pieces of length at most `size`.",
        ), G(values=L(0, 9, (1, 7), empty=False), size=I(1, 3))),
        S("set_partitions", "count_groupings", "values k", "return sum(1 for _ in {set_partitions}(values, k))", (
            "A coach divides the distinct players `values` into `k` non-empty unnamed groups. In how many ways can she do it?",
            "Return the number of ways to partition the distinct items of `values` into `k` non-empty, unordered blocks.",
        ), lambda r, i: {"values": r.sample(range(1, 20), r.randint(1, 6)), "k": r.randint(1, 4)}),
        S("derangements", "count_swaps", "values", "return sum(1 for _ in {derangements}(values))", (
            "Guests `values` (all different) swap hats so that nobody gets their own hat back. In how many ways can the hats be handed out?",
            "Return the number of rearrangements of the distinct items of `values` that leave no item in its place.",
        ), lambda r, i: {"values": r.sample(range(1, 30), r.randint(0 if i == 0 else 1, 6))}),
        S("nth_product", "menu_string", "index options", "return ''.join({nth_product}(index, *options))", (
            "A diner lists every menu that takes one letter from each string of `options`, in order, the last course varying fastest. Return menu number `index` (from 0) as a string.",
            "Return, as a string, the element at position `index` of the Cartesian product of the strings in `options`, in lexicographic order of positions.",
        ), _letter_options),
        S("nth_permutation", "arrangement_string", "text size index", "return ''.join({nth_permutation}(text, size, index))", (
            "A sign maker lists every way to put `size` different letters of `text` in a row, ordered by the letters' positions in `text`. Return arrangement number `index` (from 0) as a string.",
            "Return, as a string, the permutation of length `size` of the characters of `text` with index `index` in the order itertools produces them.",
        ), _word_and_size),
        S("permutation_index", "code_rank", "code pool", "return {permutation_index}(code, pool)", (
            "A lock lists every code made of distinct letters from `pool`, of the length of `code`, in the order of the letters' positions in `pool`. Return the position (from 0) of `code` in that list.",
            "Return the index of the string `code`, read as a tuple of characters, among the permutations of the string `pool` of that length, in the order itertools produces them.",
        ), _chosen_code),
        S("combination_index", "subset_rank", "code pool", "return {combination_index}(code, pool)", (
            "A lottery lists every set of distinct letters from `pool`, of the size of `code`, in the order itertools combinations would give them. Return the position (from 0) of the letters `code` in that list.",
            "Return the index of the sorted character string `code` among the combinations of `pool` of its length, in lexicographic order of positions.",
        ), _chosen_subset),
        S("nth_prime", "prime_list", "ks", "return [{nth_prime}(k) for k in ks]", (
            "A quiz asks for the primes at the positions `ks`, counting from 0 (position 0 is the prime 2). Return them in the order asked.",
            "For each k in `ks`, return the k-th prime number counting from 0, as a list.",
        ), G(ks=L(0, 60, (0, 5)))),
        S("totient", "totients", "values", "return [{totient}(v) for v in values]", (
            "For every positive number of `values`, count the numbers from 1 to it that share no factor greater than 1 with it. Return the counts in order.",
            "Return Euler's phi of each positive integer in `values`, as a list.",
        ), G(values=L(1, 200, (0, 5)))),
        S("multinomial", "anagram_count", "text", "return {multinomial}(*[text.count(c) for c in set(text)])", (
            "How many different words can be spelled by rearranging all letters of `text` (equal letters are not told apart)? Return the count.",
            "Return the number of distinct orderings of the characters of the string `text`.",
        ), G(text=Str((0, 8), "aabbcd"))),
        S("classify_unique", "returning_items", "values", "return sum(1 for _, new_here, new_ever in {classify_unique}(values) if new_here and not new_ever)", (
            "A door camera logs visitor ids `values`. Count the visits of someone who came before but not just before (the previous visitor was someone else).",
            "Count the items of `values` that differ from the item right before them but equal some earlier item.",
        ), G(values=L(0, 4, (0, 10)))),
        S("powerset_of_sets", "count_distinct_sets", "values", "return len(list({powerset_of_sets}(values)))", (
            "A pizza shop offers the toppings `values` (a topping may be listed twice). How many different topping sets, the empty one included, can a customer order?",
            "Return the number of distinct subsets (including the empty one) of the set of items in `values`.",
        ), G(values=L(0, 9, (0, 8)))),
        S("always_iterable", "total_of_one_or_many", "item", "return sum({always_iterable}(item))", (
            "An order form field `item` holds either one quantity or a list of quantities. Return the total quantity.",
            "Return `item` itself when it is a number, or the sum of its numbers when it is a list.",
        ), lambda r, i: {"item": ints(r, i, 0, 20, (0, 6)) if r.random() < 0.6 else r.randint(0, 500)}),
    ]
