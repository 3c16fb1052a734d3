"""Second uses of the combinatorics-index, transform and iterator-helper functions (see second_uses: the
same function with other arguments, inputs or post-processing, so that test and train bodies can differ)."""

from __future__ import annotations

import math

from sebench.libraries.more_itertools.families.common import WORDS, G, I, L, S, Str, ints
from sebench.libraries.more_itertools.families.second_uses import INITIALS


def _labels_values(r, i):
    names = r.sample(WORDS[:20], r.randint(1, 6))
    return {"names": names, "values": ints(r, i, 0, 30, (0, 6)), "default": r.randint(-1, 0)}


def _distinct_strings(r, i):
    return {"options": ["".join(r.sample("abcdef", r.randint(2, 3))) for _ in range(r.randint(1, 3))]}


def _product_choice(r, i):
    options = _distinct_strings(r, i)["options"]
    return {"code": "".join(r.choice(o) for o in options), "options": options}


def _pool_size_index(repeats: bool):
    """A string of distinct letters, a choice size and a valid index among its combinations (with
    replacement when `repeats`)."""
    def gen(r, i):
        text = "".join(r.sample("abcdefg", r.randint(1, 5)))
        size = r.randint(1, len(text))
        total = math.comb(len(text) + size - 1, size) if repeats else math.comb(len(text), size)
        return {"text": text, "size": size, "index": r.randint(0, total - 1)}
    return gen


def _multiset_choice(r, i):
    pool = "".join(sorted(r.sample("abcdef", r.randint(1, 5))))
    return {"code": "".join(sorted(r.choice(pool) for _ in range(r.randint(1, 4)))), "pool": pool}


def _stock_texts(r, i):
    pool = ("4", "12", "7", "30", "x", "n/a", "9")
    return {"texts": [r.choice(pool) for _ in range(r.randint(1 if i else 0, 7))]}


def _orders(r, i):
    return {"orders": [[r.randint(1, 20), r.randint(0, 5)] for _ in range(r.randint(1 if i else 0, 5))]}


def _two_tables(r, i):
    products = r.sample(WORDS[:12], r.randint(0 if i == 0 else 1, 5))
    others = r.sample(WORDS[:12], r.randint(1, 5))
    return {"products": products, "prices": [r.randint(1, 9) for _ in products],
            "others": others, "stock": [r.randint(0, 9) for _ in others]}


def templates() -> list:
    return [
        S("repeat_last", "label_with_last", "names values default", "return [[n, v] for n, v in zip(names, {repeat_last}(values, default))]", (
            "Runners `names` receive the bib numbers `values` in order; once the numbers run out, every further runner gets the last number handed out (or `default` if there were none). Return [runner, number] pairs.",
            "Pair each item of `names` with the item of `values` at the same position, using the last item of `values` (or `default` for an empty `values`) past its end. Return the pairs as lists.",
        ), _labels_values),
        S("pad_none", "label_or_none", "names values", "return [[n, v] for n, v in zip(names, {pad_none}(values))]", (
            "Students `names` hand in the marks `values` in order; students after the last mark get None. Return [student, mark] pairs, one per student.",
            "Pair each item of `names` with the item of `values` at the same position, or None past the end of `values`. Return the pairs as lists.",
        ), lambda r, i: {k: v for k, v in _labels_values(r, i).items() if k != "default"}),
        S("iter_suppress", "read_until_text", "texts", "return list({iter_suppress}((int(s) for s in texts), ValueError))", (
            "A stock counter reads the entries `texts` as whole numbers in order and stops at the first entry that is not a number. Return the numbers read.",
            "Convert the strings of `texts` to integers in order until one fails with ValueError; return the integers converted before that.",
        ), _stock_texts),
        S("difference", "steps_only", "values", "return list({difference}(values, initial=0))", (
            "A meter logs the readings `values`. Return how much each reading changed from the one before it (no entry for the first reading).",
            "Return values[k] - values[k - 1] for every k from 1 to the end of `values`.",
        ), G(values=L(0, 30, (0, 8)))),
        S("product_index", "menu_number", "code options", "return {product_index}(code, *options)", (
            "A diner numbers every menu that picks one letter from each string of `options`, in order, the last course varying fastest, from 0. Return the number of the menu spelled by `code`.",
            "Return the position of the tuple of characters of `code` in the Cartesian product of the strings `options`, in the order the product is generated.",
        ), _product_choice),
        S("combination_with_replacement_index", "scoop_rank", "code pool", "return {combination_with_replacement_index}(code, pool)", (
            "An ice-cream bar lists every cup of scoops chosen from the flavours `pool` (repeats allowed, cup size that of `code`) in the order itertools gives for combinations with replacement. Return the position of the cup `code` from 0.",
            "Return the index of the sorted string `code` among the combinations with replacement of the characters of `pool` of its length.",
        ), _multiset_choice),
        S("nth_combination", "draw_string", "text size index", "return ''.join({nth_combination}(text, size, index))", (
            "A lottery lists every choice of `size` letters of `text`, keeping the letters' order from `text`, in the order itertools combinations gives. Return choice number `index` (from 0) as a string.",
            "Return, as a string, the combination of `size` characters of `text` at position `index` in lexicographic order of positions.",
        ), _pool_size_index(False)),
        S("nth_combination_with_replacement", "cup_string", "text size index", "return ''.join({nth_combination_with_replacement}(text, size, index))", (
            "A café lists every cup of `size` scoops chosen from the flavours `text` (repeats allowed) in the order itertools gives. Return cup number `index` (from 0) as a string of flavour letters.",
            "Return, as a string, the combination with replacement of `size` characters of `text` at position `index` in the order itertools produces them.",
        ), _pool_size_index(True)),
        S("gray_product", "one_letter_changes", "options", "return [''.join(t) for t in {gray_product}(*options)]", (
            "A display shows every code that takes one letter from each string of `options`, so that consecutive codes differ in one letter only (a reflected Gray code order). Return the codes as strings.",
            "Return the Cartesian product of the strings `options` in the Gray-code order in which neighbours differ in exactly one position, each element joined into a string.",
        ), _distinct_strings),
        S("polynomial_from_roots", "coefficient_sum", "roots", "return sum({polynomial_from_roots}(roots))", (
            "A polynomial with leading coefficient 1 has the roots `roots`. Return the sum of its coefficients.",
            "Expand the product of (x - r) over r in `roots` and return the sum of its coefficients (its value at x = 1).",
        ), G(roots=L(-4, 4, (0, 5)))),
        S("dft", "real_parts", "samples", "return [round(c.real, 6) for c in {dft}(samples)]", (
            "An audio tool takes the discrete Fourier transform of the samples `samples`. Return the real part of every coefficient, rounded to 6 decimals.",
            "Compute the discrete Fourier transform of `samples` and return the real parts of its values rounded to 6 places.",
        ), G(samples=L(-3, 3, (1, 6), empty=False))),
        S("idft", "magnitudes_back", "parts", "return [round(abs(c), 6) for c in {idft}(parts)]", (
            "A decoder applies the inverse discrete Fourier transform to the coefficients `parts`. Return the size (absolute value) of every resulting sample, rounded to 6 decimals.",
            "Compute the inverse DFT of `parts` and return the absolute values of its outputs rounded to 6 places.",
        ), G(parts=L(-4, 4, (1, 6), empty=False))),
        S("always_reversible", "backwards_text", "text", "return ''.join({always_reversible}(text))", (
            "A sign painter writes the word `text` right to left. Return what appears.",
            "Return the string `text` reversed.",
        ), G(text=Str((0, 9), "abcdefg"))),
        S("doublestarmap", "order_total", "orders", "rows = [dict(price=p, qty=q) for p, q in orders]\nreturn sum({doublestarmap}(lambda price, qty: price * qty, rows))", (
            "A shop's orders are [unit price, quantity] pairs `orders`. Put each into a record with the fields price and qty, and return the total value of all orders.",
            "Build a dict with keys price and qty from each pair of `orders`, apply price times qty to each dict's fields passed by name, and return the sum.",
        ), _orders),
        S("iter_except", "largest_first", "values", "items = sorted(values)\nreturn list({iter_except}(items.pop, IndexError))", (
            "A pile of parcels `values` is sorted by weight with the heaviest on top; parcels are taken off the top until the pile is empty. Return the weights in the order taken.",
            "Sort `values` ascending, then keep removing its last item until removing fails because the list is empty, and return the removed items in order.",
        ), G(values=L(0, 20, (0, 8)))),
        S("spy", "same_initial_as_head", "words", "head, rest = {spy}(words)\nreturn [w for w in rest if head and w[0] == head[0][0]]", (
            "A teacher peeks at the first name of the register `words` and then reads the whole register (the first name included), picking the names that begin with the same letter as that first name. Return them (nothing for an empty register).",
            "Return every item of `words`, the first included, whose first letter equals the first letter of the first item (an empty list for no items).",
        ), G(words=lambda r, i: [] if i == 0 else [r.choice(INITIALS) for _ in range(r.randint(1, 8))])),
        S("unique_in_window", "fresh_lengths", "words size", "return list({unique_in_window}(words, size, key=len))", (
            "A poem generator drops a word `words` when a word of the same length occurs among the `size` - 1 words right before it in the input (dropped or not). Return the words kept, in order.",
            "Return the items of `words` whose length differs from the lengths of each of the `size` - 1 input items directly before them.",
        ), lambda r, i: {"words": [] if i == 0 else [r.choice(WORDS) for _ in range(r.randint(1, 9))], "size": r.randint(2, 4)}),
        S("one", "the_repeated_value", "values", "return {one}(set(values))", (
            "A vending machine's log `values` holds one or more entries that are all the same coin. Return that coin.",
            "All items of the non-empty list `values` are equal; return that value.",
        ), lambda r, i: (lambda v: {"values": [v] * r.randint(1, 6)})(r.randint(0, 99))),
        S("join_mappings", "count_products", "products prices others stock", "table = {join_mappings}(price=dict(zip(products, prices)), stock=dict(zip(others, stock)))\nreturn len(table)", (
            "A price list pairs `products` with `prices`, and a stock list pairs `others` with `stock`. Joining the two lists by product, how many different products appear in at least one of them?",
            "Build a dict from `products` to `prices` and one from `others` to `stock`, merge them into one table keyed by product, and return the table's number of keys.",
        ), _two_tables),
        S("polynomial_derivative", "slope_at_one", "coefficients", "return sum({polynomial_derivative}(coefficients))", (
            "A curve is the polynomial with coefficients `coefficients`, highest power first. Return its slope (the value of its derivative) at x = 1.",
            "Differentiate the polynomial whose coefficients, highest degree first, are `coefficients`, and return the sum of the derivative's coefficients.",
        ), G(coefficients=L(-5, 5, (1, 6), empty=False))),
        S("interleave_evenly", "even_letter_mix", "left right", "return ''.join({interleave_evenly}([left, right]))", (
            "A typesetter mixes the letters of `left` with the letters of `right`, each word keeping its own letter order, so that the letters of each word are spread as evenly as possible over the result. Return the mixed string.",
            "Merge the characters of the strings `left` and `right`, each in order, distributing both evenly over the merged sequence, and return it as a string.",
        ), G(left=Str((1, 7), "abc"), right=Str((1, 4), "xyz"))),
        S("strictly_n", "first_n_of_enough", "values n", "return list({strictly_n}(values, n, too_long=lambda got: None))", (
            "A ballot `values` has at least `n` marks; a counter that insists on exactly `n` marks is told to ignore any extra ones. Return the marks it counts.",
            "Pass `values` (at least `n` items long) through an exact-length check whose too-long handler does nothing, and return the first `n` items it yields.",
        ), lambda r, i: (lambda v: {"values": v, "n": r.randint(0, len(v))})(ints(r, i, 0, 20, (0, 8)))),
        S("repeatfunc", "repeated_division", "a b times", "return [list(x) for x in {repeatfunc}(divmod, times, a, b)]", (
            "A teacher asks `times` pupils in turn to divide `a` by `b`, each giving [quotient, remainder]. Return their answers.",
            "Call divmod(`a`, `b`) `times` times and return the results as a list of [quotient, remainder] lists.",
        ), G(a=I(0, 99), b=I(1, 9), times=I(0, 4))),
        S("loops", "lap_number_sum", "n", "return sum(k for k, _ in enumerate({loops}(n)))", (
            "A runner does `n` laps, numbered from 0. Running a plain loop of `n` repetitions and numbering them, return the sum of all lap numbers.",
            "Enumerate a loop of `n` repetitions (an iterator yielding None `n` times) from 0 and return the sum of the indices.",
        ), G(n=I(0, 500))),
    ]
