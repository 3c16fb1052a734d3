"""Grouping and windowing: fixed-size pieces, splits at markers, sliding windows, partitions."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import WORDS, G, I, L, S, Str, W, ints


def _words_limit(r, i):
    words = [r.choice(WORDS) for _ in range(r.randint(1, 9))]
    return {"words": words, "limit": r.randint(max(map(len, words)), 14)}


def _sorted_distinct(r, i):
    return {"values": sorted(r.sample(range(0, 25), r.randint(1, 10)))}


def _sized(lo=1, hi=9):
    def gen(r, i):
        values = ints(r, i, 0, 20, (lo, hi), empty=False)
        return {"values": values, "size": r.randint(1, len(values))}
    return gen


def _split_sizes(r, i):
    return {"values": ints(r, i, 0, 9, (0, 10)), "sizes": [r.randint(0, 4) for _ in range(r.randint(1, 4))]}


def _tokens(r, i):
    pool = ("red", "two", "three", "four", ".", "!", "?")
    return {"tokens": [r.choice(pool) for _ in range(r.randint(0 if i else 1, 10))]}


def _caps(r, i):
    pool = ("Alpha", "beta", "gamma", "Delta", "eps", "Zeta", "eta", "Theta", "iota")
    return {"words": [r.choice(pool) for _ in range(r.randint(0 if i else 1, 9))]}


def templates() -> list:
    chunk = G(values=L(0, 20, (0, 12)), size=I(1, 4))
    return [
        S("chunked", "booklets", "values size", "return [list(c) for c in {chunked}(values, size)]", (
            "A print shop binds the page numbers `values` into booklets of `size` consecutive pages; the last booklet may be thinner. Return the booklets as a list of lists, in order.",
            "Break the list `values` into consecutive pieces of `size` items each (only the final piece may be shorter). Return the pieces as lists inside a list.",
        ), chunk),
        S("ichunked", "crates", "values size", "return [list(c) for c in {ichunked}(values, size)]", (
            "A conveyor belt delivers the parcel ids `values`, and every `size` parcels fill one crate (a final crate may be partly filled). Return the crates in order, each as a list of ids, using lazily produced sub-iterators for the crates.",
            "Group the stream `values` into sub-iterables of length `size` (the last may have fewer items) without first copying the stream into a list, then return all groups as lists.",
        ), chunk),
        S("batched", "batches", "values size", "return [list(b) for b in {batched}(values, size)]", (
            "A database loader inserts the rows numbered `values` in batches of `size` rows (the last batch may be smaller). Return the batches, each a list, in order.",
            "Return the list `values` cut into tuples of `size` consecutive items, the last one possibly shorter, each converted to a list.",
        ), chunk),
        S("chunked_even", "even_loads", "values size", "return [list(c) for c in {chunked_even}(values, size)]", (
            "A ferry carries at most `size` cars per trip. Split the queue `values` (in order) into the fewest trips, with trip sizes as equal as possible (they differ by at most one, the bigger trips first). Return the trips as lists.",
            "Divide `values` into consecutive chunks holding at most `size` items each, using as few chunks as possible while keeping their lengths within one of each other (longer chunks come first). Return the chunks as lists.",
        ), chunk),
        S("sliced", "cut_text", "text size", "return list({sliced}(text, size))", (
            "A pager shows `size` characters of the message `text` at a time. Return the successive screens as a list of strings (the last one may be shorter).",
            "Cut the string `text` into consecutive slices of length `size`, the final slice taking whatever is left. Return the list of slices.",
        ), G(text=Str((1, 14), "abcdefgh"), size=I(1, 5))),
        S("grouper", "teams", "values size fill", "return [list(t) for t in {grouper}(values, size, fillvalue=fill)]", (
            "Players with ids `values` form teams of exactly `size` in the order they signed up; if the last team is short, it is filled up with the placeholder id `fill`. Return the teams as lists.",
            "Collect `values` into fixed-length groups of `size` items; pad the last group with `fill` so that every group has exactly `size` items. Return the groups as lists.",
        ), G(values=L(1, 20, (0, 11)), size=I(2, 4), fill=I(-1, 0))),
        S("constrained_batches", "pack_lines", "words limit", "return [list(b) for b in {constrained_batches}(words, limit)]", (
            "A label printer packs the words `words`, in order, onto lines: a line takes words while the total number of letters on it (spaces not counted) stays at most `limit`, then a new line starts. Return the lines as lists of words.",
            "Greedily batch the strings `words` so that the summed length of each batch never exceeds `limit` (no word is longer than `limit`); a batch closes as soon as the next word would not fit. Return the batches as lists.",
        ), _words_limit),
        S("distribute", "deal", "n values", "return [list(p) for p in {distribute}(n, values)]", (
            "A card dealer hands out the cards `values` to `n` players one at a time in turn (player 0 gets the first card, player 1 the second, and so on, wrapping around). Return each player's cards as a list, player 0 first.",
            "Spread `values` over `n` groups round-robin: item k goes to group k mod `n`, keeping the order within each group. Return the `n` groups as lists (some may be empty).",
        ), G(n=I(1, 4), values=L(0, 30, (0, 10)))),
        S("divide", "shares", "n values", "return [list(p) for p in {divide}(n, values)]", (
            "Split the ordered tasks `values` among `n` workers as consecutive blocks whose sizes differ by at most one, earlier workers taking the extra items. Return the `n` blocks as lists (a block may be empty).",
            "A teacher divides the ordered list of pupils `values` into `n` contiguous groups of nearly equal size (the first groups are the larger ones when it does not divide evenly). Return the groups as lists.",
        ), G(n=I(1, 4), values=L(0, 30, (0, 10)))),
        S("split_at", "split_on", "values sep", "return [list(p) for p in {split_at}(values, lambda v: v == sep)]", (
            "A sensor stream `values` uses the number `sep` as a separator between recordings. Split it at every separator (dropping the separators) and return the recordings as lists; neighbouring separators give empty recordings.",
            "Cut the list `values` wherever an item equals `sep`, removing those items. Return the pieces between them as lists (including empty pieces at the ends or between adjacent separators).",
        ), G(values=L(0, 4, (0, 10)), sep=I(0, 2))),
        S("split_before", "sections", "words", "return [list(p) for p in {split_before}(words, lambda w: w[0].isupper())]", (
            "In the word list `words`, every capitalised word starts a new section. Return the sections as lists of words (words before the first capitalised word form a section of their own).",
            "Split `words` into pieces so that each piece starts just before a word whose first letter is uppercase. Return the list of pieces.",
        ), _caps),
        S("split_after", "sentences", "tokens", "return [list(p) for p in {split_after}(tokens, lambda t: t in ('.', '!', '?'))]", (
            "A tokenizer produced `tokens`; a sentence ends right after each '.', '!' or '?' token, which belongs to the sentence it ends. Return the sentences as lists of tokens (trailing tokens without an end mark form a last sentence).",
            "Split `tokens` after every punctuation token '.', '!' or '?', keeping the punctuation at the end of its piece. Return the pieces as lists.",
        ), _tokens),
        S("split_into", "by_sizes", "values sizes", "return [list(p) for p in {split_into}(values, sizes)]", (
            "A mail room fills envelopes with the letters `values` in order: envelope k takes the next sizes[k] letters (fewer, or none, when the letters run out; leftover letters are ignored). Return the envelopes as lists.",
            "Cut consecutive pieces from `values` whose lengths are given, in order, by `sizes`; stop after the last size, and let pieces be shorter when the input is exhausted. Return the list of pieces.",
        ), _split_sizes),
        S("split_when", "rising_runs", "values", "return [list(p) for p in {split_when}(values, lambda a, b: b < a)]", (
            "A stock ticker `values` is cut into rising stretches: a new stretch starts wherever a value is smaller than the one before it. Return the stretches as lists.",
            "Split `values` between every pair of neighbours x, y with y < x, so that each piece never decreases. Return the pieces as lists.",
        ), G(values=L(0, 9, (0, 10)))),
        S("windowed", "stepped_windows", "values size step", "return [list(w) for w in {windowed}(values, size, step=step)]", (
            "A spectrogram takes frames of `size` consecutive samples from `values`, starting a new frame every `step` samples; a last frame that runs past the end is padded with None. Return the frames as lists.",
            "Slide a window of width `size` over `values`, advancing `step` positions each time, and return the windows as lists; when the final window would stick out past the end, fill its missing places with None.",
        ), lambda r, i: {**_sized(2, 9)(r, i), "step": r.randint(1, 3)}),
        S("sliding_window", "moving_sums", "values size", "return [sum(w) for w in {sliding_window}(values, size)]", (
            "A fitness tracker wants the step totals of every run of `size` consecutive days in `values`. Return the list of these moving sums (empty if there are fewer than `size` days).",
            "For every window of `size` adjacent items of `values`, from left to right, compute the window's sum. Return the list of sums.",
        ), G(values=L(0, 20, (1, 10), empty=False), size=I(1, 4))),
        S("pairwise", "steps_between", "values", "return [b - a for a, b in {pairwise}(values)]", (
            "A hiker records the altitudes `values` of successive checkpoints. Return the climb between each checkpoint and the next (later minus earlier), as a list.",
            "Form the overlapping pairs of successive items of `values` and return, for each pair (a, b), the difference b - a.",
        ), G(values=L(-20, 20, (0, 10)))),
        S("triplewise", "triples", "values", "return [list(t) for t in {triplewise}(values)]", (
            "For the readings `values`, return every run of three consecutive readings as a list, from left to right (none if there are fewer than three readings).",
            "A poet studies every group of three neighbouring syllable counts in `values`: return the overlapping triples, each as a list, in order.",
        ), G(values=L(0, 9, (0, 8)))),
        S("consecutive_groups", "runs_of_ids", "values", "return [list(g) for g in {consecutive_groups}(values)]", (
            "A cinema lists the free seat numbers `values` in increasing order. Group them into blocks of consecutive numbers (such as 4, 5, 6) and return the blocks as lists.",
            "Given ascending distinct integers `values`, return the maximal runs of numbers that each follow the previous one by exactly 1, as lists.",
        ), _sorted_distinct),
        S("partition", "odd_even", "values", "a, b = {partition}(lambda v: v % 2 == 0, values)\nreturn [list(a), list(b)]", (
            "Sort the ticket numbers `values` into two lists, keeping their order: first the odd numbers, then the even numbers. Return [odds, evens].",
            "Split `values` by the test 'is even': return a list of two lists, the items failing the test first and the items passing it second, each in the original order.",
        ), G(values=L(0, 30, (0, 10)))),
        S("map_reduce", "by_initial", "words", "return [[k, v] for k, v in sorted({map_reduce}(words, lambda w: w[0], len, sum).items())]", (
            "A word game sums the lengths of the words `words` per initial letter. Return a list of [letter, total length of the words starting with it] pairs, letters in alphabetical order.",
            "Group `words` by their first character, map every word to its length and add up the lengths within each group. Return [first character, summed length] pairs sorted by character.",
        ), G(words=W((0, 10)))),
        S("groupby_transform", "length_runs", "words", "return [[k, list(g)] for k, g in {groupby_transform}(words, len, str.upper)]", (
            "Group the consecutive words of `words` that have the same length; for each run return [length, words of the run in upper case]. Return the list of runs in order.",
            "Walk through `words` and collect maximal runs of adjacent words sharing one length. Each run becomes [the length, list of its words upper-cased]. Return the runs.",
        ), G(words=W((0, 9), pool=("ant", "bee", "cat", "owl", "lemon", "tiger", "piano", "ibis", "jay")))),
        S("subslices", "all_runs", "values", "return [list(s) for s in {subslices}(values)]", (
            "List every contiguous, non-empty stretch of the playlist `values`: ordered by start position, and for each start by increasing length. Return them as lists.",
            "Return all non-empty contiguous sub-lists of `values`, starting with those beginning at index 0 (shortest first), then those beginning at index 1, and so on.",
        ), G(values=L(0, 9, (0, 5)))),
        S("substrings", "pieces_by_length", "text", "return [''.join(s) for s in {substrings}(text)]", (
            "A crossword helper lists all contiguous pieces of the word `text`: first all pieces of length 1 left to right, then length 2, and so on up to the whole word. Return them as strings (repeats included).",
            "Return every non-empty substring of `text` ordered by length and then by position, as a list of strings.",
        ), G(text=Str((2, 6), "abcd"))),
        S("windowed_complete", "split_views", "values size", "return [[list(a), list(b), list(c)] for a, b, c in {windowed_complete}(values, size)]", (
            "For every window of `size` consecutive items of `values`, return [items before it, the window, items after it], one triple per window from left to right.",
            "A video editor wants each possible clip of `size` consecutive frames of `values` together with what precedes and follows it: return a list of [before, clip, after], each part a list.",
        ), _sized(1, 6)),
        S("stagger", "neighbours", "values", "return [list(t) for t in {stagger}(values, offsets=(-1, 0, 1))]", (
            "For each position of `values` except the last, return [previous item, item, next item], using None as the previous item of the first position. Return the list of triples.",
            "A smoothing filter needs (left neighbour, value, right neighbour) for the readings `values`: produce these as lists, with None when there is no left neighbour, stopping when there is no right neighbour.",
        ), G(values=L(0, 9, (2, 8), empty=False))),
    ]
