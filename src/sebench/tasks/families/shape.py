"""Shape and layout: reshaping, transposing, flipping, joining, splitting, indexing and masking."""

from __future__ import annotations

from sebench.tasks.families.common import T, g
from sebench.tasks.spec import ArrayArg


def _m(name, lo=-9, hi=9, dec=0, rows=(1, 4), cols=(1, 5)):
    return lambda r, i: {name: g.mat(r, r.randint(*rows), r.randint(*cols), lo, hi, dec)}


def _v(name, lo=-9, hi=9, dec=0, n=(1, 8)):
    return lambda r, i: {name: g.vec(r, r.randint(*n), lo, hi, dec)}


def _cube(r, rows=(1, 3), cols=(1, 3), depth=(1, 3), lo=0, hi=9):
    a, b, c = r.randint(*rows), r.randint(*cols), r.randint(*depth)
    return [g.mat(r, b, c, lo, hi, 0) for _ in range(a)]


def _reshape_gen(r, i):
    rows, cols = r.randint(1, 4), r.randint(1, 4)
    return {"samples": g.vec(r, rows * cols, 0, 99, 0), "rows": rows, "cols": cols}


def _split_gen(r, i):
    parts = r.randint(1, 4)
    return {"readings": g.vec(r, parts * r.randint(1, 3), 0, 50, 0), "parts": parts}


def _indices_gen(r, i):
    values = g.vec(r, r.randint(2, 8), 0, 99, 0)
    return {"values": values, "picks": [r.randrange(len(values)) for _ in range(r.randint(0, 5))]}


def _mask_gen(r, i):
    values = g.arr(r, i, -20, 20, 0, empty=False)
    mask = g.same_shape(r, values, 0, 1, 0)
    return {"values": values, "keep": _to_bool(mask)}


def _to_bool(x):
    return [_to_bool(v) for v in x] if isinstance(x, list) else bool(x)


def _where_gen(r, i):
    a = g.arr(r, i, -20, 20, 1, empty=True)
    return {"scores": a, "cutoff": g.num(r, -5, 5, 0)}


def _insert_gen(r, i):
    v = g.vec(r, r.randint(0 if i == 7 else 1, 7), 0, 99, 0)
    return {"queue": v, "position": r.randint(0, len(v)), "item": r.randint(100, 200)}


def _delete_gen(r, i):
    v = g.vec(r, r.randint(1, 8), 0, 99, 0)
    return {"playlist": v, "position": r.randrange(len(v))}


def _pad_gen(r, i):
    return {"image": g.mat(r, r.randint(1, 3), r.randint(1, 4), 0, 9, 0), "width": r.randint(0, 2)}


def _choose_gen(r, i):
    n = r.randint(1, 6)
    k = r.randint(2, 3)
    return {"choice": [r.randrange(k) for _ in range(n)], "options": [g.vec(r, n, 0, 99, 0) for _ in range(k)]}


def _unravel_gen(r, i):
    rows, cols = r.randint(1, 6), r.randint(1, 6)
    return {"flat_index": r.randrange(rows * cols), "rows": rows, "cols": cols}


def _bool_grid(r, i):
    return {"grid": [[r.random() < 0.4 for _ in range(c)] for c in [r.randint(1, 5)] for _ in range(r.randint(1, 4))]}


def templates():
    return [
        T("reshape.grid", "to_grid", "samples rows cols", "return {reshape}(samples, (rows, cols))",
          ("A camera streams pixel values `samples` as one flat list, row after row. Given the image height `rows` and width `cols` (rows * cols equals the number of samples), return the image as a list of `rows` rows.",
           "Readings `samples` arrive in one flat list; arrange them into a table of `rows` rows and `cols` columns, filling each row before moving to the next, and return the table."),
          _reshape_gen),
        T("reshape.column", "as_column", "samples", "return {reshape}(samples, (-1, 1))",
          ("A regression routine needs its feature values `samples` (a flat list) as a single column: a list of one-element rows. Return that column.",),
          _v("samples", -9, 9, 1)),
        T("ravel.flatten", "flatten_rows", "table", "return {ravel}(table)",
          ("A seat map `table` lists the reserved seat numbers row by row (a list of rows). Return all entries in one flat list, reading the rows in order.",
           "Turn the spreadsheet block `table` (a list of equal-length rows) into a single flat list, row after row, and return it."),
          _m("table")),
        T("ravel.columns", "flatten_by_column", "table", "return {ravel}(table, order='F')",
          ("A survey sheet `table` stores answers with one column per respondent. Return all answers in one flat list read column by column (all of the first column, then the second, ...).",),
          _m("table")),
        T("transpose.swap", "swap_rows_and_columns", "table", "return {transpose}(table)",
          ("A timetable `table` has one row per weekday and one column per period. Return the table turned around so that each row is a period and each column a weekday.",
           "Return the transpose of the matrix `table` (a list of rows): row i of the result is column i of the input."),
          _m("table")),
        T("transpose.axes", "reorder_volume", "volume", "return {transpose}(volume, (2, 0, 1))",
          ("A medical scan `volume` is stored as [slice][row][column]. Return it reordered as [column][slice][row], i.e. the last axis moved to the front.",),
          lambda r, i: {"volume": _cube(r)}),
        T("permute_dims.channels", "channels_first", "image", "return {permute_dims}(image, (2, 0, 1))",
          ("A colour image `image` is stored as [row][column][channel]. A deep-learning library expects [channel][row][column]. Return the image with its axes reordered that way.",
           "Given a 3-D nested list `image` indexed as [y][x][band], return the same data indexed as [band][y][x]."),
          lambda r, i: {"image": _cube(r)}),
        T("permute_dims.matrix", "flip_axes", "table", "return {permute_dims}(table, (1, 0))",
          ("A gradebook `table` has students as rows and assignments as columns. Return it with the two axes exchanged, assignments as rows.",),
          _m("table")),
        T("swapaxes.volume", "swap_first_last", "volume", "return {swapaxes}(volume, 0, 2)",
          ("A weather model stores `volume` as [altitude][latitude][longitude]. Return it with the first and last axes exchanged: [longitude][latitude][altitude].",
           "Exchange axis 0 and axis 2 of the 3-D nested list `volume` and return the result."),
          lambda r, i: {"volume": _cube(r)}),
        T("swapaxes.matrix", "rows_to_columns", "table", "return {swapaxes}(table, 0, 1)",
          ("A sales table `table` has regions as rows and quarters as columns. Return it with the row and column axes swapped.",),
          _m("table")),
        T("moveaxis.front", "time_first", "volume", "return {moveaxis}(volume, 2, 0)",
          ("A sensor grid records `volume` as [row][column][time]. Move the time axis to the front so the data is indexed [time][row][column], and return it.",
           "Return the 3-D nested list `volume` with its last axis moved to position 0 (the other axes keep their order)."),
          lambda r, i: {"volume": _cube(r)}),
        T("rollaxis.back", "depth_last", "volume", "return {rollaxis}({array}(volume), 0, 3)",
          ("A stack of images `volume` is stored as [image][row][column]. Roll the first axis to the end so the data becomes [row][column][image], and return it.",
           "Move axis 0 of the 3-D nested list `volume` to the last position (rolling it backwards) and return the result."),
          lambda r, i: {"volume": _cube(r)}),
        T("expand_dims.batch", "as_batch", "sample", "return {expand_dims}(sample, 0)",
          ("A model expects a batch. Given one `sample` (a flat list or a list of rows), return it wrapped in a new leading axis of length 1 (a batch of one).",
           "Add a new first axis of length one to the data `sample` and return it, e.g. [1, 2] becomes [[1, 2]]."),
          lambda r, i: {"sample": g.arr(r, i, -9, 9, 1, empty=False)}),
        T("expand_dims.column", "as_columns", "sample", "return {expand_dims}(sample, -1)",
          ("A feature pipeline turns every value of `sample` (a flat list) into its own one-element row, i.e. it adds a trailing axis of length 1. Return the result.",),
          _v("sample", -9, 9, 1)),
        T("squeeze.drop", "drop_single_axes", "data", "return {squeeze}(data)",
          ("An export tool produced `data` wrapped in extra single-element lists (axes of length 1, e.g. [[[1], [2]]]). Remove every axis of length 1 and return the result.",
           "Return the nested list `data` with all length-one dimensions removed."),
          lambda r, i: {"data": [[[v] for v in g.vec(r, r.randint(2, 5), 0, 9, 0)]]}),
        T("flip.reverse", "reverse_order", "events", "return {flip}(events)",
          ("A log `events` lists event codes from oldest to newest (a flat list). Return them from newest to oldest.",
           "Return the readings `events` in reverse order, so the last element comes first."),
          _v("events", 0, 99, 0)),
        T("flip.mirror", "mirror_image", "image", "return {flip}(image, 1)",
          ("A photo app mirrors an image `image` (a list of pixel rows) left to right: each row is reversed, the row order is kept. Return the mirrored image.",
           "Given a grid `image`, reverse the order of the columns (a horizontal mirror) and return the new grid."),
          _m("image", 0, 255)),
        T("flip.upside", "upside_down", "image", "return {flip}(image, 0)",
          ("A scanner delivered the page `image` (list of pixel rows) upside down. Reverse the order of the rows (not the pixels within a row) and return the page.",),
          _m("image", 0, 255)),
        T("rot90.left", "rotate_left", "image", "return {rot90}(image)",
          ("A photo `image` (a list of pixel rows) must be rotated by 90 degrees counter-clockwise. Return the rotated image.",
           "Rotate the grid `image` a quarter turn anticlockwise and return it as a list of rows."),
          _m("image", 0, 9)),
        T("rot90.times", "rotate_quarters", "image turns", "return {rot90}(image, turns)",
          ("A puzzle game rotates a tile `image` (a list of rows) by `turns` quarter turns counter-clockwise (turns may be 0 to 3, or negative for clockwise). Return the rotated tile.",),
          lambda r, i: {"image": _m("x", 0, 9)(r, i)["x"], "turns": r.randint(-1, 3)}),
        T("roll.shift", "rotate_schedule", "shifts k", "return {roll}(shifts, k)",
          ("A rota `shifts` assigns workers to days in order. Shift the rota cyclically by `k` positions to the right (elements pushed off the end come back at the front; negative `k` shifts left) and return it.",
           "Circularly rotate the list `shifts` by `k` places (positive moves elements towards the end) and return the result."),
          lambda r, i: {"shifts": g.vec(r, r.randint(1, 7), 0, 20, 0), "k": r.randint(-3, 8)}),
        T("roll.columns", "shift_columns", "table k", "return {roll}(table, k, axis=1)",
          ("A circular seating chart `table` has one row per table and one column per seat. Move everyone `k` seats to the right along their own row, wrapping around, and return the chart.",),
          lambda r, i: {"table": _m("t")(r, i)["t"], "k": r.randint(-2, 4)}),
        T("tile.pattern", "repeat_pattern", "motif times", "return {tile}(motif, times)",
          ("A wallpaper designer repeats the colour sequence `motif` (a flat list) `times` times one after another. Return the full sequence.",
           "Return the list obtained by concatenating `times` copies of the pattern `motif`."),
          lambda r, i: {"motif": g.vec(r, r.randint(1, 4), 0, 9, 0), "times": r.randint(0 if i == 7 else 1, 4)}),
        T("tile.grid", "tile_grid", "tile_block down across", "return {tile}(tile_block, (down, across))",
          ("A floor planner lays the tile pattern `tile_block` (a list of rows) `down` times vertically and `across` times horizontally. Return the resulting floor as a list of rows.",),
          lambda r, i: {"tile_block": _m("t", 0, 9, rows=(1, 2), cols=(1, 3))(r, i)["t"], "down": r.randint(1, 3), "across": r.randint(1, 3)}),
        T("repeat.each", "stretch_samples", "samples k", "return {repeat}(samples, k)",
          ("A low-resolution audio clip `samples` is upsampled by repeating every sample `k` times in place (e.g. [1, 2] with k = 2 gives [1, 1, 2, 2]). Return the upsampled list.",
           "Repeat each element of `samples` `k` times consecutively and return the flat result."),
          lambda r, i: {"samples": g.vec(r, r.randint(0 if i == 7 else 1, 5), 0, 9, 0), "k": r.randint(1, 3)}),
        T("repeat.counts", "expand_orders", "items counts", "return {repeat}(items, counts)",
          ("An order list gives product codes `items` and how many of each were ordered in `counts` (same length, non-negative). Return the list of codes with each code repeated as many times as it was ordered.",),
          lambda r, i: (lambda n: {"items": g.vec(r, n, 100, 999, 0), "counts": g.vec(r, n, 0, 3, 0)})(r.randint(1, 5))),
        T("resize.cycle", "fill_slots", "pattern n", "return {resize}(pattern, n)",
          ("A playlist `pattern` (a non-empty flat list) must fill exactly `n` slots: repeat it from the start as often as needed and cut it off after `n` items. Return the slots.",
           "Return a list of length `n` made by cycling through `pattern` again and again (truncating at the end)."),
          lambda r, i: {"pattern": g.vec(r, r.randint(1, 4), 0, 9, 0), "n": r.randint(0, 10)}),
        T("resize.table", "refit_table", "values rows cols", "return {resize}(values, (rows, cols))",
          ("A display wall has `rows` x `cols` screens. Fill it with the clips `values` (a non-empty flat list), row by row, starting over from the first clip when they run out. Return the wall as a list of rows.",),
          lambda r, i: {"values": g.vec(r, r.randint(1, 5), 0, 9, 0), "rows": r.randint(1, 3), "cols": r.randint(1, 4)}),
        T("pad.border", "add_border", "image width", "return {pad}(image, width)",
          ("An image filter needs a frame of zeros around the picture `image` (a list of pixel rows): add `width` rows of zeros at the top and bottom and `width` columns of zeros on the left and right. Return the padded picture.",
           "Surround the grid `image` with a border of zeros that is `width` cells thick on every side and return it."),
          _pad_gen),
        T("pad.edge", "extend_edges", "signal left right", "return {pad}(signal, (left, right), mode='edge')",
          ("Before smoothing, a signal `signal` (flat list) is extended by repeating its first value `left` times at the start and its last value `right` times at the end. Return the extended signal.",),
          lambda r, i: {"signal": g.vec(r, r.randint(1, 6), -9, 9, 1), "left": r.randint(0, 3), "right": r.randint(0, 3)}),
        T("concatenate.join", "join_batches", "first second", "return {concatenate}((first, second))",
          ("Two shipments of parcel weights, `first` and `second` (flat lists), are merged into one list: all of `first` followed by all of `second`. Return it.",
           "Return a single flat list with the measurements `first` followed by the measurements `second`."),
          lambda r, i: {"first": g.vec(r, r.randint(0, 4), 0, 50, 1), "second": g.vec(r, r.randint(1, 4), 0, 50, 1)}),
        T("concatenate.sideways", "join_columns", "left right", "return {concatenate}((left, right), axis=1)",
          ("Two spreadsheets `left` and `right` have the same rows (same row count) but different columns. Glue them side by side so each row of the result is the left row followed by the right row. Return the combined table.",),
          lambda r, i: (lambda n: {"left": g.mat(r, n, r.randint(1, 3), 0, 9, 0), "right": g.mat(r, n, r.randint(1, 3), 0, 9, 0)})(r.randint(1, 4))),
        T("stack.days", "stack_days", "monday tuesday", "return {stack}((monday, tuesday))",
          ("Two equally long lists of hourly visitor counts, `monday` and `tuesday`, are combined into a table with one row per day (Monday first). Return the table.",
           "Stack the vectors `monday` and `tuesday` (same length) as the rows of a new 2-row table and return it."),
          lambda r, i: (lambda n: {"monday": g.vec(r, n, 0, 99, 0), "tuesday": g.vec(r, n, 0, 99, 0)})(r.randint(1, 6))),
        T("stack.columns", "pair_columns", "xs ys", "return {stack}((xs, ys), axis=1)",
          ("A plotting tool wants points as pairs. Given x coordinates `xs` and y coordinates `ys` (same length), return the list of [x, y] pairs.",),
          lambda r, i: (lambda n: {"xs": g.vec(r, n, -9, 9, 1), "ys": g.vec(r, n, -9, 9, 1)})(r.randint(1, 6))),
        T("hstack.merge", "merge_side_by_side", "first second", "return {hstack}((first, second))",
          ("A log merger appends the entries `second` to the entries `first` (both flat lists). Return one flat list with all entries, first then second.",
           "Given the flat lists of readings `first` and `second`, return them joined end to end as one flat list."),
          lambda r, i: {"first": g.vec(r, r.randint(1, 4), 0, 9, 0), "second": g.vec(r, r.randint(0, 4), 0, 9, 0)}),
        T("vstack.rows", "add_rows", "table extra", "return {vstack}((table, extra))",
          ("A monthly report `table` (a list of rows) gets the new rows `extra` (same number of columns) appended at the bottom. Return the full table.",
           "Stack the block `extra` below the block `table` (both lists of rows with equal width) and return the result."),
          lambda r, i: (lambda c: {"table": g.mat(r, r.randint(1, 3), c, 0, 9, 0), "extra": g.mat(r, r.randint(1, 3), c, 0, 9, 0)})(r.randint(1, 4))),
        T("vstack.vectors", "rows_from_lists", "first second", "return {vstack}((first, second))",
          ("Two equally long price lists `first` and `second` become the two rows of a comparison table. Return the table.",),
          lambda r, i: (lambda n: {"first": g.vec(r, n, 1, 50, 2), "second": g.vec(r, n, 1, 50, 2)})(r.randint(1, 5))),
        T("block.assemble", "assemble_blocks", "top_left top_right bottom_left bottom_right",
          "tiles = [[{array}(top_left), {array}(top_right)], [{array}(bottom_left), {array}(bottom_right)]]\nreturn {block}(tiles)",
          ("A tiled map is assembled from four tiles given as lists of rows: `top_left`, `top_right`, `bottom_left` and `bottom_right` (tiles in the same row of the layout have the same height, tiles in the same column the same width). Return the assembled map as one table.",
           "Build one big matrix from four blocks arranged as [[top_left, top_right], [bottom_left, bottom_right]] and return it."),
          lambda r, i: (lambda h1, h2, w1, w2: {"top_left": g.mat(r, h1, w1, 0, 9, 0), "top_right": g.mat(r, h1, w2, 0, 9, 0), "bottom_left": g.mat(r, h2, w1, 0, 9, 0), "bottom_right": g.mat(r, h2, w2, 0, 9, 0)})(r.randint(1, 2), r.randint(1, 2), r.randint(1, 2), r.randint(1, 2))),
        T("split.equal", "split_into_parts", "readings parts", "return {split}({array}(readings), parts)",
          ("A week of readings `readings` must be divided into `parts` consecutive chunks of equal size (the length is a multiple of `parts`). Return the list of chunks.",
           "Cut the flat list `readings` into `parts` equally long consecutive pieces and return them as a list of lists."),
          _split_gen),
        T("split.at", "split_at_marks", "readings marks", "return {split}({array}(readings), marks)",
          ("A race log `readings` is cut at the positions listed in `marks` (increasing indices): the first piece ends just before marks[0], and so on. Return the list of pieces.",),
          lambda r, i: (lambda v: {"readings": v, "marks": sorted(r.sample(range(len(v) + 1), r.randint(1, 2)))})(g.vec(r, r.randint(2, 8), 0, 9, 0))),
        T("broadcast_to.expand", "replicate_row", "row rows", "return {broadcast_to}(row, (rows, len(row)))",
          ("A price row `row` applies to every one of `rows` stores. Return a table with `rows` identical copies of `row`, using a read-only broadcast view.",
           "Expand the flat list `row` to a table of shape (`rows`, len(row)) where every row equals `row`, and return it."),
          lambda r, i: {"row": g.vec(r, r.randint(1, 5), 0, 9, 0), "rows": r.randint(1, 4)}),
        T("broadcast_arrays.pair", "align_shapes", "column row",
          "return {broadcast_arrays}(column, row)",
          ("A pricing grid combines per-product base prices `column` (a list of one-element rows) with per-region factors `row` (a flat list). Return both inputs broadcast to the common table shape (len(column) by len(row)), as a list of two tables.",
           "Broadcast `column` (shape n x 1) and `row` (length m) against each other and return the two resulting n x m tables in a list."),
          lambda r, i: {"column": [[v] for v in g.vec(r, r.randint(1, 4), 0, 9, 0)], "row": g.vec(r, r.randint(1, 4), 0, 9, 0)}),
        T("shape.dims", "table_dimensions", "data", "return {shape}(data)",
          ("A data loader receives `data` (a number, a flat list, a list of rows, or deeper nesting) and must report its dimensions: the length along each axis. Return them as a list of integers (an empty list for a plain number).",
           "Return the shape of the nested list `data`, one integer per axis, as a list."),
          lambda r, i: {"data": g.num(r, 0, 9, 0) if i == 2 else (_cube(r) if i % 3 == 1 else g.arr(r, i, 0, 9, 0, empty=True))}),
        T("size.count", "count_cells", "data", "return {size}(data)",
          ("A storage estimator needs the total number of values in `data` (a flat list or a list of equal-length rows). Return it as an integer.",
           "Return how many elements the table `data` holds in total (rows times columns for a table)."),
          lambda r, i: {"data": g.arr(r, i, 0, 9, 0, empty=True)}),
        T("size.axis", "count_columns", "data", "return {size}(data, 1)",
          ("A spreadsheet `data` (a list of equal-length rows) - return the number of columns as an integer.",),
          _m("data")),
        T("diagonal.main", "main_diagonal", "table", "return {diagonal}(table)",
          ("A distance table `table` (a list of rows, possibly not square) has entry (i, j) in row i, column j. Return the entries (0, 0), (1, 1), ... as a list, as far as both dimensions allow.",
           "Return the main diagonal of the matrix `table` as a flat list."),
          _m("table")),
        T("diagonal.offset", "offset_diagonal_entries", "table k", "return {diagonal}(table, k)",
          ("A staircase puzzle `table` is a list of rows. Return the entries on the diagonal shifted by `k` (positive `k`: above the main diagonal, negative: below) as a list.",),
          lambda r, i: {"table": _m("t")(r, i)["t"], "k": r.randint(-1, 2)}),
        T("tril.lower", "lower_part", "table", "return {tril}(table)",
          ("A mileage chart `table` (a square list of rows) is symmetric, so only the part on and below the main diagonal is kept; entries above it are set to 0. Return the result.",
           "Return a copy of the matrix `table` with everything above the main diagonal replaced by zeros."),
          _m("table", rows=(1, 4), cols=(1, 4))),
        T("tril.offset", "lower_band", "table k", "return {tril}(table, k)",
          ("Keep the entries of `table` on and below the diagonal shifted by `k` (k > 0 moves it up-right, k < 0 down-left), and zero the rest. Return the matrix, as a covariance-masking step does.",),
          lambda r, i: {"table": _m("t")(r, i)["t"], "k": r.randint(-1, 1)}),
        T("triu.upper", "upper_part", "table", "return {triu}(table)",
          ("A pairwise comparison matrix `table` only needs its part on and above the main diagonal; every entry below it becomes 0. Return the matrix.",
           "Return the matrix `table` with all entries below the main diagonal set to zero."),
          _m("table", rows=(1, 4), cols=(1, 4))),
        T("triu.strict", "strict_upper", "table", "return {triu}(table, 1)",
          ("For a tournament grid `table`, keep only entries strictly above the main diagonal (each pairing counted once) and set the others to 0. Return the grid.",),
          _m("table")),
        T("insert.queue", "insert_item", "queue position item", "return {insert}(queue, position, item)",
          ("A ticket queue `queue` (flat list of ticket numbers) gets a priority ticket `item` inserted before index `position` (position may equal the length to append). Return the new queue.",
           "Return a new list equal to `queue` with the value `item` inserted at index `position`."),
          _insert_gen),
        T("delete.track", "remove_track", "playlist position", "return {delete}(playlist, position)",
          ("A music player removes the track at index `position` from the playlist `playlist` (track ids). Return the remaining playlist.",
           "Return `playlist` without the element at index `position`."),
          _delete_gen),
        T("delete.column", "drop_column", "table column", "return {delete}(table, column, axis=1)",
          ("A spreadsheet `table` (list of rows) must lose the column with index `column`. Return the table without it.",),
          lambda r, i: (lambda t: {"table": t, "column": r.randrange(len(t[0]))})(g.mat(r, r.randint(1, 4), r.randint(1, 5), 0, 9, 0))),
        T("take.picks", "pick_values", "values picks", "return {take}(values, picks)",
          ("A lottery machine has ball numbers `values`; the draw is the list of positions `picks` (0-based indices, repeats allowed). Return the ball numbers at those positions, in the order drawn.",
           "Return the elements of `values` found at the indices listed in `picks`."),
          _indices_gen),
        T("take.wrap", "pick_wrapped", "values picks", "return {take}(values, picks, mode='wrap')",
          ("A circular buffer `values` is read at positions `picks` that may run past the end; positions wrap around (index len(values) is index 0 again, negative ones count from the end). Return the values read.",),
          lambda r, i: (lambda v: {"values": v, "picks": [r.randint(-10, 15) for _ in range(r.randint(1, 5))]})(g.vec(r, r.randint(1, 6), 0, 99, 0))),
        T("compress.flags", "keep_flagged", "flags values", "return {compress}(flags, values)",
          ("A quality check gives one boolean per product in `flags`; `values` lists the products' weights (same length). Return the weights of the products whose flag is True, in order.",
           "Select from `values` the entries whose corresponding entry in `flags` is True and return them as a list."),
          lambda r, i: (lambda n: {"flags": [r.random() < 0.5 for _ in range(n)], "values": g.vec(r, n, 1, 99, 1)})(r.randint(1, 7))),
        T("compress.columns", "keep_columns", "flags table", "return {compress}(flags, table, axis=1)",
          ("A report `table` (list of rows) has one column per metric; `flags` says for each column whether to keep it. Return the table with only the kept columns.",),
          lambda r, i: (lambda c: {"flags": [r.random() < 0.6 for _ in range(c)], "table": g.mat(r, r.randint(1, 3), c, 0, 9, 0)})(r.randint(1, 5))),
        T("extract.mask", "flagged_values", "keep values", "return {extract}(keep, values)",
          ("A photo editor marks pixels with the boolean mask `keep` (same shape as `values`, flat or nested). Return the values where the mask is True, read row by row into one flat list.",
           "Return a flat list of the elements of `values` at the positions where `keep` is True (row-major order)."),
          _mask_gen),
        T("choose.options", "choose_per_slot", "choice options", "return {choose}(choice, options)",
          ("A menu planner has several candidate menus `options` (a list of equally long lists, one value per day) and, for every day, the index of the menu to use in `choice`. Return the resulting list: for day d, options[choice[d]][d].",
           "Given index list `choice` and the list of lists `options`, build the list whose d-th element is taken from the option list numbered choice[d]."),
          _choose_gen),
        T("select.bands", "tax_band", "income",
          "x = {array}(income)\nreturn {select}([x < 10000, x < 40000], [0.0, 0.2], default=0.4)",
          ("A tax office assigns tax rates to `income` values (a flat list): 0.0 below 10000, 0.2 from 10000 up to (but excluding) 40000 and 0.4 from 40000 on. Return the list of rates.",),
          lambda r, i: {"income": g.vec(r, r.randint(1, 7), 0, 80000, 0)}),
        T("select.grade", "letter_points", "marks",
          "return {select}([marks >= 90, marks >= 75, marks >= 50], [4, 3, 2], default=0)",
          ("A school converts marks (0 to 100) in the library's array `marks` into grade points: 4 for 90 or more, 3 for 75 to 89, 2 for 50 to 74 and 0 otherwise. Return the grade points.",
           "Map each mark in the array `marks` to points with the first matching rule: at least 90 gives 4, at least 75 gives 3, at least 50 gives 2, anything else 0."),
          lambda r, i: {"marks": ArrayArg(g.vec(r, r.randint(1, 8), 0, 100, 0))}),
        T("where.clip_negative", "floor_at_zero", "scores cutoff", "s = {array}(scores)\nreturn {where}(s > cutoff, s, cutoff)",
          ("A scoring system raises every score in `scores` (flat or nested list) that is not above `cutoff` to `cutoff` itself; scores above it are kept. Return the adjusted scores.",),
          _where_gen),
        T("where.indices", "positions_of_true", "grid", "return {where}(grid)",
          ("A seating chart `grid` (a list of rows of booleans) marks occupied seats with True. Return the occupied positions as two lists: the row indices and the column indices (in row-major order).",
           "For the boolean table `grid`, return [row_indices, column_indices] of the True entries, ordered row by row."),
          _bool_grid),
        T("place.replace", "redact_values", "values keep replacement",
          "out = {array}(values)\n{place}(out, keep, replacement)\nreturn out",
          ("A privacy filter replaces the entries of `values` (flat list of numbers) at positions where `keep` is True with the replacement numbers `replacement`, used in order (and cycled if there are fewer replacements than True entries). Return the filtered list.",
           "Copy `values` and, in place, put the values from `replacement` (in order, repeating as needed) wherever the mask `keep` is True; return the result."),
          lambda r, i: (lambda n: {"values": g.vec(r, n, 0, 99, 0), "keep": [r.random() < 0.5 for _ in range(n)], "replacement": g.vec(r, r.randint(1, 3), -9, -1, 0)})(r.randint(1, 7))),
        T("put.slots", "set_slots", "values slots new",
          "out = {array}(values)\n{put}(out, slots, new)\nreturn out",
          ("A parking system has occupancy codes `values` (flat list). Write the codes `new` into the positions `slots` (same length as `new`, 0-based) of a copy and return it.",
           "Return a copy of `values` in which, for each k, position slots[k] is set to new[k]."),
          lambda r, i: (lambda n, k: {"values": g.vec(r, n, 0, 9, 0), "slots": r.sample(range(n), k), "new": g.vec(r, k, 10, 99, 0)})(*(lambda n: (n, r.randint(1, n)))(r.randint(1, 7)))),
        T("putmask.cap", "cap_flagged", "values flagged cap",
          "out = {array}(values)\n{putmask}(out, flagged, cap)\nreturn out",
          ("A moderation tool sets every entry of `values` (flat list) whose flag in `flagged` is True to the value `cap`, leaving the others unchanged. Return the moderated list.",
           "Return a copy of `values` where the entries at True positions of the mask `flagged` are replaced by `cap`."),
          lambda r, i: (lambda n: {"values": g.vec(r, n, 0, 99, 0), "flagged": [r.random() < 0.4 for _ in range(n)], "cap": r.randint(-5, 5)})(r.randint(1, 7))),
        T("copyto.fill", "apply_update", "values update",
          "out = {array}(values)\n{copyto}(out, update)\nreturn out",
          ("A configuration table `values` (list of rows) is overwritten with `update`, which is either a table of the same shape or a single row applied to every row (broadcast). Return the updated table.",
           "Copy `update` into a copy of `values`, broadcasting `update` over the rows when it is one row, and return the result."),
          lambda r, i: (lambda t: {"values": t, "update": g.vec(r, len(t[0]), -9, 9, 0) if i % 2 else g.same_shape(r, t, -9, 9, 0)})(g.mat(r, r.randint(1, 3), r.randint(1, 4), 0, 9, 0))),
        T("ix_.submatrix", "submatrix", "table rows cols",
          "m = {array}(table)\nreturn m[{ix_}(rows, cols)]",
          ("A spreadsheet `table` (list of rows) is viewed through a selection of row indices `rows` and column indices `cols`. Return the sub-table made of those rows and columns (in the given orders).",
           "Return the block of `table` at the cross product of the row indices `rows` and the column indices `cols`."),
          lambda r, i: (lambda t: {"table": t, "rows": r.sample(range(len(t)), r.randint(1, len(t))), "cols": r.sample(range(len(t[0])), r.randint(1, len(t[0])))})(g.mat(r, r.randint(1, 4), r.randint(1, 5), 0, 99, 0))),
        T("unravel_index.seat", "seat_position", "flat_index rows cols", "return {unravel_index}(flat_index, (rows, cols))",
          ("A theatre numbers its seats 0, 1, 2, ... row by row over `rows` rows of `cols` seats. Return the [row, seat] pair of the seat with number `flat_index`.",
           "Convert the flat (row-major) index `flat_index` of a `rows` x `cols` grid into its [row, column] coordinates."),
          _unravel_gen),
        T("nonzero.active", "active_channels", "levels", "return {nonzero}(levels)",
          ("A mixer reports channel levels `levels` (flat list). Return the indices of the channels whose level is nonzero, wrapped as a one-element list of index lists (one index list per dimension).",
           "Return, for the flat list `levels`, the tuple-like list of index arrays of its nonzero entries (here a single list of indices)."),
          lambda r, i: {"levels": g.vec(r, r.randint(1, 8), -1, 2, 0)}),
        T("nonzero.grid", "occupied_cells", "grid", "return {nonzero}(grid)",
          ("A warehouse map `grid` (list of rows) stores how many pallets are in each cell. Return the positions of the non-empty cells as two lists: their row indices and their column indices (row-major order).",),
          lambda r, i: {"grid": g.mat(r, r.randint(1, 4), r.randint(1, 4), 0, 2, 0)}),
        T("argwhere.cells", "hot_cells", "grid", "return {argwhere}(grid)",
          ("A thermal camera grid `grid` (list of rows of 0/1 flags) marks hot cells with 1. Return the list of [row, column] coordinates of the hot cells, in row-major order.",
           "Return the coordinates [i, j] of every nonzero element of the table `grid`, in reading order."),
          lambda r, i: {"grid": g.mat(r, r.randint(1, 4), r.randint(1, 4), 0, 1, 0)}),
        T("empty.buffer", "staging_buffer", "values",
          "out = {empty}(len(values))\n{copyto}(out, values)\nreturn out",
          ("A streaming client allocates an uninitialised buffer with one slot per received value and then copies the values `values` (flat list of floats) into it. Return the filled buffer.",),
          lambda r, i: {"values": g.vec(r, r.randint(1, 6), -9, 9, 2)}, tags=("train",)),
        T("empty_like.buffer", "mirror_buffer", "frame",
          "out = {empty_like}(frame)\n{copyto}(out, frame)\nreturn out",
          ("A video pipeline allocates an uninitialised frame of the same shape and type as `frame` (a list of rows) and copies `frame` into it. Return the new frame.",),
          _m("frame", 0, 255), tags=("train",)),
    ]
