"""Second uses of the grouping, augmenting and selecting functions: the same function called with other
arguments or keywords, on another kind of input, or with its result post-processed (summed, counted,
joined), so that a function's single-function test task can come from a template whose body no train
task of that function shares (tasks.generate.plan reserves test variants per function)."""

from __future__ import annotations

from sebench.libraries.more_itertools.families.common import WORDS, G, I, L, S, Str, W, ints

# Words sharing first letters (for tasks about neighbours with equal initials).
INITIALS = ("apple", "amber", "ant", "birch", "bee", "cloud", "cedar", "cat", "delta")


def _words_limit_most(r, i):
    words = [r.choice(WORDS) for _ in range(r.randint(1, 9))]
    return {"words": words, "limit": r.randint(max(map(len, words)), 16), "most": r.randint(1, 3)}


def _sorted_letters(r, i):
    return {"letters": "".join(sorted(r.sample("abcdefghijklmn", r.randint(1, 9))))}


def _padded_words(r, i):
    core = [r.choice(WORDS) for _ in range(r.randint(0 if i else 1, 5))]
    return {"words": [""] * r.randint(0, 3) + core + [""] * r.randint(0, 3)}


def templates() -> list:
    return [
        S("chunked", "group_totals", "values size", "return [sum(c) for c in {chunked}(values, size)]", (
            "A cashier rings up the prices `values` and prints a subtotal after every `size` items (the last subtotal may cover fewer items). Return the subtotals in order.",
            "Cut `values` into consecutive runs of `size` numbers (only the last run may be shorter) and return the sum of each run, as a list.",
        ), G(values=L(0, 20, (0, 12)), size=I(1, 4))),
        S("ichunked", "crate_peaks", "values size", "return [max(c) for c in {ichunked}(values, size)]", (
            "Parcels with weights `values` leave a belt and fill crates of `size` parcels each, in order (the final crate may hold fewer). Working lazily on the stream, return the heaviest weight in each crate.",
            "Split the stream `values` into lazily produced consecutive groups of `size` items (the last may be shorter) and return the largest item of every group, as a list.",
        ), G(values=L(0, 20, (0, 12)), size=I(1, 4))),
        S("batched", "batch_count", "values size", "return len(list({batched}(values, size)))", (
            "A loader sends the rows `values` to a database in batches of at most `size` rows, each batch full except possibly the last. How many batches does it send?",
            "Group `values` into consecutive tuples of `size` items (the final one may be shorter) and return how many tuples there are.",
        ), G(values=L(0, 20, (0, 14)), size=I(1, 5))),
        S("chunked_even", "trip_sizes", "values size", "return [len(c) for c in {chunked_even}(values, size)]", (
            "A shuttle carries at most `size` passengers per trip. The queue `values` is moved in the fewest trips, with trip loads as equal as possible (larger trips first). Return the number of passengers on each trip.",
            "Divide `values` into the fewest consecutive chunks of at most `size` items whose lengths differ by at most one, longer chunks first, and return the chunk lengths as a list.",
        ), G(values=L(0, 20, (0, 14)), size=I(1, 4))),
        S("sliced", "dashed_groups", "text size", "return '-'.join({sliced}(text, size))", (
            "A licence key `text` is printed in blocks of `size` characters separated by dashes (the last block may be shorter). Return the printed key.",
            "Cut the string `text` into consecutive pieces of `size` characters (the final piece holds the rest) and join the pieces with '-' between them. Return the result.",
        ), G(text=Str((1, 14), "abcdefgh"), size=I(1, 5))),
        S("grouper", "full_teams", "values size", "return [list(t) for t in {grouper}(values, size, incomplete='ignore')]", (
            "Players `values` sign up in order and form teams of exactly `size`; players left over at the end, too few for a team, sit out. Return the teams as lists.",
            "Collect `values` into consecutive groups of exactly `size` items and drop a final group that would be short. Return the groups as lists.",
        ), G(values=L(1, 20, (0, 11)), size=I(2, 4))),
        S("constrained_batches", "capped_lines", "words limit most", "return [list(b) for b in {constrained_batches}(words, limit, max_count=most)]", (
            "A sign holds at most `most` words per line and at most `limit` letters per line (spaces not counted). Place the words `words` in order, starting a new line when the next word would break either rule. Return the lines as lists.",
            "Batch the strings `words` greedily in order so that no batch has more than `most` items or a total length above `limit` (no single word is longer than `limit`). Return the batches as lists.",
        ), _words_limit_most),
        S("distribute", "dealt_totals", "n values", "return [sum(p) for p in {distribute}(n, values)]", (
            "Cards with points `values` are dealt to `n` players one at a time in turn (player 0 first, wrapping around). Return each player's total points, player 0 first.",
            "Send item k of `values` to bucket k mod `n` and return the sum of every bucket, as a list of `n` numbers (an empty bucket sums to 0).",
        ), G(n=I(1, 4), values=L(0, 30, (0, 10)))),
        S("divide", "block_totals", "n values", "return [sum(p) for p in {divide}(n, values)]", (
            "The invoices `values` are split among `n` clerks as consecutive blocks whose sizes differ by at most one, the first clerks taking the larger blocks. Return the total amount each clerk handles.",
            "Cut `values` into `n` contiguous parts of nearly equal length (earlier parts one longer when needed) and return the sum of each part, as a list.",
        ), G(n=I(1, 4), values=L(0, 30, (0, 10)))),
        S("split_at", "keep_markers", "values sep", "return [list(p) for p in {split_at}(values, lambda v: v == sep, keep_separator=True)]", (
            "A track log `values` uses the number `sep` as a lap marker. Split the log at every marker, keeping each marker as a piece of its own between the pieces around it. Return all pieces as lists.",
            "Cut `values` at every item equal to `sep`; the separators stay in the result, each as a one-item list between the neighbouring pieces (which may be empty). Return the list of lists.",
        ), G(values=L(0, 4, (0, 10)), sep=I(0, 2))),
        S("split_before", "sessions", "values start", "return [list(p) for p in {split_before}(values, lambda v: v == start)]", (
            "A device log `values` writes the code `start` whenever a new session begins. Return the sessions as lists, each beginning with its start code (values before the first code form a session of their own).",
            "Cut `values` just before every item equal to `start`, so that each piece after the first begins with such an item. Return the pieces as lists.",
        ), G(values=L(0, 4, (1, 10), empty=False), start=I(0, 2))),
        S("split_after", "segment_sums", "values", "return [sum(p) for p in {split_after}(values, lambda v: v == 0)]", (
            "A meter stream `values` ends each reading period with a 0. Return the total of every period (its closing 0 included), and of the unfinished period after the last 0, if any.",
            "Cut `values` right after every 0 (each 0 ends its piece) and return the sum of each piece as a list.",
        ), G(values=L(0, 4, (1, 12), empty=False))),
        S("split_into", "sizes_then_rest", "values sizes", "return [list(p) for p in {split_into}(values, [*sizes, None])]", (
            "A printer fills trays of sizes `sizes` with the pages `values` in order (a tray gets fewer pages once they run out), then puts every remaining page on one last pile. Return the trays and the pile as lists.",
            "Take consecutive pieces of `values` of the lengths in `sizes` (shorter or empty once the items run out), followed by one piece with everything left. Return all pieces as lists.",
        ), G(values=L(0, 9, (0, 10)), sizes=lambda r, i: [r.randint(0, 3) for _ in range(r.randint(1, 3))])),
        S("split_when", "rising_lengths", "values", "return [len(p) for p in {split_when}(values, lambda a, b: b <= a)]", (
            "A climber records heights `values`. Break them into stretches that strictly rise (a value not above the previous one starts a new stretch) and return the length of each stretch.",
            "Split `values` between every pair of neighbours where the second is not greater than the first, and return the lengths of the pieces as a list.",
        ), G(values=L(0, 9, (1, 12), empty=False))),
        S("windowed", "padded_window_sums", "values size", "return [sum(w) for w in {windowed}(values, size, fillvalue=0)]", (
            "For the daily sales `values`, return the total of each run of `size` consecutive days; when there are fewer days than `size`, return one total of all days.",
            "Slide a window of `size` items over `values` one step at a time (a list shorter than the window gives a single window padded with zeros) and return each window's sum.",
        ), G(values=L(0, 9, (1, 10), empty=False), size=I(1, 4))),
        S("sliding_window", "window_spread", "values size", "return [max(w) - min(w) for w in {sliding_window}(values, size)]", (
            "A stock's prices are `values`. For every run of `size` consecutive days, earliest first, return the gap between the highest and lowest price of the run.",
            "For each window of `size` consecutive items of `values`, return its largest item minus its smallest, as a list (no windows when the list is too short).",
        ), G(values=L(0, 20, (0, 10)), size=I(1, 4))),
        S("pairwise", "count_rises", "values", "return sum(1 for a, b in {pairwise}(values) if b > a)", (
            "A barometer logs readings `values`. On how many occasions was a reading higher than the reading right before it?",
            "Count the neighbouring pairs in `values` whose second item is greater than the first. Return the count.",
        ), G(values=L(0, 9, (0, 12)))),
        S("triplewise", "local_peaks", "values", "return [b for a, b, c in {triplewise}(values) if a < b > c]", (
            "A hiker's altitudes `values` are logged in order. Return every altitude that is strictly higher than both the one before and the one after it, in order.",
            "Return the items of `values` that are greater than both of their neighbours (the first and last items have one neighbour and never count), as a list.",
        ), G(values=L(0, 9, (0, 12)))),
        S("consecutive_groups", "letter_runs", "letters", "return [''.join(g) for g in {consecutive_groups}(letters, ord)]", (
            "A shelf keeps the sorted, distinct volume letters `letters`. Return the runs of letters that follow each other in the alphabet without a gap, each run as a string.",
            "Group the characters of the sorted string `letters` (no repeats) into runs of alphabet neighbours such as 'cde', and return the runs as strings in order.",
        ), _sorted_letters),
        S("partition", "small_and_big", "values limit", "small, big = {partition}(lambda v: v > limit, values)\nreturn [list(small), list(big)]", (
            "A post office separates parcels by weight `values`: those weighing at most `limit` and those above. Return [light parcels, heavy parcels], each in the original order.",
            "Return two lists: the items of `values` that are not above `limit`, then the items that are, each keeping its order.",
        ), G(values=L(0, 9, (0, 10)), limit=I(2, 6))),
        S("map_reduce", "words_by_length", "words", "return [[k, v] for k, v in sorted({map_reduce}(words, len).items())]", (
            "A crossword helper files the words `words` by their number of letters. Return [length, words of that length in order] pairs, shortest length first.",
            "Group `words` by length, keeping each group's words in input order, and return [length, group] pairs sorted by length.",
        ), G(words=W((1, 9)))),
        S("groupby_transform", "parity_run_sums", "values", "return [[k, s] for k, s in {groupby_transform}(values, lambda v: v % 2 == 0, None, sum)]", (
            "A dice log `values` is read in stretches of neighbouring throws that are all even or all odd. For each stretch return [whether it is even, the sum of its throws].",
            "Split `values` into maximal runs of consecutive items with the same evenness and return, per run, [True if the run is even, sum of the run].",
        ), G(values=L(1, 6, (0, 12)))),
        S("subslices", "target_stretches", "values target", "return sum(1 for s in {subslices}(values) if sum(s) == target)", (
            "A budget lists monthly costs `values`. How many unbroken stretches of one or more months cost exactly `target` in total?",
            "Count the non-empty contiguous sublists of `values` whose sum equals `target`.",
        ), G(values=L(0, 5, (0, 8)), target=I(1, 8))),
        S("substrings", "distinct_fragments", "text", "return len({''.join(s) for s in {substrings}(text)})", (
            "A lab lists all contiguous fragments of the sequence `text`. How many different fragments are there (equal fragments at several places count once)?",
            "Return the number of distinct non-empty contiguous substrings of the string `text`.",
        ), G(text=Str((1, 8), "abc"))),
        S("windowed_complete", "outside_totals", "values size", "return [sum(a) + sum(c) for a, _, c in {windowed_complete}(values, size)]", (
            "For the scores `values`, consider every block of `size` consecutive scores, from the front. Return, for each block, the total of the scores outside the block.",
            "For each window of `size` consecutive items of `values`, return the sum of all items before and after the window, as a list.",
        ), lambda r, i: (lambda v: {"values": v, "size": r.randint(0, len(v))})(ints(r, i, 0, 9, (1, 8), empty=False))),
        S("stagger", "next_with_fill", "values fill", "return [list(t) for t in {stagger}(values, offsets=(0, 1), longest=True, fillvalue=fill)]", (
            "A playlist `values` shows every song with the one after it; the last song is paired with `fill`. Return the [song, next] pairs.",
            "Pair every item of `values` with its successor, the final item with `fill`, and return the pairs as lists.",
        ), G(values=L(0, 9, (0, 8)), fill=I(-1, 0))),
        S("intersperse", "spaced_letters", "text sep", "return ''.join({intersperse}(sep, text))", (
            "A banner spells the word `text` with the character `sep` between every two letters. Return the banner string.",
            "Put the character `sep` between each pair of neighbouring characters of `text` and return the resulting string.",
        ), G(text=Str((0, 8), "abcdef"), sep=lambda r, i: r.choice("-.*"))),
        S("padded", "round_up_length", "values fill size", "return list({padded}(values, fill, size, next_multiple=True))", (
            "A tray holds `size` cups per row. Append the placeholder `fill` to the cups `values` until the number of cups is a multiple of `size`. Return the padded list.",
            "Pad `values` at the end with `fill` so that its length becomes the next multiple of `size` (a length already a multiple stays). Return the list.",
        ), G(values=L(0, 9, (0, 9)), fill=I(-1, 0), size=I(2, 4))),
        S("repeat_each", "stretched_word", "text times", "return ''.join({repeat_each}(text, times))", (
            "A singer holds every letter of the word `text` for `times` beats. Return the sung word with each letter written `times` times in a row.",
            "Return the string made of every character of `text` repeated `times` times in place.",
        ), G(text=Str((0, 6), "abcdef"), times=I(1, 3))),
        S("ncycles", "looped_text", "text times", "return ''.join({ncycles}(text, times))", (
            "A ticker shows the message `text` `times` times in a row. Return everything it shows as one string.",
            "Return the characters of `text` cycled through `times` times, joined into one string.",
        ), G(text=Str((1, 6), "abcdef"), times=I(1, 3))),
        S("strip", "trim_blanks", "words", "return list({strip}(words, lambda w: w == ''))", (
            "A form's fields `words` may begin and end with blank entries (empty strings). Remove those at both ends, keeping blanks in the middle, and return the fields.",
            "Drop the empty strings at the start and the end of `words` (not the inner ones) and return the list.",
        ), _padded_words),
        S("lstrip", "skip_small_start", "values limit", "return list({lstrip}(values, lambda v: v < limit))", (
            "A warm-up sensor reports `values`; readings below `limit` at the very start are noise. Return the readings from the first one that is at least `limit` onwards.",
            "Remove the leading items of `values` that are less than `limit` and return what remains.",
        ), G(values=L(0, 9, (0, 10)), limit=I(2, 6))),
        S("rstrip", "drop_end_marks", "text", "return ''.join({rstrip}(text, lambda c: c in '.!'))", (
            "A headline `text` may end with a run of '.' and '!' marks. Remove that run and return the headline.",
            "Return the string `text` without its trailing '.' and '!' characters.",
        ), G(text=lambda r, i: "".join(r.choice("ab.!") for _ in range(r.randint(0 if i else 1, 9))))),
        S("take", "head_total", "values count", "return sum({take}(count, values))", (
            "A judge scores only the first `count` attempts of the list `values` (all of them if there are fewer). Return the total of the scored attempts.",
            "Return the sum of the first `count` items of `values` (of all items when the list is shorter).",
        ), G(values=L(0, 9, (0, 10)), count=I(0, 5))),
        S("tail", "end_of_text", "text count", "return ''.join({tail}(count, text))", (
            "A phone shows only the last `count` characters of a long number `text`. Return what it shows.",
            "Return the final `count` characters of the string `text` (the whole string when it is shorter).",
        ), G(text=Str((0, 10), "0123456789"), count=I(1, 5))),
        S("unique_everseen", "one_per_length", "words", "return list({unique_everseen}(words, key=len))", (
            "A poet keeps from the list `words` the first word of every length, dropping later words of a length already kept. Return the kept words in order.",
            "Return the items of `words`, in order, skipping every word whose length equals that of an earlier kept word.",
        ), G(words=W((1, 9)))),
        S("unique_justseen", "new_initials", "words", "return list({unique_justseen}(words, key=lambda w: w[0]))", (
            "A radio reads out the titles `words` but skips a title when it starts with the same letter as the title just before it. Return the titles read out.",
            "Remove every item of `words` whose first letter equals the first letter of the item right before it, keeping the first of each such run. Return the list.",
        ), G(words=W((1, 9), pool=INITIALS))),
        S("unique", "ascending_distinct", "values", "return list({unique}(values))", (
            "A librarian collects the shelf numbers `values` and returns each number once, smallest first.",
            "Return the distinct items of `values` in increasing order.",
        ), G(values=L(0, 9, (0, 12)))),
        S("locate", "repeat_positions", "values", "return list({locate}(values, lambda a, b: a == b, window_size=2))", (
            "A heart monitor logs `values`. Return the positions at which a reading equals the reading right after it (each pair is reported at its first position).",
            "Return the indices i of `values` with values[i] equal to values[i + 1], in increasing order.",
        ), G(values=L(0, 2, (2, 10)))),
        S("rlocate", "last_big_index", "values limit", "return next({rlocate}(values, lambda v: v > limit), -1)", (
            "A sprinter's times are `values`. Return the position of the last time above `limit`, or -1 if there is none.",
            "Return the largest index of an item of `values` greater than `limit`, or -1 when no item is.",
        ), G(values=L(0, 9, (0, 10)), limit=I(3, 7))),
        S("replace", "replace_first", "values old new", "return list({replace}(values, lambda v: v == old, [new], count=1))", (
            "A typist retypes the codes `values`, correcting only the first occurrence of the wrong code `old` to `new`. Return the retyped codes.",
            "Replace the first item of `values` equal to `old` by `new` (later equal items stay) and return the list.",
        ), G(values=L(0, 4, (0, 10)), old=I(0, 2), new=I(7, 9))),
        S("takewhile_inclusive", "total_through_stop", "values stop", "return sum({takewhile_inclusive}(lambda v: v != stop, values))", (
            "A cashier adds the prices `values` in order until he meets the price `stop`, which he still adds before closing. Return the total (all prices when `stop` never comes).",
            "Sum the items of `values` up to and including the first one equal to `stop` (all of them if none is). Return the sum.",
        ), G(values=L(0, 6, (0, 10)), stop=I(0, 3))),
        S("before_and_after", "leading_digits", "text", "a, b = {before_and_after}(str.isdigit, text)\nreturn [''.join(a), ''.join(b)]", (
            "A parcel label `text` starts with a number followed by a code. Return [the leading digits, the rest of the label] as two strings (either may be empty).",
            "Split the string `text` into its longest prefix of digits and the remainder; return both as strings in a list.",
        ), G(text=lambda r, i: "".join(r.choice("12ab") for _ in range(r.randint(0 if i else 1, 8))))),
        S("map_if", "double_or_zero", "values", "return list({map_if}(values, lambda v: v >= 0, lambda v: 2 * v, lambda v: 0))", (
            "A ledger `values` doubles every credit (amounts of 0 or more) and books every debt (negative amount) as 0. Return the new ledger.",
            "Return `values` with each non-negative item doubled and each negative item replaced by 0.",
        ), G(values=L(-9, 9, (0, 10)))),
        S("iter_index", "letter_positions", "text letter", "return list({iter_index}(text, letter))", (
            "A proofreader marks where the letter `letter` appears in the word `text`. Return the positions, from left to right.",
            "Return every index at which the character `letter` occurs in the string `text`, in increasing order.",
        ), G(text=Str((0, 10), "abc"), letter=lambda r, i: r.choice("ab"))),
    ]
