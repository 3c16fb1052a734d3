"""A third and a fourth statement for every single-function template (same signature and reference, other
words), so that the single-function test split can hold up to three tasks a function (tasks.generate.plan)
and train still keeps one variant. The fourth states the computation plainly, without a setting."""

THIRD = {
    "mit.unique_in_window.recent_unique": "A music player skips a song id from the play queue `values` if the same id was among the `size` ids directly before it in the queue (skipped ones count too). Return the songs actually played.",
    "mit.one.only_above": "In the auction bids `values`, exactly one bid is above the reserve price `limit`. Return that bid, with a check that fails unless there is exactly one.",
    "mit.interleave_evenly.spread_evenly": "A chef spreads the toppings `left` and `right` over a pizza line so that each kind is distributed as evenly as possible, keeping each kind's own order. Return the combined line.",
    "mit.join_mappings.merge_tables": "A warehouse has the items `products` with prices `prices` and stock counts `stock` at the same positions. Build a price dict and a stock dict, join them per item into a record with the fields 'price' and 'stock', and return [item, price, stock] rows sorted by item.",
    "mit.polynomial_derivative.slope_poly": "A designer stores a curve as polynomial coefficients `coefficients` (largest power first). Return the coefficients of its derivative in the same order (an empty list for a constant curve).",
    "mit.strictly_n.first_n_checked": "A checker expects exactly `n` items from `values` but is told to tolerate too few or too many (its handlers do nothing); it passes on at most `n` items. Return the items passed on.",
    "mit.repeatfunc.repeated_calls": "A calculator repeats the button press `base` to the power `exponent` exactly `times` times. Return the list of displayed results.",
    "mit.loops.count_laps": "A washing machine repeats its rinse step `n` times using a loop over an iterator that yields None each time; count the rinses performed and return the count.",
}

# A fourth statement: three single-function test tasks a function where a study asks for them (the quick
# preset's 24 single-function tasks over 8 functions), one variant still left for train.
FOURTH = {
    "mit.unique_in_window.recent_unique": "Return the items of `values` that differ from all of the `size` input items directly preceding them.",
    "mit.one.only_above": "Return the unique element of `values` greater than `limit`, raising an error unless exactly one such element exists.",
    "mit.interleave_evenly.spread_evenly": "Return one list merging `left` and `right`, each kept in order, with the elements of both spread evenly over the result.",
    "mit.join_mappings.merge_tables": "Given parallel lists `products`, `prices` and `stock`, build the dicts product -> price and product -> stock, join them into product -> {'price': ..., 'stock': ...}, and return sorted [product, price, stock] rows.",
    "mit.polynomial_derivative.slope_poly": "Return the coefficient list (highest degree first) of p' for the polynomial p with coefficients `coefficients`.",
    "mit.strictly_n.first_n_checked": "Return at most the first `n` items of `values`, passing them through a strict-length check whose too-short and too-long handlers ignore the problem.",
    "mit.repeatfunc.repeated_calls": "Return [pow(base, exponent)] * times computed by calling pow that many times.",
    "mit.loops.count_laps": "Return the number of iterations of a loop that runs `n` times over an iterator of None values.",
}
