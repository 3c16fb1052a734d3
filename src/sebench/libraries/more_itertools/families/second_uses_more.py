"""Second uses of the summarizing, combining, combinatorics and number functions (see second_uses: the
same function with other arguments, inputs or post-processing, so that test and train bodies can differ)."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import WORDS, C, G, I, L, S, Str, W, ints
from sebench.libraries.more_itertools.families.second_uses import INITIALS


def _nonempty_words(r, i):
    return {"words": [r.choice(WORDS) for _ in range(r.randint(1, 8))]}


def _word_lists(r, i):
    return {"words": ["".join(r.choice("abcdef") for _ in range(r.randint(0, 4))) for _ in range(r.randint(1, 4))]}


def _letter_words(r, i):
    return {"words": ["".join(r.choice("abcdef") for _ in range(r.randint(1, 4))) for _ in range(r.randint(1, 4))]}


def _two_lists(r, i):
    n = r.randint(1 if i else 0, 7)
    return {"left": [r.randint(-5, 9) for _ in range(n)], "right": [r.randint(-5, 9) for _ in range(n)]}


def _groups(r, i):
    return {"groups": [[r.randint(0, 6) for _ in range(r.randint(0, 5))] for _ in range(r.randint(1, 4))]}


def _nested(r, i):
    def item(depth):
        if depth < 2 and r.random() < 0.4:
            return [item(depth + 1) for _ in range(r.randint(0, 3))]
        return r.randint(0, 9)
    return {"nested": [item(0) for _ in range(r.randint(1 if i else 0, 5))]}


def _pairs(r, i):
    return {"pairs": [[r.randint(0, 9), r.randint(0, 9)] for _ in range(r.randint(1, 6))]}


def _ranked(r, i):
    n = r.randint(1, 6)
    return {"scores": r.sample(range(0, 50), n), "names": r.sample(WORDS, n)}


def _rows(r, i):
    cols = r.randint(1, 4)
    return {"rows": [[r.randint(0, 9) for _ in range(cols)] for _ in range(r.randint(1, 4))]}


def _multiset(r, i):
    return {"values": sorted(r.randint(0, 3) for _ in range(r.randint(1 if i else 0, 6))), "size": r.randint(1, 3)}


def _indexed(r, i):
    values = ints(r, i, 0, 9, (1, 8), empty=False)
    return {"values": values, "indices": [r.randrange(len(values)) for _ in range(r.randint(0, 5))]}


def templates() -> list:
    return [
        S("first", "first_ending", "words letter", "return {first}((w for w in words if w.endswith(letter)), 'none')", (
            "A quiz host reads the words `words` in order and stops at the first one ending with the letter `letter`. Return that word, or 'none' when no word ends with it.",
            "Return the earliest item of `words` whose last character is `letter`, or the string 'none' if there is no such item.",
        ), G(words=W((1, 8)), letter=C("e", "n", "r", "t"))),
        S("last", "last_even", "values", "return {last}((v for v in values if v % 2 == 0), -1)", (
            "A counter records the numbers `values`. Return the last even number it recorded, or -1 if it recorded none.",
            "Return the final even item of `values`, or -1 when `values` holds no even number.",
        ), G(values=L(0, 9, (0, 9)))),
        S("nth", "kth_positive", "values k", "return {nth}((v for v in values if v > 0), k, 0)", (
            "A ledger `values` has deposits (positive amounts) among other entries. Return the deposit at position `k` among the deposits only (counting from 0), or 0 when there are not that many deposits.",
            "Among the positive items of `values`, in order, return the one with index `k` (0-based), or 0 if there are at most `k` positive items.",
        ), G(values=L(-5, 9, (0, 10)), k=I(0, 3))),
        S("nth_or_last", "kth_or_final_or_none", "values k", "return {nth_or_last}(values, k, default=-1)", (
            "A playlist `values` is asked for its song at position `k` (counting from 0); if the list is shorter, the last song plays instead, and if the list is empty, -1 is reported. Return what plays.",
            "Return values[k] when it exists, else the last item of `values`, else -1 for an empty list.",
        ), G(values=L(0, 20, (0, 8)), k=I(0, 6))),
        S("exactly_n", "exactly_nonzero", "values n", "return {exactly_n}(values, n)", (
            "A lamp panel reports brightness levels `values`, 0 meaning off. Is the number of lamps that are on exactly `n`? Return a boolean.",
            "Return True when exactly `n` items of `values` are non-zero, else False.",
        ), G(values=L(0, 2, (0, 9)), n=I(1, 4))),
        S("is_sorted", "strictly_falling", "values", "return {is_sorted}(values, reverse=True, strict=True)", (
            "A countdown is valid when its numbers `values` strictly decrease from one to the next. Return whether it is valid (an empty or one-number countdown is).",
            "Return True if every item of `values` is greater than the item after it, else False.",
        ), lambda r, i: {"values": sorted(ints(r, i, 0, 20, (0, 8)), reverse=r.random() < 0.7)}),
        S("all_equal", "same_lengths", "words", "return {all_equal}(words, key=len)", (
            "A typesetter needs all words `words` of one line to have the same number of letters. Return whether they do (no words count as yes).",
            "Return True when every string in `words` has the same length, else False.",
        ), G(words=W((1, 4), pool=WORDS[:20]))),
        S("all_unique", "distinct_initials", "words", "return {all_unique}(words, key=lambda w: w[0])", (
            "A class photo lists the names `words`; the photographer wants no two names to begin with the same letter. Return whether that holds.",
            "Return True if no two strings of `words` share their first character, else False.",
        ), G(words=W((1, 5), pool=WORDS[:12] + WORDS[31:]))),
        S("minmax", "shortest_longest", "words", "return list({minmax}(words, key=len))", (
            "An editor looks through the words `words` (at least one) for the shortest and the longest word; ties go to the earliest word. Return [shortest, longest].",
            "Return a two-item list: the first string of `words` with the fewest characters and the first with the most.",
        ), _nonempty_words),
        S("first_true", "first_nonzero", "values", "return {first_true}(values, -1)", (
            "A seismograph reports `values`, mostly zeros. Return the first reading that is not zero, or -1 if all are zero.",
            "Return the first non-zero item of `values`, or -1 if there is none.",
        ), G(values=L(0, 3, (0, 8)))),
        S("quantify", "count_long_words", "words size", "return {quantify}(words, lambda w: len(w) > size)", (
            "An essay's words are `words`. How many of them have more than `size` letters?",
            "Return the number of strings in `words` longer than `size` characters.",
        ), G(words=W((0, 9)), size=I(3, 5))),
        S("argmax", "longest_position", "words", "return {argmax}(words, key=len)", (
            "A spelling bee lists the words `words` (at least one). Return the position of the longest word, the earliest one on a tie.",
            "Return the index of the first string of greatest length in `words`.",
        ), _nonempty_words),
        S("argmin", "closest_to_zero", "values", "return {argmin}(values, key=abs)", (
            "A thermostat logs deviations `values` (at least one) from the set point. Return the position of the smallest deviation in size, ignoring its sign; the earliest wins ties.",
            "Return the index of the first item of `values` with the smallest absolute value.",
        ), G(values=L(-9, 9, (1, 9), empty=False))),
        S("sum_of_squares", "squared_distance", "left right", "return {sum_of_squares}(a - b for a, b in zip(left, right))", (
            "Two robots report positions `left` and `right` along the same axes. Return the squared distance between them: the sum over axes of the squared difference.",
            "Return the sum of (left[i] - right[i]) squared over all positions i of the equally long lists `left` and `right`.",
        ), _two_lists),
        S("ilen", "vowel_count", "text", "return {ilen}(c for c in text if c in 'aeiou')", (
            "A poet counts the vowels (a, e, i, o, u) in the line `text`. Return the count.",
            "Return how many characters of the string `text` are one of 'aeiou'.",
        ), G(text=Str((0, 12), "abcdeiou"))),
        S("duplicates_everseen", "repeated_lengths", "words", "return list({duplicates_everseen}(words, key=len))", (
            "A sorter goes through `words` and sets aside every word whose length it has already met once before. Return the set-aside words in order.",
            "Return, in order, each item of `words` whose length equals the length of some earlier item.",
        ), G(words=W((0, 8)))),
        S("duplicates_justseen", "same_initial_as_before", "words", "return list({duplicates_justseen}(words, key=lambda w: w[0]))", (
            "A radio host reads the titles `words` and notes every title that starts with the same letter as the title read just before it. Return the noted titles.",
            "Return, in order, the items of `words` whose first character equals the first character of the item right before them.",
        ), G(words=W((0, 9), pool=INITIALS))),
        S("unique_to_each", "exclusive_counts", "groups", "return [len(u) for u in {unique_to_each}(*groups)]", (
            "Several shops stock the products in `groups`, one list per shop. For each shop, return how many of its listed products no other shop stocks (repeats in its list count each time).",
            "For every list in `groups`, count its items that appear in no other list, and return the counts in order.",
        ), _groups),
        S("collapse", "flatten_one_level", "nested", "return list({collapse}(nested, levels=1))", (
            "A box `nested` holds numbers and smaller boxes, which may hold boxes again. Unpack only the outer box's boxes one level: return the items with each inner box replaced by its own contents.",
            "Flatten `nested` by exactly one level: every list inside it is replaced by its items (deeper lists stay lists). Return the result.",
        ), _nested),
        S("interleave", "alternate_letters", "words", "return ''.join({interleave}(*words))", (
            "A cipher takes one letter from each word of `words` in turn and stops as soon as one word runs out of letters. Return the letters taken, as a string.",
            "Join the characters of the strings in `words` taken alternately, one from each, stopping when the shortest string is exhausted.",
        ), _letter_words),
        S("interleave_longest", "merged_letters", "words", "return ''.join({interleave_longest}(*words))", (
            "A weaver takes one letter from each word of `words` in turn, skipping words that have run out, until all letters are used. Return the woven string.",
            "Return a string of the characters of the strings in `words` taken alternately, one from each, continuing with the longer ones after the shorter run out.",
        ), _word_lists),
        S("roundrobin", "fair_letters", "words", "return ''.join({roundrobin}(*words))", (
            "A scheduler gives each queue in `words` (a string of job letters) one turn in order, dropping empty queues, until all jobs ran. Return the jobs in the order they ran, as a string.",
            "Visit the strings in `words` cyclically, taking their next character each time and skipping the exhausted ones, and return all characters as one string.",
        ), _word_lists),
        S("zip_offset", "lag_with_fill", "values lag fill", "return [list(t) for t in {zip_offset}(values, values, offsets=(0, lag), longest=True, fillvalue=fill)]", (
            "A log `values` is compared with itself `lag` steps later. Pair every entry with the entry `lag` places after it, using `fill` when there is none. Return the pairs as lists.",
            "Return [values[i], values[i + lag]] for every index i of `values`, with `fill` in place of positions past the end.",
        ), G(values=L(0, 9, (0, 7)), lag=I(1, 3), fill=I(-1, 0))),
        S("unzip", "column_totals", "pairs", "return [sum(part) for part in {unzip}(pairs)]", (
            "A scoreboard lists [home goals, away goals] for every match in `pairs`. Return [total home goals, total away goals].",
            "Return the sum of the first items and the sum of the second items of the two-item lists in `pairs`.",
        ), _pairs),
        S("sort_together", "by_score_ascending", "scores names", "return [list(x) for x in {sort_together}([scores, names])]", (
            "A race lists the times `scores` and the runners `names` side by side. Return [times from fastest to slowest, runners in that same order].",
            "Sort the lists `scores` and `names` together by `scores`, increasing, and return both sorted lists.",
        ), _ranked),
        S("transpose", "column_sums", "rows", "return [sum(c) for c in {transpose}(rows)]", (
            "A spreadsheet has the rows `rows`, all equally long. Return the total of every column, left to right.",
            "Return the sums of the columns of the rectangular table `rows`.",
        ), _rows),
        S("powerset", "subsets_to_target", "values target", "return sum(1 for s in {powerset}(values) if sum(s) == target)", (
            "A shopper has coins `values` (equal coins count as different coins). In how many ways can she pick some of them (possibly none) worth exactly `target`?",
            "Count the subsets of the positions of `values` whose items sum to `target` (the empty subset sums to 0).",
        ), G(values=L(1, 5, (0, 7)), target=I(0, 8))),
        S("distinct_permutations", "short_codes", "text r", "return [''.join(p) for p in {distinct_permutations}(text, r)]", (
            "A lock code uses `r` of the letter tiles `text` in some order. Return every different code, as strings, in sorted order.",
            "Return the distinct arrangements of `r` characters chosen from the string `text`, as strings in lexicographic order.",
        ), lambda r, i: {"text": "".join(sorted(Str((2, 6), "aabbcd")(r, i))), "r": r.randint(1, 3)}),
        S("distinct_combinations", "count_selections", "values size", "return len(list({distinct_combinations}(values, size)))", (
            "A jar holds marbles of colours `values` (equal numbers, equal colours). How many different handfuls of `size` marbles can be drawn, ignoring order?",
            "Return the number of distinct `size`-item combinations of `values`, where equal items are not told apart.",
        ), _multiset),
        S("sieve", "prime_count", "n", "return len(list({sieve}(n)))", (
            "A number game counts the primes smaller than `n`. Return the count.",
            "Return how many prime numbers are less than `n`.",
        ), G(n=I(0, 3000))),
        S("factor", "distinct_prime_count", "n", "return len(set({factor}(n)))", (
            "A mathematician asks how many different primes divide `n`. Return that number (0 for 1).",
            "Return the number of distinct prime factors of the positive integer `n`.",
        ), G(n=I(1, 10000))),
        S("is_prime", "keep_primes", "values", "return [v for v in values if {is_prime}(v)]", (
            "A lottery keeps only the prime numbers among the drawn numbers `values`. Return them in draw order.",
            "Return the items of `values` that are prime numbers, in order.",
        ), G(values=L(0, 40, (0, 10)))),
        S("running_median", "recent_median", "values size", "return list({running_median}(values, maxlen=size))", (
            "A sensor smooths its readings `values` by reporting, after each reading, the median of the last `size` readings so far. Return the reported medians.",
            "For each position of `values`, return the median of the most recent `size` items up to and including it.",
        ), G(values=L(0, 9, (0, 8)), size=I(1, 3))),
        S("mark_ends", "inner_items", "values", "return [v for is_head, is_end, v in {mark_ends}(values) if not is_head and not is_end]", (
            "A fence has posts `values`. Return every post except the first and the last, in order.",
            "Return the items of `values` without its first and its last item (nothing for lists of up to two items).",
        ), G(values=L(0, 9, (0, 8)))),
        S("adjacent", "next_to_negative", "values", "return [v for flag, v in {adjacent}(lambda v: v < 0, values) if flag]", (
            "A bank statement `values` flags every negative entry and the entries right before and after it. Return the flagged entries in order.",
            "Return the items of `values` that are negative or sit directly next to a negative item, in order.",
        ), G(values=L(-3, 9, (0, 9)))),
        S("polynomial_eval", "poly_table", "coefficients xs", "return [{polynomial_eval}(coefficients, x) for x in xs]", (
            "An engineer tabulates the polynomial with coefficients `coefficients` (highest power first) at the points `xs`. Return the values in order.",
            "Evaluate the polynomial whose coefficients, highest degree first, are `coefficients` at every number of `xs`, and return the list of results.",
        ), G(coefficients=L(-3, 3, (1, 4), empty=False), xs=L(-3, 3, (0, 5)))),
        S("substrings_indexes", "spans_forward", "text", "return [[s, a, b] for s, a, b in {substrings_indexes}(text)]", (
            "A text tool lists every fragment of `text` with its start and end: first all one-letter fragments left to right, then the two-letter ones, and so on. Return [fragment, start, end] triples (end exclusive).",
            "Return every contiguous substring of `text` as [substring, start index, stop index], shortest substrings first and, within one length, from left to right.",
        ), G(text=Str((1, 6), "abcd"))),
        S("circular_shifts", "smallest_rotation", "text", "return min(''.join(s) for s in {circular_shifts}(text))", (
            "A necklace's beads read `text` from the clasp. Turning it moves beads from the front to the back. Return the alphabetically first reading over all turns.",
            "Return the lexicographically smallest rotation of the string `text`.",
        ), G(text=Str((1, 7), "abc"))),
        S("iterate", "growth", "start ratio count", "return [v for v, _ in zip({iterate}(lambda x: x * ratio, start), range(count))]", (
            "A colony starts with `start` cells and multiplies by `ratio` every hour. Return its sizes over the first `count` hours, the starting size first.",
            "Return the first `count` terms of the geometric sequence starting at `start` with ratio `ratio`.",
        ), G(start=I(1, 30), ratio=I(2, 4), count=I(0, 7))),
        S("extract", "picked_total", "values indices", "return sum({extract}(values, indices))", (
            "A buyer picks items from the price list `values` by their positions `indices` (a position may be picked twice). Return the total price.",
            "Return the sum of values[k] for every k in `indices`.",
        ), _indexed),
        S("outer_product", "larger_of_pairs", "left right", "return [list(row) for row in {outer_product}(max, left, right)]", (
            "A tournament grid pairs every player rating in `left` (rows) with every rating in `right` (columns) and writes the higher rating in each cell. Return the grid as lists of rows.",
            "Return the table whose row i, column j holds the larger of left[i] and right[j].",
        ), G(left=L(0, 9, (1, 4), empty=False), right=L(0, 9, (1, 4), empty=False))),
    ]
