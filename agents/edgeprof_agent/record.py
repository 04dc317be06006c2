"""The record machinery the protocol's messages are declared with (messages.py): a Field per value, with its
types, default and nested record, and Record, whose strict from_dict names the field that is wrong.

Owns: declaring, validating, copying and serialising records, and the packed wire form of a long list of
integers (PackedInt64: the run reply's latency samples, protocol 9; compressed, and the scenario's times too,
protocol 10). Does not own: the messages themselves (messages.py), framing (protocol.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

import array
import base64
import binascii
import copy
import struct
import sys
import zlib


class MessageError(ValueError):
    """A message does not match its record: names the field (path) and what is wrong."""

    def __init__(self, where, problem):
        ValueError.__init__(self, "%s: %s" % (where, problem))
        self.where = where
        self.problem = problem


class _Required(object):
    def __repr__(self):
        return "REQUIRED"


REQUIRED = _Required()

_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
               dict: "an object"}


def type_name(value):
    if value is None:
        return "null"
    for t in (bool, int, float, str, list, dict):
        if isinstance(value, t):
            return _TYPE_NAMES[t].split(" ", 1)[1]
    return type(value).__name__


class Int64s(array.array):
    """int64 values as a record holds a packed list it read: 8 bytes a value (a Python list of ints holds about
    36), in order, and equal to a list of the same values. Build one with Int64s("q"[, values])."""

    def __eq__(self, other):
        if isinstance(other, list):
            return len(self) == len(other) and self.tolist() == other
        return array.array.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None


class PackedInt64(object):
    """A list of integers on the wire as one object (exact: every value as it was, in order; one string to
    encode and parse instead of one JSON number per value).

    Protocol 10 (what `encode` writes): {"dtype": "<i8", "codec": "shuffle8+zlib", "n": N, "b64": ...}: the N
    values as little-endian int64, their bytes regrouped by position (every value's byte 0, then every byte 1,
    ... byte 7: the high bytes of latencies are mostly zero, so zlib packs them to almost nothing), compressed
    with zlib (level 1), in base64; about 2.4 bytes a latency on the wire (benchmarks/sustained_samples.py).
    Protocol 9: {"dtype": "<i8", "b64": base64 of the values as little-endian int64}. `decode` takes either
    (and the field also takes the plain JSON list of integers an agent of protocol <= 8 sends) and gives an
    Int64s; a payload that does not unpack to exactly N values, or N over MAX_VALUES, is a MessageError naming
    the field."""

    DTYPE = "<i8"
    CODEC = "shuffle8+zlib"
    MAX_VALUES = 1 << 28  # 2 GiB of int64: more than a 30-minute run at 100 000 queries/s holds
    _KEYS_9 = frozenset(("dtype", "b64"))
    _KEYS_10 = frozenset(("dtype", "codec", "n", "b64"))

    def encode(self, values):
        data = _int64_bytes(values)
        z = zlib.compressobj(1)  # level 6 packs 3 % tighter and takes 40 % longer (benchmarks/sustained_samples.py)
        parts = []
        for i in range(8):  # one byte position at a time: no regrouped copy of the whole
            plane = data[i::8]
            parts.append(z.compress(plane if isinstance(plane, bytes) else plane.tobytes()))
        parts.append(z.flush())
        del data, plane
        return {"dtype": self.DTYPE, "codec": self.CODEC, "n": len(values),
                "b64": base64.b64encode(b"".join(parts)).decode("ascii")}

    def decode(self, raw, where):
        """The values the object holds (an Int64s); MessageError naming the field for a wrong dtype, codec or
        payload."""
        keys = frozenset(raw)
        if keys not in (self._KEYS_9, self._KEYS_10):
            raise MessageError(where, "expected an object {dtype, b64} or {dtype, codec, n, b64}, got keys %s"
                               % sorted(raw))
        if raw["dtype"] != self.DTYPE:
            raise MessageError(where + ".dtype", "expected %r, got %r" % (self.DTYPE, raw["dtype"]))
        if not isinstance(raw["b64"], str):
            raise MessageError(where + ".b64", "expected a string, got %s" % type_name(raw["b64"]))
        n = raw.get("n")
        if keys == self._KEYS_10:
            if raw["codec"] != self.CODEC:
                raise MessageError(where + ".codec", "expected %r, got %r" % (self.CODEC, raw["codec"]))
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= self.MAX_VALUES:
                raise MessageError(where + ".n", "expected a count from 0 to %d, got %r" % (self.MAX_VALUES, n))
        try:
            data = base64.b64decode(raw["b64"].encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):  # the library's words differ between Python versions
            raise MessageError(where + ".b64", "not valid base64")
        if n is not None:
            data = _unshuffle(_inflate(data, 8 * n, where), n)
        if len(data) % 8:
            raise MessageError(where + ".b64", "%d bytes is not a whole number of int64 values" % len(data))
        return _int64_array(data)


def _inflate(data, size, where):
    """zlib data that holds exactly `size` bytes (never inflating more than that: a bomb stops there)."""
    z = zlib.decompressobj()
    try:
        out = z.decompress(data, size) if size else z.decompress(data, 1)
    except zlib.error:
        raise MessageError(where + ".b64", "not valid zlib data")
    if len(out) != size or z.unconsumed_tail or not z.eof:
        raise MessageError(where + ".b64", "does not hold exactly n int64 values")
    return out


def _unshuffle(data, n):
    """Byte position planes (every value's byte 0, then byte 1, ...) back to little-endian int64 values."""
    out = bytearray(8 * n)
    view = memoryview(data)
    for i in range(8):
        out[i::8] = view[i * n:(i + 1) * n]
    return out


_Q8 = array.array("q").itemsize == 8  # C long long: 8 bytes on every platform CPython runs on


def _int64_bytes(values):
    """The values as little-endian int64 bytes, or a byte view of them (no copy: an array("q") or a numpy int64
    array on a little-endian machine); OverflowError past the int64 range."""
    if not _Q8:  # pragma: no cover - no such platform known
        return struct.pack("<%dq" % len(values), *values)
    if not isinstance(values, (list, tuple)) and sys.byteorder == "little":
        try:  # a buffer of 8-byte integers (array("q"), the host's numpy int64 arrays): its bytes as they are
            view = memoryview(values)
        except TypeError:
            view = None
        if view is not None and view.ndim == 1 and view.itemsize == 8 and view.format.lstrip("<=@") in ("q", "l"):
            return view.cast("B") if view.c_contiguous else view.tobytes()
    a = values if isinstance(values, array.array) and values.typecode == "q" else array.array("q", values)
    if sys.byteorder == "big":
        a = array.array("q", a)
        a.byteswap()
    return a.tobytes()


def _int64_array(data):
    if not _Q8:  # pragma: no cover - no such platform known
        return Int64s("q", struct.unpack("<%dq" % (len(data) // 8), data))
    a = Int64s("q")
    a.frombytes(data)
    if sys.byteorder == "big":
        a.byteswap()
    return a


PACKED_INT64 = PackedInt64()


class Field(object):
    """One field: its JSON types, its default (REQUIRED when it must be sent), and a record type for nested
    records (`record=`) or lists of records (`many=True`), or the type of a plain list's items (`of=`; null items
    too with `nullable_items=True`), or an object of records by name (`record=` with `keyed=True`). None is
    allowed when the default is None or `nullable=True`. `packed`: the list's form on the wire (PACKED_INT64:
    to_dict writes it packed; from_dict takes the packed object or the plain list; the record also holds an
    array("q") as it is)."""

    __slots__ = ("name", "types", "default", "record", "many", "nullable", "of", "nullable_items", "keyed",
                 "packed", "_exact")

    def __init__(self, name, types, default=REQUIRED, record=None, many=False, nullable=False, of=None,
                 nullable_items=False, keyed=False, packed=None):
        self.name = name
        self.types = types if isinstance(types, tuple) else (types,)
        self.default = default
        self.record = record
        self.many = many
        self.nullable = nullable or default is None
        self.of = of if of is None or isinstance(of, tuple) else (of,)
        self.nullable_items = nullable_items
        self.keyed = keyed
        self.packed = packed
        # the exact item types a plain list may hold without a check per item (JSON's int counts as a number)
        self._exact = None if self.of is None else frozenset(self.of + ((int,) if float in self.of else ()))

    def make_default(self):
        return copy.deepcopy(self.default)

    def check(self, value, where):
        """The value as the record holds it (nested records built); raises MessageError."""
        if value is None:
            if self.nullable:
                return None
            raise MessageError(where, "must not be null")
        if self.record is not None:
            if self.keyed:
                if not isinstance(value, dict):
                    raise MessageError(where, "expected an object, got %s" % type_name(value))
                return dict((k, _as_record(self.record, v, "%s.%s" % (where, k))) for k, v in value.items())
            if self.many:
                if not isinstance(value, list):
                    raise MessageError(where, "expected a list, got %s" % type_name(value))
                return [_as_record(self.record, v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]
            return _as_record(self.record, value, where)
        if self.packed is not None and isinstance(value, dict):
            return self.packed.decode(value, where)
        if self.packed is not None and isinstance(value, array.array) and value.typecode == "q":
            return value  # int64 values held as array("q") (a sustained run's millions of samples)
        if not _type_ok(value, self.types):
            raise MessageError(where, "expected %s, got %s" % (
                " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in self.types), type_name(value)))
        if float in self.types and isinstance(value, int) and int not in self.types:
            return float(value)
        if self.of is not None and isinstance(value, list):
            if set(map(type, value)) <= self._exact:  # every item of an accepted type exactly: nothing to report
                return value
            for i, item in enumerate(value):
                if item is None and self.nullable_items:
                    continue
                if not _type_ok(item, self.of):
                    raise MessageError("%s[%d]" % (where, i), "expected %s, got %s" % (
                        " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in self.of), type_name(item)))
        return value


def _type_ok(value, types):
    if isinstance(value, bool):
        return bool in types  # JSON true is not the number 1
    if isinstance(value, int) and float in types:
        return True
    return isinstance(value, types)


def _as_record(cls, value, where):
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        raise MessageError(where, "expected an object, got %s" % type_name(value))
    return cls.from_dict(value, where)


class _RecordMeta(type):
    """Gives each record class its __slots__ from FIELDS, so fields are declared once."""

    def __new__(mcs, name, bases, ns):
        fields = ns.get("FIELDS", ())
        ns["__slots__"] = tuple(f.name for f in fields)
        return type.__new__(mcs, name, bases, ns)


class Record(_RecordMeta("_RecordBase", (object,), {})):
    """Base of every message record. Subclasses set NAME (used in error paths) and FIELDS."""

    NAME = "record"
    FIELDS = ()
    OMIT_NONE = False  # to_dict leaves out fields that are None (optional keys, as on the wire before v2)

    def __init__(self, **values):
        where = self.NAME
        for f in self.FIELDS:
            if f.name in values:
                setattr(self, f.name, f.check(values.pop(f.name), "%s.%s" % (where, f.name)))
            elif f.default is REQUIRED:
                raise MessageError(where, "missing field %r" % f.name)
            else:
                setattr(self, f.name, f.make_default())
        if values:
            raise MessageError(where, "unknown field %r" % sorted(values)[0])

    @classmethod
    def from_dict(cls, data, where=None):
        where = where or cls.NAME
        if not isinstance(data, dict):
            raise MessageError(where, "expected an object, got %s" % type_name(data))
        for key in data:
            if key not in cls._names():
                raise MessageError(where, "unknown field %r" % key)
        values = {}
        for f in cls.FIELDS:
            if f.name in data:
                values[f.name] = f.check(data[f.name], "%s.%s" % (where, f.name))
            elif f.default is REQUIRED:
                raise MessageError(where, "missing field %r" % f.name)
        obj = cls.__new__(cls)
        for f in cls.FIELDS:
            setattr(obj, f.name, values[f.name] if f.name in values else f.make_default())
        return obj

    @classmethod
    def _names(cls):
        return set(f.name for f in cls.FIELDS)

    def to_dict(self):
        out = {}
        for f in self.FIELDS:
            v = getattr(self, f.name)
            if v is None and self.OMIT_NONE:
                continue
            if f.packed is not None and v is not None:
                v = f.packed.encode(v)
            elif f.record is not None and v is not None:
                if f.keyed:
                    v = dict((k, r.to_dict()) for k, r in v.items())
                else:
                    v = [r.to_dict() for r in v] if f.many else v.to_dict()
            out[f.name] = v
        return out

    def __eq__(self, other):
        if isinstance(other, dict):  # a record equals its JSON object
            return self.to_dict() == other
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % (f.name, getattr(self, f.name)) for f in self.FIELDS))
