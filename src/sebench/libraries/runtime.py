"""Runtime of a package made from any library (copied verbatim into it as `_core.py`).

The package's `__init__.py` calls `_setup(module_name, namespace, key, blob)`: `blob` is the zlib-compressed
JSON configuration (public names and their targets, message words) XORed with a keystream derived from
`key` and base64-encoded, so no package file holds a readable pair of an original name and its new name.
This file names nothing of the wrapped library: every such name comes from the decoded blob.

What crosses the public surface is converted. Going out: builtin data passes (lists, tuples, dicts, sets and
the collections module's dicts and deque are converted item by item); instances of the library's public
classes become instances of the package's renamed classes; any other iterator, and an instance of a library
class outside the surface, becomes an instance of a package class named as the iterator type; a callable
becomes a package function. Going in, the package's wrappers are unwrapped and a program's callables are
wrapped so that they receive package values. An exception is re-raised as a builtin type (the first builtin
class of its type's bases) with the original's names in its message replaced by public ones, raised from here
so that no traceback frame runs through the original's files. The library's warnings are ignored, and cleaned
where a program shows every warning.
"""

import binascii as _binascii
import collections as _collections
import copy as _copy
import json as _json
import os as _os
import re as _re
import sys as _sys
import warnings as _warnings
import zlib as _zlib

_S = {}  # the package's runtime state, filled by _setup
_DATA = frozenset([int, float, complex, bool, str, bytes, type(None), range, slice, type(Ellipsis)])
_ADDRESS = _re.compile(r" at 0x[0-9a-fA-F]+")
# Attributes a wrapped value never shows: its own dunders (a generator's __name__ is the original's) and
# the ways to its frame and code (gi_frame, cr_code...).
_HIDDEN = ("_", "gi_", "cr_", "ag_")
_SPECIALS = ("__next__", "__len__", "__getitem__", "__contains__", "__bool__", "__eq__", "__lt__", "__le__",
             "__gt__", "__ge__", "__hash__", "__reversed__", "__call__", "__enter__", "__exit__")


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
    lib = __import__(cfg["M"])
    for part in cfg["M"].split(".")[1:]:
        lib = getattr(lib, part)
    _S.update(pkg=modname, top=cfg["M"].split(".")[0], iname=cfg["I"], words={**cfg["W"], **cfg["C"]},
              classes={}, proxies=set(), originals={})
    anywhere = "|".join(_re.escape(w) for w in sorted(cfg["W"], key=len, reverse=True))
    called = "|".join(_re.escape(w) for w in sorted(cfg["C"], key=len, reverse=True))
    # a name called, or in a repr: quoted, after `<`, `.`, "object ", "function " or "class " (`<generator object
    # name>`, `<function name.<locals>.inner>`), before `>`, a quote, `.`, `(` or a space
    _S["rule"] = _re.compile(r"\b(?:" + anywhere + r")\b|(?<![\w.])(?:" + called + r")(?=\()|(?:(?<=[<.'\"])|"
                             r"(?<=\bobject )|(?<=\bfunction )|(?<=\bclass ))(?:" + called + r")(?=[>'\".(\s]|$)")
    _S["iter"] = _iterator_type(cfg["I"])
    # the library's own warnings name it and its functions: ignored, as in NumPy's package, and cleaned where a
    # program shows them all (warnings.simplefilter("always"))
    _warnings.filterwarnings("ignore", module="^(" + _re.escape(_S["top"]) + "|" + _re.escape(modname) + r")(\.|$)")
    _clean_warnings()
    docs = _docs()
    names = []
    for pub, target in cfg["T"]:
        ns[pub] = _S["classes"][getattr(lib, target)] = _proxy_type(pub, getattr(lib, target), docs.get(pub))
        _S["proxies"].add(ns[pub])
        _S["originals"][ns[pub]] = getattr(lib, target)
        names.append(pub)
    for pub, target in cfg["F"]:
        ns[pub] = _function(getattr(lib, target), pub, docs.get(pub))
        names.append(pub)
    ns["_plain"] = _plain
    ns["__all__"] = sorted(names)


class _Warnings:
    """What the library's modules see as `warnings`: `warn` cleaned, the rest the warnings module's."""

    def __getattr__(self, name):
        return getattr(_warnings, name)

    @staticmethod
    def warn(message, category=None, stacklevel=1, source=None):
        cls = category if isinstance(category, type) and issubclass(category, Warning) else UserWarning
        cls = next((c for c in cls.__mro__ if c.__module__ == "builtins"), UserWarning)
        _warnings.warn_explicit(_clean(str(message)), cls, _S["pkg"], 0, module=_S["pkg"])


def _clean_warnings():
    """The library's modules warn through _Warnings (their global `warnings`, or `warn` imported from it)."""
    shim = _Warnings()
    for name, module in list(_sys.modules.items()):
        if name == _S["top"] or name.startswith(_S["top"] + "."):
            space = getattr(module, "__dict__", {})
            if space.get("warnings") is _warnings:
                space["warnings"] = shim
            if space.get("warn") is _warnings.warn:
                space["warn"] = shim.warn


def _docs():
    path = _os.path.join(_os.path.dirname(__file__), "_doc.bin")
    try:
        with open(path, "rb") as fh:
            return _json.loads(_zlib.decompress(fh.read()).decode("utf-8"))
    except OSError:
        return {}


# ---------------------------------------------------------------- values crossing the surface

def _out(v):
    """A value the library returns, as the package shows it."""
    t = type(v)
    if t in _DATA:
        return v
    if t is list:
        return [_out(x) for x in v]
    if t is tuple:
        return tuple(_out(x) for x in v)
    if t is dict:
        return {_out(k): _out(x) for k, x in v.items()}
    if t is set or t is frozenset:
        return t(_out(x) for x in v)
    if isinstance(v, dict) and t.__module__ == "collections":  # map_reduce's defaultdict: a copy, items converted
        w = _copy.copy(v)
        w.clear()
        w.update({_out(k): _out(x) for k, x in v.items()})
        return w
    if t is _collections.deque:
        return _collections.deque((_out(x) for x in v), v.maxlen)
    if t in _S["proxies"] or t is _S["iter"]:
        return v
    if isinstance(v, type) and v in _S["classes"]:
        return _S["classes"][v]
    for cls in t.__mro__:
        if cls in _S["classes"]:
            return _wrap(_S["classes"][cls], v)
    if hasattr(v, "__next__"):  # builtin iterators too: a zip or map runs the original's code lazily
        return _wrap(_S["iter"], v)
    if str(getattr(t, "__module__", "")).split(".")[0] == _S["top"] and not isinstance(v, BaseException):
        return _wrap(_other_type(t), v)
    if callable(v) and not isinstance(v, type):  # a bound builtin method (a generator's send) too
        return _callable(v, _out, _in)
    return v


def _in(v):
    """A value a program hands to the library: the package's wrappers unwrapped, its callables adapted."""
    t = type(v)
    if t in _DATA:
        return v
    if t in _S["proxies"] or t is _S["iter"]:
        return object.__getattribute__(v, "_v")
    if isinstance(v, type) and v in _S["originals"]:
        return _S["originals"][v]
    if t is list or t is tuple:
        if any(type(x) in _S["proxies"] or type(x) is _S["iter"] for x in v):
            return t(_in(x) for x in v)
        return v
    if callable(v) and not isinstance(v, type) and _foreign(t):
        return _callable(v, _in, _out)
    return v


def _foreign(t):
    """Whether a type is not builtin data: its instances would show their own module's names."""
    return t.__module__ != "builtins" or t.__name__ in ("generator", "function", "method")


def _wrap(cls, v):
    obj = object.__new__(cls)
    object.__setattr__(obj, "_v", v)
    return obj


def _callable(fn, result, argument):
    """A callable that converts its arguments with `argument` and its result with `result`."""

    def function(*args, **kwargs):
        try:
            r = fn(*[argument(a) for a in args], **{k: argument(x) for k, x in kwargs.items()})
        except BaseException as e:  # KeyboardInterrupt too: its frames would run through the original
            err = _translate(e)
        else:
            return result(r)
        raise err

    function.__module__ = _S["pkg"]
    function.__qualname__ = "function"
    return function


def _plain(v):
    """Plain data for the reference runner: the package's iterators as lists, tuples as lists."""
    t = type(v)
    if t in _DATA:
        return v
    if t is _S["iter"]:
        return [_plain(x) for x in v]
    if t in (list, tuple, set, frozenset):
        return [_plain(x) for x in v]
    if t is dict:
        return {k: _plain(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------- errors

def _clean(text):
    """A message without addresses, the module path and leak words anywhere, and the original's names
    where they are code: called (`name(`), quoted or after `<` or `.`."""
    return _S["rule"].sub(lambda m: _S["words"][m.group(0)], _ADDRESS.sub("", text))


def _translate(e):
    """The exception to raise instead of `e`: a builtin type with a cleaned message, and no frames."""
    if isinstance(e, StopIteration):
        return StopIteration(*[_out(a) for a in e.args])
    cls = next((c for c in type(e).__mro__ if c.__module__ == "builtins"), Exception)
    try:
        err = cls(_clean(str(e))) if e.args else cls()
    except Exception:
        err = Exception(_clean(str(e)))
    err.__cause__ = None
    err.__suppress_context__ = True
    return err


def _function(target, pub, doc):
    def function(*args, **kwargs):
        try:
            r = target(*[_in(a) for a in args], **{k: _in(x) for k, x in kwargs.items()})
        except BaseException as e:
            err = _translate(e)
        else:
            return _out(r)
        raise err

    function.__name__ = function.__qualname__ = pub
    function.__module__ = _S["pkg"]
    function.__doc__ = doc
    return function


# ---------------------------------------------------------------- the package's classes

def _method(name):
    def method(self, *args, **kwargs):
        try:
            r = getattr(object.__getattribute__(self, "_v"), name)(*[_in(a) for a in args],
                                                                   **{k: _in(x) for k, x in kwargs.items()})
        except BaseException as e:
            err = _translate(e)
        else:
            return _out(r)
        raise err

    method.__name__ = name
    return method


def _common(pub, specials):
    def __repr__(self):
        return "<" + _S["pkg"] + "." + pub + " object>"

    def __getattr__(self, name):
        if name.startswith(_HIDDEN):
            raise AttributeError("'" + pub + "' object has no attribute '" + name + "'")
        try:
            r = getattr(object.__getattribute__(self, "_v"), name)
        except BaseException as e:
            err = _translate(e)
        else:
            return _out(r)
        raise err

    def __iter__(self):
        v = object.__getattribute__(self, "_v")
        return self if hasattr(v, "__next__") else _out(iter(v))

    def __setattr__(self, name, value):  # `__class__` too: a class of the same layout would show `_v`
        raise AttributeError("'" + pub + "' object attributes are read-only")

    def __delattr__(self, name):
        __setattr__(self, name, None)

    def __copy__(self):
        return _wrap(type(self), object.__getattribute__(self, "_v"))

    ns = {"__repr__": __repr__, "__str__": __repr__, "__getattr__": __getattr__, "__iter__": __iter__,
          "__setattr__": __setattr__, "__delattr__": __delattr__, "__copy__": __copy__, "__module__": _S["pkg"],
          "__slots__": ("_v",)}
    for name in specials:
        ns[name] = _method(name)
    return ns


def _other_type(cls):
    """The package's class for instances of a library class outside the surface (made on first use, named
    as the iterator type: nothing of the original's name)."""
    if cls not in _S["classes"]:
        _S["classes"][cls] = type(_S["iname"], (), _common(_S["iname"], _specials(cls)))
        _S["proxies"].add(_S["classes"][cls])
    return _S["classes"][cls]


def _specials(cls):
    return [n for n in _SPECIALS if getattr(cls, n, None) is not None]


def _iterator_type(pub):
    return type(pub, (), _common(pub, ("__next__",)))


def _proxy_type(pub, target, doc):
    ns = _common(pub, _specials(target))
    ns["__doc__"] = doc
    constructor = _function(target, pub, doc)
    ns["__new__"] = lambda cls, *args, **kwargs: constructor(*args, **kwargs)
    if getattr(target, "__hash__", None) is None:
        ns["__hash__"] = None
    for name, value in vars(target).items():
        if not name.startswith("_") and isinstance(value, (staticmethod, classmethod)):
            ns[name] = staticmethod(_function(getattr(target, name), name, None))
    return type(pub, (), ns)
