"""The package's own array type: operators, indexing, conversions and blocked NumPy attributes."""

import copy
import math
import operator
import pickle
import re

import numpy as np
import pytest

F2 = [[1.5, -2.0, 0.25], [3.0, 4.5, -1.0]]
I2 = [[1, 2, 3], [4, 5, 6]]


@pytest.fixture
def mk(gen0):
    ctor = gen0.fn("numpy.array")
    return ctor


def plain(gen, v):
    return gen.module._plain(v)


def test_constructor_result_type_and_public_attributes(gen0, mk):
    a = mk(F2)
    assert type(a) is gen0.array_type
    assert a.shape == (2, 3) and type(a.shape[0]) is int
    assert a.ndim == 2 and a.size == 6 and a.dtype == "float64" and type(a.dtype) is str
    assert mk([1, 2], dtype="int8").dtype == "int8"
    assert mk([1, 2], dtype=float).dtype == "float64"
    assert sorted(dir(a)) == ["dtype", "ndim", "shape", "size"]
    b = gen0.array_type([[1, 2]], dtype=float)
    assert type(b) is gen0.array_type and plain(gen0, b) == [[1.0, 2.0]]


def test_repr_and_str_name_no_numpy(gen0, mk):
    ctor = gen0.names.constructor.rsplit(".", 1)[1]
    a = mk([1, 2, 3])
    assert repr(a) == f"{ctor}([1, 2, 3])"
    assert str(a) == "[1 2 3]"
    assert repr(mk([1.0, 2.0], dtype="float32")) == f"{ctor}([1., 2.], dtype=float32)"
    for v in (mk(F2), mk([]), mk(3.5), mk([1 + 2j]), mk([True]), mk(["a"])):
        for text in (repr(v), str(v)):
            assert "numpy" not in text.lower() and "array(" not in text and "ndarray" not in text
    two_rows = repr(mk(I2)).split("\n")
    assert two_rows[1].startswith(" " * (len(ctor) + 2) + "[4")


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                                operator.mod, operator.pow, operator.eq, operator.ne, operator.lt, operator.le,
                                operator.gt, operator.ge])
@pytest.mark.parametrize("other", [2, 1.5, [1.0, 2.0, 4.0], "array"])
def test_binary_operators_match_numpy(gen0, mk, op, other):
    x = np.array(F2)
    o_np = np.array(I2) if other == "array" else other
    o_pkg = mk(I2) if other == "array" else other
    with np.errstate(all="ignore"):
        for left, right, l_pkg, r_pkg in ((x, o_np, mk(F2), o_pkg), (o_np, x, o_pkg, mk(F2))):
            want = op(left, right)
            got = op(l_pkg, r_pkg)
            assert type(got) is gen0.array_type
            assert got.dtype == str(want.dtype)
            assert np.array_equal(np.array(plain(gen0, got)), want, equal_nan=True)


def test_integer_bitwise_matmul_divmod_and_unary(gen0, mk):
    a, b = mk([12, 5, -3]), mk([3, 1, 2])
    na, nb = np.array([12, 5, -3]), np.array([3, 1, 2])
    for op in (operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift):
        assert plain(gen0, op(a, b)) == op(na, nb).tolist()
        assert plain(gen0, op(5, b)) == op(5, nb).tolist()
    assert plain(gen0, -a) == (-na).tolist() and plain(gen0, +a) == na.tolist()
    assert plain(gen0, abs(a)) == abs(na).tolist() and plain(gen0, ~a) == (~na).tolist()
    q, r = divmod(a, b)
    assert (plain(gen0, q), plain(gen0, r)) == tuple(x.tolist() for x in divmod(na, nb))
    q, r = divmod(7, b)
    assert (plain(gen0, q), plain(gen0, r)) == tuple(x.tolist() for x in divmod(7, nb))
    m = mk([[1, 2], [3, 4]])
    assert plain(gen0, m @ m) == [[7, 10], [15, 22]]
    assert plain(gen0, [[1, 0], [0, 1]] @ m) == [[1, 2], [3, 4]]
    with pytest.raises(TypeError):  # as NumPy: arrays define no __round__
        round(mk([1.26, 2.5]), 1)


def test_inplace_operators_keep_the_object(gen0, mk):
    a = mk([1.0, 2.0])
    alias = a
    a += 1
    a *= mk([2.0, 3.0])
    a **= 2
    assert a is alias and plain(gen0, a) == [16.0, 81.0]
    i = mk([1, 2])
    with pytest.raises(TypeError) as info:
        i /= 2
    assert "numpy" not in str(info.value).lower()


def test_indexing_slicing_and_setitem(gen0, mk):
    a = mk(I2)
    assert a[0, 1] == 2 and type(a[0, 1]) is int
    assert type(a[0]) is gen0.array_type and plain(gen0, a[0]) == [1, 2, 3]
    assert plain(gen0, a[:, 1:]) == [[2, 3], [5, 6]]
    assert plain(gen0, a[-1, ::-1]) == [6, 5, 4]
    assert plain(gen0, a[..., 0]) == [1, 4] and a[None].shape == (1, 2, 3)
    assert plain(gen0, a[a > 3]) == [4, 5, 6]
    assert plain(gen0, a[mk([1, 0])]) == [[4, 5, 6], [1, 2, 3]]
    assert plain(gen0, a[[0, 1], [2, 0]]) == [3, 4]
    assert plain(gen0, a[mk(1)]) == [4, 5, 6]
    a[0, 0] = 10
    a[1] = mk([7, 8, 9])
    a[a > 8] = 0
    assert plain(gen0, a) == [[0, 2, 3], [7, 8, 0]]
    with pytest.raises(IndexError):
        a[5]
    with pytest.raises(IndexError) as info:
        a["x"]
    assert "numpy" not in str(info.value).lower()
    b = mk([1.5, 2.5])
    assert type(b[0]) is float and type(mk([True])[0]) is bool and type(mk([1j])[0]) is complex


def test_iteration_len_contains_and_conversions(gen0, mk):
    a = mk(I2)
    rows = list(a)
    assert len(rows) == 2 and all(type(r) is gen0.array_type for r in rows)
    assert [type(x) for x in mk([1, 2])] == [int, int] and len(a) == 2
    assert 5 in a and 7 not in a
    assert float(mk(2.5)) == 2.5 and int(mk(3)) == 3 and complex(mk(1j)) == 1j
    assert [10, 20, 30][mk(1)] == 20
    assert bool(mk([1])) is True and bool(mk(0)) is False
    for bad in (mk([1, 2]), mk([])):
        with pytest.raises(ValueError) as info:
            bool(bad)
        text = str(info.value)
        assert "numpy" not in text.lower() and ".any()" not in text and ".all()" not in text
    with pytest.raises(ValueError, match="ambiguous"):
        if mk([1, 2]) > 0:
            pass
    with pytest.raises(TypeError):
        float(mk([2.5]))
    with pytest.raises(TypeError):
        iter(mk(3))
    with pytest.raises(TypeError):
        len(mk(3))
    with pytest.raises(TypeError):
        hash(a)


def test_format_copy_pickle(gen0, mk):
    assert f"{mk(2.5):.2f}" == "2.50" and f"{mk([1, 2])}" == "[1 2]"
    with pytest.raises(TypeError) as info:
        f"{mk([1.0, 2.0]):.2f}"
    assert "numpy" not in str(info.value).lower()
    a = mk(F2)
    for b in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert type(b) is gen0.array_type and plain(gen0, b) == F2
    b = copy.copy(a)
    b[0, 0] = 99.0
    assert plain(gen0, a)[0][0] == 1.5


def test_out_argument_returns_the_same_object(gen0, mk):
    out = mk([0.0, 0.0])
    r = gen0.fn("numpy.add")(mk([1.0, 2.0]), 1.0, out=out)
    assert r is out and plain(gen0, out) == [2.0, 3.0]


def _numpy_attribute_names():
    return sorted(n for n in dir(np.ndarray) if not n.startswith("_") and n not in ("shape", "ndim", "size", "dtype"))


def test_numpy_methods_and_attributes_are_blocked(gen0, mk):
    a = mk(F2)
    numpy_names = {f.rsplit(".", 1)[1] for f in gen0.names.mapping()["functions"]} | set(_numpy_attribute_names())
    for name in [*_numpy_attribute_names(), "_data", "data", "base", "_mask", "mean", "tolist", "T", "reshape"]:
        with pytest.raises(AttributeError) as info:
            getattr(a, name)
        msg = str(info.value)
        assert "numpy" not in msg.lower() and "ndarray" not in msg
        words = set(re.findall(r"[A-Za-z_]\w*", msg))
        assert not (words & numpy_names - {"shape", "ndim", "size", "dtype"}), (name, msg)
    with pytest.raises(AttributeError):
        a.shape = (3, 2)
    with pytest.raises(AttributeError):
        a.anything = 1


def test_exceptions_are_the_packages_own(gen0, mk):
    inv = gen0.fn("numpy.linalg.inv")
    with pytest.raises(ValueError) as info:
        inv(mk([[1.0, 2.0], [2.0, 4.0]]))
    lin_err = getattr(getattr(gen0.module, gen0.names.linalg), gen0.names.linalg_error)
    assert type(info.value) is lin_err and issubclass(lin_err, ValueError)
    ax_err = getattr(gen0.module, gen0.names.axis_error)
    with pytest.raises(ax_err) as info:
        gen0.fn("numpy.sum")(mk([1, 2]), axis=3)
    assert isinstance(info.value, IndexError) and isinstance(info.value, ValueError)
    assert info.value.__cause__ is None and info.value.__context__ is None
    with pytest.raises(TypeError) as info:
        gen0.fn("numpy.mean")(mk([1.0]), nonsense=1)
    assert gen0.names.functions["numpy.mean"].rsplit(".", 1)[1] in str(info.value)
    assert "mean" not in str(info.value)


def test_plain_and_wrap_helpers(gen0, mk):
    p, w = gen0.module._plain, gen0.module._wrap
    assert p(mk(F2)) == F2 and p(mk(3)) == 3 and type(p(mk(2.5))) is float
    assert p((mk([1]), 2, "x", None)) == [[1], 2, "x", None]
    eig = gen0.fn("numpy.linalg.eig")(mk([[2.0, 0.0], [0.0, 3.0]]))
    assert p(eig) == [[2.0, 3.0], [[1.0, 0.0], [0.0, 1.0]]]
    assert type(w(np.arange(3))) is gen0.array_type and p(w(np.arange(3))) == [0, 1, 2]
    assert math.isnan(p(mk([float("nan")]))[0])
