"""A third and a fourth statement for every single-function template (same signature and reference, other
words), so that the single-function test split can hold up to three tasks a function (tasks.generate.plan)
and train still keeps one variant. The fourth states the computation plainly, without a setting."""

THIRD = {
    "mit.repeat_last.hold_last": "A traffic counter publishes the counts `values` one per minute and, once it has no new count, keeps publishing the last one (or `default` if it never had any). Return the first `length` published values.",
    "mit.pad_none.none_padded": "A form shows the answers `values` and then empty fields (None) as far as needed. Return the first `length` fields of the form.",
    "mit.iter_suppress.until_zero": "A pizza of 60 slices is shared among the group sizes in `values`, one group after another; each share is 60 // size. The first group of size zero ends the sharing without an error. Return the shares computed until then.",
    "mit.unique_in_window.recent_unique": "A music player skips a song id from the play queue `values` if the same id was among the `size` ids directly before it in the queue (skipped ones count too). Return the songs actually played.",
    "mit.difference.undo_running_total": "A step counter `totals` shows the cumulative steps after each hour. Return the steps taken in each hour: the first total, then each total minus the previous one.",
    "mit.one.only_above": "In the auction bids `values`, exactly one bid is above the reserve price `limit`. Return that bid, with a check that fails unless there is exactly one.",
    "mit.interleave_evenly.spread_evenly": "A chef spreads the toppings `left` and `right` over a pizza line so that each kind is distributed as evenly as possible, keeping each kind's own order. Return the combined line.",
    "mit.join_mappings.merge_tables": "A warehouse has the items `products` with prices `prices` and stock counts `stock` at the same positions. Build a price dict and a stock dict, join them per item into a record with the fields 'price' and 'stock', and return [item, price, stock] rows sorted by item.",
    "mit.product_index.menu_index": "A car configurator lists every configuration (one option from each list of `options`) in nested-loop order. Return the 0-based number of the configuration `choice`.",
    "mit.combination_with_replacement_index.multiset_number": "A coin machine numbers every pile of len(choice) coins from the coin kinds `pool` (kinds may repeat, standard order). Return the number of the pile `choice`.",
    "mit.nth_combination.draw_at": "A committee of `size` members is chosen from `pool`; all committees are numbered in standard combination order. Return committee number `index` as a list.",
    "mit.nth_combination_with_replacement.cup_at": "A sweet shop numbers every bag of `size` sweets from the kinds `pool` (kinds may repeat) in standard order. Return bag number `index` as a list.",
    "mit.gray_product.one_step_grid": "A lighting rig tries every pair of a colour from `left` and a brightness from `right`, changing exactly one of the two between consecutive tries (Gray-code order). Return the tried pairs.",
    "mit.polynomial_derivative.slope_poly": "A designer stores a curve as polynomial coefficients `coefficients` (largest power first). Return the coefficients of its derivative in the same order (an empty list for a constant curve).",
    "mit.polynomial_from_roots.expand_roots": "A control engineer wants the polynomial with leading coefficient 1 whose roots are exactly `roots` (repeats allowed). Return its coefficients, largest power first ([1] when there are no roots).",
    "mit.dft.spectrum_magnitudes": "An analyst takes the discrete Fourier transform of the readings `samples` and reports each coefficient's absolute value rounded to 6 decimals. Return the list.",
    "mit.always_reversible.reverse_filtered": "A generator passes on the deliveries of `values` larger than `limit`; return them in reverse order, newest first, by reversing that generator (which has to be stored first).",
    "mit.strictly_n.first_n_checked": "A checker expects exactly `n` items from `values` but is told to tolerate too few or too many (its handlers do nothing); it passes on at most `n` items. Return the items passed on.",
    "mit.doublestarmap.format_records": "An inventory `records` lists [item, quantity] pairs. Make a dict with the keys 'name' and 'qty' for each, pass each dict as keyword arguments to a function building '<qty>x <name>', and return the labels.",
    "mit.iter_except.pop_all": "A deck of cards `stack` (bottom card first) is dealt by repeatedly taking the top card until taking one raises IndexError. Return the dealt cards in order.",
    "mit.spy.peek_then_all": "A reader glances at the first `k` pages of the book `values` and then reads the whole book from the beginning. Return [pages glanced at, all pages].",
    "mit.repeatfunc.repeated_calls": "A calculator repeats the button press `base` to the power `exponent` exactly `times` times. Return the list of displayed results.",
    "mit.loops.count_laps": "A washing machine repeats its rinse step `n` times using a loop over an iterator that yields None each time; count the rinses performed and return the count.",
    "mit.idft.inverse_transform": "A radio receiver gets the real spectrum coefficients `re_parts` and applies the inverse discrete Fourier transform. Return the real part of each resulting sample, rounded to 6 decimals.",
}

# A fourth statement: three single-function test tasks a function where a study asks for them (the quick
# preset's 24 single-function tasks over 8 functions), one variant still left for train.
FOURTH = {
    "mit.repeat_last.hold_last": "Return a list of length `length`: the items of `values` and then its final item repeated (or `default` repeated if `values` is empty).",
    "mit.pad_none.none_padded": "A ticket printer prints the seat numbers `values` and then blank seats (None) indefinitely. Return the first `length` printed seats.",
    "mit.iter_suppress.until_zero": "Return the list of 60 // v for v in `values`, stopping quietly right before the first v that is 0.",
    "mit.unique_in_window.recent_unique": "Return the items of `values` that differ from all of the `size` input items directly preceding them.",
    "mit.difference.undo_running_total": "Return the list whose running (cumulative) sum gives `totals`: totals[0], then totals[k] - totals[k-1].",
    "mit.one.only_above": "Return the unique element of `values` greater than `limit`, raising an error unless exactly one such element exists.",
    "mit.interleave_evenly.spread_evenly": "Return one list merging `left` and `right`, each kept in order, with the elements of both spread evenly over the result.",
    "mit.join_mappings.merge_tables": "Given parallel lists `products`, `prices` and `stock`, build the dicts product -> price and product -> stock, join them into product -> {'price': ..., 'stock': ...}, and return sorted [product, price, stock] rows.",
    "mit.product_index.menu_index": "Return the 0-based index of the tuple `choice` among the elements of the Cartesian product of the lists `options`.",
    "mit.combination_with_replacement_index.multiset_number": "Return the lexicographic index of `choice` among the combinations with replacement of `pool` of length len(choice).",
    "mit.nth_combination.draw_at": "Return the element with index `index` of the `size`-combinations of `pool`, as a list.",
    "mit.nth_combination_with_replacement.cup_at": "Return the element with index `index` of the `size`-combinations with replacement of `pool`, as a list.",
    "mit.gray_product.one_step_grid": "Return the Cartesian product of `left` and `right` in reflected Gray-code order, so that successive pairs differ in one component.",
    "mit.polynomial_derivative.slope_poly": "Return the coefficient list (highest degree first) of p' for the polynomial p with coefficients `coefficients`.",
    "mit.polynomial_from_roots.expand_roots": "Return the coefficients, highest degree first, of the product of (x - r) over all r in `roots`.",
    "mit.dft.spectrum_magnitudes": "Return [round(abs(X_k), 6)] for the discrete Fourier transform X of `samples`.",
    "mit.always_reversible.reverse_filtered": "Return the elements of `values` greater than `limit` in reverse order, reversing an iterator over them.",
    "mit.strictly_n.first_n_checked": "Return at most the first `n` items of `values`, passing them through a strict-length check whose too-short and too-long handlers ignore the problem.",
    "mit.doublestarmap.format_records": "Return str(qty) + 'x ' + name for each [name, qty] pair in `records`, calling the formatter with keyword arguments unpacked from a dict per record.",
    "mit.iter_except.pop_all": "Return the elements of `stack` from last to first, obtained by calling pop() on a copy until it raises IndexError.",
    "mit.spy.peek_then_all": "Return [the first `k` items of `values`, all items of `values`], looking ahead without consuming the iterable.",
    "mit.repeatfunc.repeated_calls": "Return [pow(base, exponent)] * times computed by calling pow that many times.",
    "mit.loops.count_laps": "Return the number of iterations of a loop that runs `n` times over an iterator of None values.",
    "mit.idft.inverse_transform": "Return [round(x.real, 6)] for the inverse discrete Fourier transform x of `re_parts`.",
}
