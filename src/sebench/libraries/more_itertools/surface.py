"""The public surface of more-itertools 10.8 as a pseudo-novel package, and what must never reach a model.

The surface is 140 functions of `more_itertools` (its public path is the top level; `more.py` and
`recipes.py` are implementation detail), in alphabetical order, each with a task family. Left out:

- classes (AbortThread, SequenceView, UnequalIterablesError, bucket, callback_iter, countable,
  islice_extended, numeric_range, peekable, run_length, seekable, time_limited): their use is methods and
  attributes (`peekable.peek`, `run_length.encode`, slicing), which a renamed function surface does not
  carry; time_limited also needs a clock and callback_iter/AbortThread threads.
- random_combination, random_combination_with_replacement, random_permutation, random_product, sample,
  interleave_randomly: not deterministic.
- consumer, make_decorator: decorators (their values are functions, not data); side_effect, with_iter:
  side effects and I/O (context managers); raise_: raises only.
- consume: its only effect is on its argument, and the judge's data-flow rule reads return values, so a
  natural answer (`consume(it, n); return list(it)`) would count as not using the package.
- zip_equal: deprecated, its DeprecationWarning names the original library; padnone: an alias of pad_none.
"""

from __future__ import annotations

FUNCTIONS = (
    "adjacent", "all_equal", "all_unique", "always_iterable", "always_reversible", "argmax", "argmin", "batched",
    "before_and_after", "chunked", "chunked_even", "circular_shifts", "classify_unique", "collapse",
    "combination_index", "combination_with_replacement_index", "consecutive_groups", "constrained_batches",
    "convolve", "count_cycle", "derangements", "dft", "difference", "distinct_combinations",
    "distinct_permutations", "distribute", "divide", "dotproduct", "doublestarmap", "duplicates_everseen",
    "duplicates_justseen", "exactly_n", "extract", "factor", "filter_except", "filter_map", "first", "first_true",
    "flatten", "gray_product", "groupby_transform", "grouper", "ichunked", "idft", "iequals", "ilen", "interleave",
    "interleave_evenly", "interleave_longest", "intersperse", "is_prime", "is_sorted", "iter_except", "iter_index",
    "iter_suppress", "iterate", "join_mappings", "last", "locate", "longest_common_prefix", "loops", "lstrip",
    "map_except", "map_if", "map_reduce", "mark_ends", "matmul", "minmax", "multinomial", "ncycles", "nth",
    "nth_combination", "nth_combination_with_replacement", "nth_or_last", "nth_permutation", "nth_prime",
    "nth_product", "one", "only", "outer_product", "pad_none", "padded", "pairwise", "partial_product", "partition",
    "partitions", "permutation_index", "polynomial_derivative", "polynomial_eval", "polynomial_from_roots",
    "powerset", "powerset_of_sets", "prepend", "product_index", "quantify", "repeat_each", "repeat_last",
    "repeatfunc", "replace", "reshape", "rlocate", "roundrobin", "rstrip", "running_median", "set_partitions",
    "sieve", "sliced", "sliding_window", "sort_together", "split_after", "split_at", "split_before", "split_into",
    "split_when", "spy", "stagger", "strictly_n", "strip", "subslices", "substrings", "substrings_indexes",
    "sum_of_squares", "tabulate", "tail", "take", "takewhile_inclusive", "totient", "transpose", "triplewise",
    "unique", "unique_everseen", "unique_in_window", "unique_justseen", "unique_to_each", "unzip", "value_chain",
    "windowed", "windowed_complete", "zip_broadcast", "zip_offset",
)

# Words beyond the surface's function names. Common English words among the left-out names (bucket,
# countable, consumer, sample) are not listed: prose may use them; in code they are found as unknown
# names of the package. "more" and "recipes" alone are English words; only their module forms are listed.
LEAK_WORDS = frozenset({
    # the library and its modules
    "more_itertools", "more-itertools", "moreitertools", "more_itertools.more", "more_itertools.recipes",
    "more.py", "recipes.py", "more.pyi", "recipes.pyi",
    # classes (reprs such as <more_itertools.more.peekable object>, errors such as UnequalIterablesError)
    "AbortThread", "SequenceView", "UnequalIterablesError", "callback_iter", "islice_extended", "numeric_range",
    "peekable", "run_length", "seekable", "time_limited",
    # left-out functions whose names are not English words (their generators' reprs carry them)
    "random_combination", "random_combination_with_replacement", "random_permutation", "random_product",
    "interleave_randomly", "make_decorator", "side_effect", "with_iter", "raise_", "padnone", "zip_equal",
    # private helpers and nested functions that appear in reprs (<generator object _zip_equal_generator>),
    # qualified names (set_partitions.<locals>.set_partitions_helper) and tracebacks
    "_batched", "_complex_sumprod", "_factor_pollard", "_flatten_tensor", "_fsumprod", "_full", "_get_by_index",
    "_get_slice", "_get_values", "_ichunk", "_is_scalar", "_islice_helper", "_nth_prime_bounds", "_pairwise",
    "_partial", "_reader", "_running_median_minheap_and_maxheap", "_running_median_minheap_only",
    "_running_median_windowed", "_sample_counted", "_sample_unweighted", "_sample_weighted", "_shift_to_odd",
    "_sliding_window_deque", "_sliding_window_islice", "_strong_probable_prime", "_zip_equal",
    "_zip_equal_generator", "_marker", "_perfect_tests", "_private_randrange",
    "set_partitions_helper", "slice_generator", "materialize_next", "permuted_items", "dl_mul", "dl_split",
    "inner_wrapper", "outer_wrapper", "relative_seek",
})

# Vendored copies of the original that a program under test could import instead of `more_itertools`
# (setuptools and pkg_resources ship one; pip 23-26 does not).
FORBIDDEN_IMPORTS = (
    "setuptools._vendor.more_itertools", "setuptools.extern.more_itertools",
    "pkg_resources._vendor.more_itertools", "pkg_resources.extern.more_itertools",
)
