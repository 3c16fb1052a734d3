"""Runtime of a generated package (copied verbatim into it as `_core.py`).

The package's `__init__.py` and submodule call `_setup(module_name, namespace, key, blob)`: `blob` is
the zlib-compressed JSON configuration (public names, their targets, the array type's name...) XORed
with a keystream derived from `key` and base64-encoded, so the source holds no readable table.
This file names nothing of the wrapped library itself: every such name comes from the decoded blob.

What crosses the public surface is converted: arrays become instances of the package's array type,
library scalars become Python scalars, tuples and named results are rebuilt from package values,
callables are wrapped in both directions, and the library's exceptions are re-raised as the
package's own (or builtin) classes with cleaned messages.

With SEBENCH_PACKAGE_SEMANTICS=original in the environment when the package is imported (the sandbox
sets it for the original benchmark's protocol), the package behaves as the original benchmark's package
did: arrays print their repr as `TypeName([...])`, functions return the library's scalars as they are,
the linear-algebra submodule returns the library's own results unconverted, arrays also offer `.T`
and their real dtype, and the library's warnings (divide by zero, ...) reach stderr as they did there.
"""

import binascii as _binascii
import collections as _collections
import importlib as _importlib
import json as _json
import os as _os
import re as _re
import warnings as _warnings
import zlib as _zlib

_S = {}  # the package's runtime state, filled by the root module's _setup
_SIMPLE = frozenset([int, float, complex, bool, str, bytes, type(None), slice, type(Ellipsis)])


def _decode(key, blob):
    raw = _binascii.a2b_base64(blob)
    x = int(key, 16)
    out = bytearray(len(raw))
    for i, b in enumerate(raw):
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        out[i] = b ^ (x >> 56)
    return _json.loads(_zlib.decompress(bytes(out)).decode("utf-8"))


def _setup(modname, ns, key, blob):
    cfg = _decode(key, blob)
    if "R" in cfg:
        _setup_root(modname, cfg["R"])
    for name, cls_spec in cfg.get("E", {}).items():
        ns[name] = _S["exc"][cls_spec]
    docs = _docs()
    names = []
    for pub, target in cfg["F"]:
        ns[pub] = _mkfunc(_resolve(target), pub, modname, docs.get(ns["__name__"] + "." + pub))
        names.append(pub)
    names.extend(cfg.get("E", {}))
    if "R" in cfg:
        ns[_S["tname"]] = _S["cls"]
        ns["_plain"] = _plain
        ns["_wrap"] = _wrap
        names.append(_S["tname"])
        names.append(_S["cfg"]["L"])
    ns["__all__"] = sorted(names)
    ns["__getattr__"] = _module_getattr(modname)


def _docs():
    if "docs" not in _S:
        path = _os.path.join(_os.path.dirname(__file__), "_doc.bin")
        try:
            with open(path, "rb") as fh:
                _S["docs"] = _json.loads(_zlib.decompress(fh.read()).decode("utf-8"))["d"]
        except OSError:
            _S["docs"] = {}
    return _S["docs"]


def _resolve(target):
    m = _S["lib"]
    if target.startswith("~r:"):
        return _repr_fn(_resolve(target[3:]))
    obj = m
    for part in _re.findall(r"[^.]+", target):
        obj = getattr(obj, part)
    return obj


def _setup_root(modname, cfg):
    _S["cfg"] = cfg
    _S["pkg"] = modname
    _S["original"] = _os.environ.get("SEBENCH_PACKAGE_SEMANTICS") == "original"
    _S["tname"] = cfg["T"]
    lib = _importlib.import_module(cfg["M"]["lb"])
    _S["lib"] = lib
    _S["nd"] = getattr(lib, cfg["M"]["nd"])
    _S["gen"] = getattr(lib, cfg["M"]["gen"])
    _S["dt"] = getattr(lib, cfg["M"]["dt"])
    _S["asarr"] = getattr(lib, cfg["M"]["asarr"])
    _S["lin_exc"] = _resolve(cfg["M"]["linexc"])
    _S["ax_exc"] = _resolve(cfg["M"]["axexc"])
    _S["names"] = cfg["N"]  # library function name -> public dotted name (for messages)
    _S["results"] = {}
    _S["repr_cls"] = type(cfg["C"].rsplit(".", 1)[1], (_S["nd"],), {})
    _S["exc"] = {
        "ax": type(cfg["XA"], (ValueError, IndexError), {"__module__": modname}),
        "lin": type(cfg["XL"], (ValueError,), {"__module__": modname + "." + cfg["L"]}),
    }
    _S["cls"] = _make_type(modname, cfg)
    _build_cleaner(cfg)
    if not _S["original"]:  # the original package let the library's warnings through, to stderr
        _warnings.filterwarnings("ignore", module="^(" + _re.escape(cfg["M"]["lb"]) + "|" + _re.escape(modname)
                                 + r")(\.|$)")


# ---------------------------------------------------------------- conversion across the surface

def _mk(v):
    obj = object.__new__(_S["cls"])
    _S["set"](obj, v)
    return obj


def _wrap(v):
    """A package array around `v` (any array-like)."""
    nd = _S["nd"]
    if type(v) is not nd:
        v = _S["asarr"](v)
        if type(v) is not nd:
            v = v.view(nd)
    return _mk(v)


def _wrapval(v):
    t = type(v)
    if t in _SIMPLE:
        return v
    if t is _S["nd"]:
        return _mk(v)
    if isinstance(v, _S["gen"]):
        return v.item()
    if isinstance(v, _S["nd"]):
        return _mk(v.view(_S["nd"]))
    if isinstance(v, tuple):
        items = [_wrapval(x) for x in v]
        fields = getattr(t, "_fields", None)
        if fields is not None:
            return _result_type(tuple(fields))(*items)
        return tuple(items)
    if t is list:
        return [_wrapval(x) for x in v]
    if isinstance(v, _S["dt"]):
        return str(v)
    if t is dict:
        return {k: _wrapval(x) for k, x in v.items()}
    if isinstance(v, _S["cls"]) or isinstance(v, type):
        return v
    if callable(v):
        return _adapt_out(v)
    return v


def _result_type(fields):
    cache = _S["results"]
    if fields not in cache:
        cache[fields] = _collections.namedtuple("Result", fields, module=_S["pkg"])
    return cache[fields]


def _unwrap(v):
    t = type(v)
    if t in _SIMPLE:
        return v
    cls = _S["cls"]
    if t is cls:
        return _S["get"](v)
    if t is list or t is tuple:
        for x in v:
            if type(x) not in _SIMPLE:
                break
        else:
            return v
        items = [_unwrap(x) for x in v]
        return items if t is list else tuple(items)
    if t is dict:
        return {k: _unwrap(x) for k, x in v.items()}
    if isinstance(v, cls):
        return _S["get"](v)
    if isinstance(v, type) or isinstance(v, _S["nd"]) or isinstance(v, _S["gen"]):
        return v
    if callable(v):
        return _adapt_in(v)
    return v


def _adapt_in(fn):
    """A user callable handed to the library: it receives package values and may return them."""

    def _callback(*args, **kwargs):
        args = [_wrapval(a) for a in args]
        kwargs = {k: _wrapval(x) for k, x in kwargs.items()}
        return _unwrap(fn(*args, **kwargs))

    return _callback


def _adapt_out(fn):
    """A callable made by the library (a vectorized function): package values in and out."""

    def _vectorized(*args, **kwargs):
        try:
            r = fn(*[_unwrap(a) for a in args], **{k: _unwrap(x) for k, x in kwargs.items()})
        except Exception as e:
            err = _translate(e)
        else:
            return _wrapval(r)
        raise err

    _vectorized.__module__ = _S["pkg"]
    return _vectorized


def _plain(v):
    """Plain Python data: arrays -> nested lists, tuples/named results -> lists, scalars unchanged."""
    t = type(v)
    if t in _SIMPLE:
        return v
    if isinstance(v, _S["cls"]):
        v = _S["get"](v)
    if isinstance(v, _S["nd"]):
        data = v.tolist()
        if v.dtype.kind == "O":
            data = _plain(data)
        return data
    if isinstance(v, _S["gen"]):
        return _plain(v.item())
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------- errors

def _translate(e, pub=None):
    """The exception to raise instead of `e`: library classes become the package's or builtins."""
    t = type(e)
    home = getattr(t, "__module__", "") or ""
    libname = _S["cfg"]["M"]["lb"]
    if home == libname or home.startswith(libname + "."):
        if isinstance(e, _S["lin_exc"]):
            cls = _S["exc"]["lin"]
        elif isinstance(e, _S["ax_exc"]):
            cls = _S["exc"]["ax"]
        else:
            cls = next((c for c in t.__mro__ if c.__module__ == "builtins"), Exception)
        return cls(_clean(str(e), pub))
    if home == "builtins":
        if not e.args:
            return e
        if len(e.args) == 1 and isinstance(e.args[0], str):
            text = _clean(e.args[0], pub)
            try:
                return t(text)
            except Exception:
                return e
        text = _clean(str(e), pub)
        try:
            return t(text)
        except Exception:
            return e
    return e


def _build_cleaner(cfg):
    m = cfg["M"]
    lib = _re.escape(m["lb"])
    short = _re.escape(m["short"])
    pkg, tname = _S["pkg"], cfg["T"]
    names = cfg["N"]
    ctor = cfg["C"]
    extra = {m["nd"]: tname, m["linexc_short"]: pkg + "." + cfg["L"] + "." + cfg["XL"],
             m["axexc_short"]: pkg + "." + cfg["XA"], m["lin"]: pkg + "." + cfg["L"]}
    disp = m["disp"]

    reverse = {}
    for libname, pubname in names.items():
        reverse.setdefault(pubname, libname.rsplit(".", 1)[-1])

    def lookup(name):
        base = name.lstrip("_")
        if base.endswith(disp):
            base = base[: -len(disp)]
        current = _S.get("current")
        if current and reverse.get(current) == base:
            return current
        return names.get(base)

    def dotted(mt):
        parts = _re.findall(r"[^.]+", mt.group(1))
        if len(parts) >= 2 and parts[0] == m["lin"] and (m["lin"] + "." + parts[1]) in names:
            return names[m["lin"] + "." + parts[1]]
        last = parts[-1]
        if last in extra:
            return extra[last]
        return names.get(last, last.lstrip("_"))

    def method(mt):
        pubname = lookup(mt.group(2))
        if pubname is None:
            return mt.group(0)
        return pubname + "(" + mt.group(1) + ")"

    def call(mt):
        pubname = lookup(mt.group(1))
        if pubname is None:
            if mt.group(1).endswith(disp) and _S.get("current"):
                return _S["current"].rsplit(".", 1)[1] + "()"
            return mt.group(0)
        return pubname.rsplit(".", 1)[1] + "()"

    def quoted(mt):
        pubname = lookup(mt.group(1))
        return "function '" + (pubname.rsplit(".", 1)[1] if pubname else mt.group(1)) + "'"

    rules = [
        (_re.compile(r"\b(?:" + lib + "|" + short + r")\.((?:\w+\.)*\w+)"), dotted),
        (_re.compile(r"\b" + _re.escape(m["nd"]) + r"\b"), tname),
        (_re.compile(r"\b" + _re.escape(m["uf"]) + r" '(\w+)'"), quoted),
        (_re.compile(r"\bg?" + _re.escape(m["uf"]) + r"(s?)\b"), r"function\1"),
        (_re.compile(r"^(\w+)(?=: )"), lambda mt: (lookup(mt.group(1)) or mt.group(1)).rsplit(".", 1)[-1]),
        (_re.compile(r"\b([A-Za-z_]\w*)\.(\w+)\(\)"), method),
        (_re.compile(r"\b(\w+)\(\)"), call),
        (_re.compile(r"\b" + _re.escape(m["ctor"]) + r"\("), ctor.rsplit(".", 1)[1] + "("),
        (_re.compile(r"\b" + _re.escape(m["dt"]) + r"\('([^']*)'\)"), r"'\1'"),
        (_re.compile(r"\b" + lib + r"\b", _re.IGNORECASE), pkg),
    ]
    _S["rules"] = rules


def _clean(text, pub=None):
    _S["current"] = pub
    for rx, repl in _S["rules"]:
        text = rx.sub(repl, text)
    return text


# ---------------------------------------------------------------- public functions

def _mkfunc(target, pub, modname, doc):
    def _function(*args, **kwargs):
        try:
            r = target(*[_unwrap(a) for a in args], **{k: _unwrap(x) for k, x in kwargs.items()})
        except Exception as e:
            err = _translate(e, modname + "." + pub)
        else:
            if kwargs and "out" in kwargs and type(r) is _S["nd"]:
                o = kwargs["out"]
                if isinstance(o, _S["cls"]) and _S["get"](o) is r:
                    return o
            return _original_result(r, modname != _S["pkg"]) if _S["original"] else _wrapval(r)
        raise err

    _function.__name__ = pub
    _function.__qualname__ = pub
    _function.__module__ = modname
    _function.__doc__ = doc
    return _function


def _original_result(v, raw):
    """A function result as the original package gave it: the linear-algebra submodule's as it is (raw),
    else arrays wrapped (also inside lists, tuples and dict values) and everything else untouched."""
    nd = _S["nd"]
    if raw:
        return v
    if isinstance(v, nd):
        return _wrap(v)
    if isinstance(v, (list, tuple)) and [x for x in v if isinstance(x, nd)]:
        return type(v)(_original_result(x, False) for x in v)
    if isinstance(v, dict):
        return {k: _original_result(x, False) for k, x in v.items()}
    return v


def _repr_fn(target):
    def _text(arr, *args, **kwargs):
        return target(_S["asarr"](arr).view(_S["repr_cls"]), *args, **kwargs)

    return _text


def _module_getattr(modname):
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        if _is_lib_name(name):
            raise AttributeError(f"module '{modname}' has no attribute of that name; see its documentation "
                                 "for the functions it provides")
        raise AttributeError(f"module '{modname}' has no attribute '{name}'")

    return __getattr__


def _is_lib_name(name):
    names = _S["names"]
    return name in names or (_S["cfg"]["M"]["lin"] + "." + name) in names


# ---------------------------------------------------------------- the array type

def _guard(fn):
    def _method(*args):
        try:
            r = fn(*args)
        except Exception as e:
            err = _translate(e)
        else:
            return r
        raise err

    return _method


def _binary(op):
    return _guard(lambda self, other: _wrapval(op(_S["get"](self), _unwrap(other))))


def _inplace(op):
    def _apply(self, other):
        op(_S["get"](self), _unwrap(other))
        return self

    return _guard(_apply)


def _unary(op):
    return _guard(lambda self: _wrapval(op(_S["get"](self))))


_BINARY = {
    "__add__": lambda a, b: a + b, "__radd__": lambda a, b: b + a,
    "__sub__": lambda a, b: a - b, "__rsub__": lambda a, b: b - a,
    "__mul__": lambda a, b: a * b, "__rmul__": lambda a, b: b * a,
    "__truediv__": lambda a, b: a / b, "__rtruediv__": lambda a, b: b / a,
    "__floordiv__": lambda a, b: a // b, "__rfloordiv__": lambda a, b: b // a,
    "__mod__": lambda a, b: a % b, "__rmod__": lambda a, b: b % a,
    "__pow__": lambda a, b: a ** b, "__rpow__": lambda a, b: b ** a,
    "__matmul__": lambda a, b: a @ b, "__rmatmul__": lambda a, b: b @ a,
    "__and__": lambda a, b: a & b, "__rand__": lambda a, b: b & a,
    "__or__": lambda a, b: a | b, "__ror__": lambda a, b: b | a,
    "__xor__": lambda a, b: a ^ b, "__rxor__": lambda a, b: b ^ a,
    "__lshift__": lambda a, b: a << b, "__rlshift__": lambda a, b: b << a,
    "__rshift__": lambda a, b: a >> b, "__rrshift__": lambda a, b: b >> a,
    "__divmod__": lambda a, b: type(a).__divmod__(a, b), "__rdivmod__": lambda a, b: type(a).__rdivmod__(a, b),
    "__eq__": lambda a, b: a == b, "__ne__": lambda a, b: a != b,
    "__lt__": lambda a, b: a < b, "__le__": lambda a, b: a <= b,
    "__gt__": lambda a, b: a > b, "__ge__": lambda a, b: a >= b,
}


def _ia(a, b):
    a += b


def _is(a, b):
    a -= b


def _im(a, b):
    a *= b


def _itd(a, b):
    a /= b


def _ifd(a, b):
    a //= b


def _imo(a, b):
    a %= b


def _ip(a, b):
    a **= b


def _imm(a, b):
    a @= b


def _iand(a, b):
    a &= b


def _ior(a, b):
    a |= b


def _ixor(a, b):
    a ^= b


def _ils(a, b):
    a <<= b


def _irs(a, b):
    a >>= b


_INPLACE = {
    "__iadd__": _ia, "__isub__": _is, "__imul__": _im, "__itruediv__": _itd, "__ifloordiv__": _ifd,
    "__imod__": _imo, "__ipow__": _ip, "__imatmul__": _imm, "__iand__": _iand, "__ior__": _ior,
    "__ixor__": _ixor, "__ilshift__": _ils, "__irshift__": _irs,
}

_UNARY = {
    "__neg__": lambda a: -a, "__pos__": lambda a: +a, "__invert__": lambda a: ~a,
    "__abs__": lambda a: type(a).__abs__(a),
}


_ORIGINAL_OPERATORS = frozenset((
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__pow__", "__rpow__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
))
# without these, truth falls back to the length, formatting to str, membership to iteration (as there)
_NOT_IN_ORIGINAL = ("__bool__", "__float__", "__int__", "__complex__", "__index__", "__contains__", "__format__")


def _make_type(modname, cfg):
    slot = cfg["S"]
    tname = cfg["T"]
    attrs = cfg["M"]["attrs"]  # the four public attribute names
    ctor = _resolve(cfg["M"]["ctor"])

    def _new(cls, *args, **kwargs):
        try:
            r = ctor(*[_unwrap(a) for a in args], **{k: _unwrap(x) for k, x in kwargs.items()})
        except Exception as e:
            err = _translate(e, cfg["C"])
        else:
            return _wrap(r)
        raise err

    def _getattr(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        what = "of that name" if _is_lib_name(name) or name in _S["cfg"]["M"]["blocked"] else f"'{name}'"
        hint = (f"'{tname}' object has no attribute {what}; apart from {', '.join(attrs)} its arrays offer "
                f"no methods or attributes: use the functions of the '{modname}' package instead")
        raise AttributeError(hint)

    def _repr(self):
        if _S["original"]:
            return f"{tname}({_S['get'](self).tolist()!r})"
        return _S["lib_repr"](_S["get"](self).view(_S["repr_cls"]))

    def _str(self):
        return str(_S["get"](self))

    def _format(self, spec):
        v = _S["get"](self)
        if not spec:
            return str(self)
        if v.ndim == 0:
            return format(v.item(), spec)
        raise TypeError(f"unsupported format string passed to {tname}.__format__")

    def _len(self):
        return len(_S["get"](self))

    def _iter(self):
        return map(_wrapval, iter(_S["get"](self)))

    def _getitem(self, index):
        return _wrapval(_S["get"](self)[_unwrap(index)])

    def _setitem(self, index, value):
        v = _S["get"](self)
        v[_unwrap(index)] = value if v.dtype.kind == "O" else _unwrap(value)

    def _contains(self, value):
        return _unwrap(value) in _S["get"](self)

    def _reduce(self):
        return (type(self), (_S["get"](self),))

    def _copy(self):
        v = _S["get"](self)
        return _mk(type(v).__copy__(v))

    def _deepcopy(self, memo):
        v = _S["get"](self)
        return _mk(type(v).__deepcopy__(v, memo))

    def _dir(self):
        return sorted(attrs)

    def _lib_protocol(self, *args, **kwargs):
        return _S["asarr"](_S["get"](self), *args, **kwargs)

    def _original_protocol(self):  # the original package's takes no dtype: the library fails where it asks for one
        return _S["get"](self)

    ns = {
        "__slots__": (slot,),
        "__module__": modname,
        "__qualname__": tname,
        "__doc__": f"An n-dimensional array of the '{modname}' package; create one with {cfg['C']}(...).",
        "__hash__": None,
        "__new__": _new,
        "__getattr__": _getattr,
        "__repr__": _guard(_repr),
        "__str__": _guard(_str),
        "__format__": _guard(_format),
        "__len__": _guard(_len),
        "__iter__": _guard(_iter),
        "__getitem__": _guard(_getitem),
        "__setitem__": _guard(_setitem),
        "__contains__": _guard(_contains),
        "__bool__": _guard(lambda self: bool(_S["get"](self))),
        "__float__": _guard(lambda self: float(_S["get"](self))),
        "__int__": _guard(lambda self: int(_S["get"](self))),
        "__complex__": _guard(lambda self: complex(_S["get"](self))),
        "__index__": _guard(lambda self: type(_S["get"](self)).__index__(_S["get"](self))),
        "__reduce__": _reduce,
        "__copy__": _copy,
        "__deepcopy__": _deepcopy,
        "__dir__": _dir,
    }
    binary, inplace, unary = _BINARY, _INPLACE, _UNARY
    if _S["original"]:  # the original package's array type had only these operators and conversions
        binary = {k: op for k, op in _BINARY.items() if k in _ORIGINAL_OPERATORS}
        inplace, unary = {}, {}
        for name in _NOT_IN_ORIGINAL:
            del ns[name]
    for name, op in binary.items():
        ns[name] = _binary(op)
    for name, op in inplace.items():
        ns[name] = _inplace(op)
    for name, op in unary.items():
        ns[name] = _unary(op)
    cls = type(tname, (), ns)
    setattr(cls, cfg["M"]["proto"], _original_protocol if _S["original"] else _lib_protocol)
    for i, name in enumerate(attrs):
        setattr(cls, name, property(_attr_getter(name, i == 3 and not _S["original"]), doc=f"the array's {name}"))
    if _S["original"]:
        cls.T = property(lambda self: _S["get"](self).T, doc="the transposed array (the library's own)")
    desc = cls.__dict__[slot]
    _S["get"] = desc.__get__
    _S["set"] = desc.__set__
    _S["lib_repr"] = _resolve(cfg["M"]["reprfn"])
    return cls


def _attr_getter(name, as_text):
    def _get(self):
        value = getattr(_S["get"](self), name)
        return str(value) if as_text else value

    return _get
