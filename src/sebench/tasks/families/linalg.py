"""Linear algebra (the package's linear-algebra submodule)."""

from __future__ import annotations

from sebench.tasks.families.common import T, g


def _sq(name, maker=None, n=(1, 4)):
    def gen(r, i):
        k = r.randint(*n)
        return {name: maker(r, k) if maker else g.square(r, k)}
    return gen


def _system(r, i):
    n = r.randint(1, 4)
    return {"coefficients": g.invertible(r, n), "totals": g.vec(r, n, -20, 20, 0)}


def _overdetermined(r, i):
    n = r.randint(2, 3)
    m = n + r.randint(1, 3)
    return {"features": g.mat(r, m, n, -5, 5, 0), "targets": g.vec(r, m, -10, 10, 1)}


def _rows3(a, b):
    def gen(r, i):
        n = r.randint(1, 4)
        return {a: g.mat(r, n, 3, -5, 5, 0), b: g.mat(r, n, 3, -5, 5, 0)}
    return gen


def _chain(r, i):
    d = [r.randint(1, 4) for _ in range(4)]
    return {"first": g.mat(r, d[0], d[1], -3, 3, 0), "second": g.mat(r, d[1], d[2], -3, 3, 0),
            "third": g.mat(r, d[2], d[3], -3, 3, 0)}


def _matrix(name, rows=(1, 4), cols=(1, 4), lo=-5, hi=5):
    return lambda r, i: {name: g.mat(r, r.randint(*rows), r.randint(*cols), lo, hi, 0)}


def _rank_gen(r, i):
    rows, cols = r.randint(1, 4), r.randint(1, 4)
    m = g.mat(r, rows, cols, -3, 3, 0)
    if rows > 1 and r.random() < 0.5:
        m[-1] = [2 * v for v in m[0]]  # a dependent row
    return {"table": m}


def templates():
    return [
        T("linalg.cholesky.factor", "lower_factor", "covariance", "return {linalg.cholesky}(covariance)",
          ("A Monte Carlo simulation needs to correlate random draws with the symmetric positive-definite covariance matrix `covariance` (list of rows). Return its lower-triangular Cholesky factor L with L times its transpose equal to the covariance.",
           "Return the lower-triangular matrix L of the Cholesky decomposition of the symmetric positive-definite matrix `covariance`."),
          _sq("covariance", g.spd)),
        T("linalg.cond.number", "sensitivity", "table", "return {linalg.cond}(table)",
          ("A numerical analyst checks how sensitive solving with the invertible matrix `table` is to rounding errors. Return its condition number in the 2-norm (ratio of largest to smallest singular value).",
           "Return the 2-norm condition number of the square matrix `table`."),
          _sq("table", g.invertible)),
        T("linalg.cross.rows", "normals", "edges_a edges_b", "return {linalg.cross}(edges_a, edges_b)",
          ("A mesh tool stores for every triangle two edge vectors as rows of `edges_a` and `edges_b` (each row has 3 components). Return the row-wise cross products (one normal vector per triangle).",
           "Return the cross product of corresponding 3-component rows of `edges_a` and `edges_b`."),
          _rows3("edges_a", "edges_b")),
        T("linalg.det.area", "determinant", "table", "return {linalg.det}(table)",
          ("A geometry program computes the signed volume scale factor of the linear map given by the square matrix `table`: its determinant. Return it as a float.",
           "Return the determinant of the square matrix `table`."),
          _sq("table")),
        T("linalg.diagonal.main", "self_scores", "table", "return {linalg.diagonal}(table)",
          ("A similarity matrix `table` (list of rows) stores self-similarities on its main diagonal. Return them as a list (using the linear-algebra module's diagonal helper, which works on the last two axes).",
           "Return the main diagonal of the matrix `table` as a list, with the linear-algebra submodule."),
          _matrix("table")),
        T("linalg.diagonal.offset", "neighbour_links", "table k", "return {linalg.diagonal}(table, offset=k)",
          ("A chain network stores link weights in `table`; the weights between neighbours lie on the diagonal offset by `k`. Return that diagonal.",),
          lambda r, i: {"table": _matrix("t")(r, i)["t"], "k": r.randint(-1, 1)}),
        T("linalg.eig.values", "eigen_values", "table", "return {linalg.eig}(table)[0]",
          ("A vibration analysis needs the eigenvalues of the square matrix `table` from a full eigen-decomposition (values and vectors computed together). Return only the eigenvalues, in the order the decomposition gives them (complex when needed).",
           "Compute the eigen-decomposition of `table` and return its eigenvalues."),
          _sq("table", g.symmetric)),
        T("linalg.eigh.values", "symmetric_eigenvalues", "table", "return {linalg.eigh}(table)[0]",
          ("A structural engineer has a symmetric stiffness matrix `table`. Using the decomposition for symmetric matrices (values and vectors), return the eigenvalues in ascending order.",
           "Return the ascending eigenvalues from the symmetric (Hermitian) eigen-decomposition of `table`."),
          _sq("table", g.symmetric)),
        T("linalg.eigvals.values", "growth_modes", "table", "return {linalg.eigvals}(table)",
          ("A population model has the square transition matrix `table`. Return its eigenvalues (without eigenvectors), complex where needed, in the order the general solver returns them.",
           "Return the eigenvalues of the general square matrix `table`."),
          _sq("table")),
        T("linalg.eigvalsh.values", "energy_levels", "table", "return {linalg.eigvalsh}(table)",
          ("A quantum toy model has the symmetric Hamiltonian matrix `table`. Return its energy levels: the eigenvalues in ascending order.",
           "Return the eigenvalues, ascending, of the symmetric matrix `table`."),
          _sq("table", g.symmetric)),
        T("linalg.inv.undo", "undo_transform", "table", "return {linalg.inv}(table)",
          ("A cipher mixes message blocks with the invertible matrix `table`. Return the matrix that undoes the mixing: its inverse.",
           "Return the inverse of the invertible square matrix `table`."),
          _sq("table", g.invertible)),
        T("linalg.lstsq.fit", "least_squares_weights", "features targets", "return {linalg.lstsq}(features, targets, rcond=None)[0]",
          ("A pricing model has more observations than unknowns: rows of `features` describe each observation and `targets` the observed prices. Return the weights that minimise the squared error of features times weights against targets.",
           "Return the least-squares solution x of features @ x ~= targets."),
          _overdetermined),
        T("linalg.matmul.chain", "combine_maps", "first second", "return {linalg.matmul}(first, second)",
          ("A graphics pipeline combines the transformation `first` with `second` by matrix multiplication (first @ second). Return the combined matrix, using the linear-algebra module's product.",
           "Return the matrix product of `first` and `second` using the linear-algebra submodule."),
          lambda r, i: (lambda p, q, s: {"first": g.mat(r, p, q, -4, 4, 0), "second": g.mat(r, q, s, -4, 4, 0)})(r.randint(1, 4), r.randint(1, 4), r.randint(1, 4))),
        T("linalg.matrix_norm.fro", "frobenius_size", "table", "return {linalg.matrix_norm}(table)",
          ("An image-compression tool measures the size of an error matrix `table` as the square root of the sum of all squared entries (Frobenius norm). Return it.",
           "Return the Frobenius norm of the matrix `table`."),
          _matrix("table")),
        T("linalg.matrix_norm.nuc", "nuclear_size", "table", "return {linalg.matrix_norm}(table, ord='nuc')",
          ("A recommender system regularises a rating matrix `table` by its nuclear norm: the sum of its singular values. Return it.",),
          _matrix("table")),
        T("linalg.matrix_power.steps", "after_steps", "transition steps", "return {linalg.matrix_power}(transition, steps)",
          ("A board game moves tokens with the square transition matrix `transition` each turn. Return the matrix describing `steps` turns at once: the matrix raised to the power `steps` (steps >= 0; 0 gives the identity).",
           "Return the square matrix `transition` raised to the integer power `steps`."),
          lambda r, i: {"transition": _sq("t", n=(1, 3))(r, i)["t"], "steps": r.randint(0, 4)}),
        T("linalg.matrix_rank.rank", "independent_rows", "table", "return {linalg.matrix_rank}(table)",
          ("A survey designer checks how many of the questions in `table` (one row per question, numbers per respondent) are linearly independent. Return the rank of the matrix.",
           "Return the rank of the matrix `table`."),
          _rank_gen),
        T("linalg.matrix_transpose.t", "flip_matrix", "table", "return {linalg.matrix_transpose}(table)",
          ("A matrix library needs the transpose of `table` (list of rows) computed with the linear-algebra module's matrix transpose. Return it.",
           "Return the matrix transpose of `table` (rows become columns)."),
          _matrix("table")),
        T("linalg.multi_dot.chain", "chained_product", "first second third", "return {linalg.multi_dot}([first, second, third])",
          ("A robotics chain applies three linear maps; their matrices `first`, `second` and `third` have compatible shapes. Return the product first @ second @ third, letting the library choose the cheapest multiplication order.",
           "Return the product of the three matrices `first`, `second`, `third` in one call that optimises the evaluation order."),
          _chain),
        T("linalg.norm.length", "vector_length", "vector", "return {linalg.norm}(vector)",
          ("A navigation app has a displacement `vector` (flat list of coordinates). Return its Euclidean length.",
           "Return the 2-norm (Euclidean length) of `vector`."),
          lambda r, i: {"vector": g.vec(r, r.randint(1, 5), -9, 9, 1)}),
        T("linalg.norm.manhattan", "taxicab_length", "vector", "return {linalg.norm}(vector, 1)",
          ("A city planner measures distances along the street grid: the sum of the absolute coordinate differences in `vector`. Return that 1-norm.",),
          lambda r, i: {"vector": g.vec(r, r.randint(1, 6), -9, 9, 1)}),
        T("linalg.norm.rows", "row_lengths", "points", "return {linalg.norm}(points, axis=1)",
          ("A GPS tool stores points as rows of `points` (coordinates relative to the origin). Return the Euclidean distance of every point to the origin.",),
          lambda r, i: {"points": g.mat(r, r.randint(1, 5), r.randint(1, 3), -9, 9, 1)}),
        T("linalg.outer.table", "pairwise_products", "first second", "return {linalg.outer}(first, second)",
          ("A probability table for two independent events is built from the probability vectors `first` and `second`: entry (i, j) is first[i] * second[j]. Return the table using the linear-algebra module's outer product.",
           "Return the outer product of the flat lists `first` and `second` with the linear-algebra submodule."),
          lambda r, i: {"first": g.vec(r, r.randint(1, 4), -5, 5, 0), "second": g.vec(r, r.randint(1, 4), -5, 5, 0)}),
        T("linalg.pinv.pseudo", "pseudo_inverse", "table", "return {linalg.pinv}(table)",
          ("A signal-recovery method needs the Moore-Penrose pseudo-inverse of the (possibly non-square) matrix `table`. Return it.",
           "Return the pseudo-inverse of the matrix `table`."),
          _matrix("table")),
        T("linalg.qr.r", "triangular_factor", "table", "return {linalg.qr}(table)[1]",
          ("A least-squares solver factors the matrix `table` (at least as many rows as columns) as Q R. Return the upper-triangular factor R of the reduced decomposition, as the library computes it.",
           "Return the R factor (upper triangular) of the reduced QR decomposition of `table`."),
          lambda r, i: (lambda c: {"table": g.mat(r, c + r.randint(0, 2), c, -5, 5, 0)})(r.randint(1, 3))),
        T("linalg.slogdet.parts", "log_volume", "table", "return {linalg.slogdet}(table)",
          ("A statistics package computes the log-determinant of a large matrix without overflow. For the square matrix `table` return [sign of the determinant, natural log of its absolute value].",
           "Return the sign and the natural logarithm of the absolute determinant of `table`, as a pair."),
          _sq("table", g.invertible)),
        T("linalg.solve.system", "solve_balances", "coefficients totals", "return {linalg.solve}(coefficients, totals)",
          ("A mixing problem leads to the linear system `coefficients` @ x = `totals` with an invertible square matrix. Return the unknown amounts x.",
           "Return the solution x of the square linear system coefficients x = totals."),
          _system),
        T("linalg.svd.values", "singular_values", "table", "return {linalg.svd}(table)[1]",
          ("An image-compression tool performs the full singular value decomposition of the matrix `table` and keeps only the singular values (in descending order). Return them.",
           "Return the singular values, largest first, from the SVD of `table`."),
          _matrix("table")),
        T("linalg.svdvals.values", "strengths", "table", "return {linalg.svdvals}(table)",
          ("A data analyst wants the singular values of the matrix `table` (descending), without computing singular vectors. Return them.",
           "Return only the singular values of `table`, largest first."),
          _matrix("table")),
        T("linalg.tensordot.full", "contract_all", "weights grid", "return {linalg.tensordot}(weights, grid)",
          ("A convolution layer multiplies the kernel `weights` with an image patch `grid` of the same 2-D shape and sums everything. Return that number, using the linear-algebra module's tensor contraction over both axes.",
           "Contract both axes of `weights` with both axes of `grid` (same shape) using the linear-algebra submodule and return the result."),
          lambda r, i: (lambda a: {"weights": a, "grid": g.same_shape(r, a, -5, 5, 0)})(g.mat(r, r.randint(1, 3), r.randint(1, 3), -5, 5, 0))),
        T("linalg.tensorinv.inverse", "tensor_inverse", "table", "return {linalg.tensorinv}(table, ind=1)",
          ("A tensor library inverts the square matrix `table` viewed as a tensor whose first index forms the rows (ind = 1). Return the tensor inverse.",
           "Return the tensor inverse of `table` with the first axis as the 'row' index group (ind=1)."),
          _sq("table", g.invertible)),
        T("linalg.tensorsolve.system", "tensor_solution", "coefficients totals", "return {linalg.tensorsolve}(coefficients, totals)",
          ("A physics model writes its linear equations as the tensor equation coefficients . x = totals (here a square matrix and a vector). Return x using the tensor-equation solver.",
           "Solve the tensor equation `coefficients` x = `totals` for x and return it."),
          _system),
        T("linalg.trace.sum", "diagonal_sum", "table", "return {linalg.trace}(table)",
          ("A Markov-chain analyst sums the main-diagonal entries of the transition count matrix `table` (how often a state repeats). Return that sum with the linear-algebra module's trace.",
           "Return the trace of the matrix `table` computed with the linear-algebra submodule."),
          _matrix("table")),
        T("linalg.vecdot.rows", "row_dots", "first second", "return {linalg.vecdot}(first, second)",
          ("A physics engine stores forces and displacements as rows of `first` and `second` (same shape). Return the work done for each row: the dot product of corresponding rows.",
           "Return the vector dot product of `first` and `second` along their last axis (one value per row)."),
          lambda r, i: (lambda a: {"first": a, "second": g.same_shape(r, a, -5, 5, 0)})(g.mat(r, r.randint(1, 4), r.randint(1, 4), -5, 5, 0))),
        T("linalg.vector_norm.length", "displacement_length", "vector", "return {linalg.vector_norm}(vector)",
          ("A drone reports its displacement `vector` (a flat list, or a table read as one long vector). Return the Euclidean norm of all its entries.",
           "Return the 2-norm of `vector`, treating all its entries as one vector."),
          lambda r, i: {"vector": g.arr(r, i, -9, 9, 1, empty=False)}),
        T("linalg.vector_norm.max", "largest_deviation", "vector", "return {linalg.vector_norm}(vector, ord=float('inf'))",
          ("A quality controller wants the largest absolute deviation in `vector` (flat list): the infinity norm. Return it.",),
          lambda r, i: {"vector": g.vec(r, r.randint(1, 7), -9, 9, 1)}),
    ]
