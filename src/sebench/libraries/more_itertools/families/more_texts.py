"""A third and a fourth statement for the single-function templates of the functions that have no second
template (same signature and reference, other words), so that every function has four statements: the
single-function test split can hold up to three tasks a function (tasks.generate.plan) and train still
keeps one variant. The fourth states the computation plainly, without a setting. (The other functions'
third and fourth statements belong to their second template, in the second_uses modules.)"""

THIRD = {
    "mit.interleave_evenly.spread_evenly": "A chef spreads the toppings `left` and `right` over a pizza line so that each kind is distributed as evenly as possible, keeping each kind's own order. Return the combined line.",
    "mit.strictly_n.first_n_checked": "A checker expects exactly `n` items from `values` but is told to tolerate too few or too many (its handlers do nothing); it passes on at most `n` items. Return the items passed on.",
    "mit.repeatfunc.repeated_calls": "A calculator repeats the button press `base` to the power `exponent` exactly `times` times. Return the list of displayed results.",
    "mit.loops.count_laps": "A washing machine repeats its rinse step `n` times using a loop over an iterator that yields None each time; count the rinses performed and return the count.",
}

# A fourth statement: three single-function test tasks a function where a study asks for them (the quick
# preset's 24 single-function tasks over 8 functions), one variant still left for train.
FOURTH = {
    "mit.interleave_evenly.spread_evenly": "Return one list merging `left` and `right`, each kept in order, with the elements of both spread evenly over the result.",
    "mit.strictly_n.first_n_checked": "Return at most the first `n` items of `values`, passing them through a strict-length check whose too-short and too-long handlers ignore the problem.",
    "mit.repeatfunc.repeated_calls": "Return [pow(base, exponent)] * times computed by calling pow that many times.",
    "mit.loops.count_laps": "Return the number of iterations of a loop that runs `n` times over an iterator of None values.",
}
