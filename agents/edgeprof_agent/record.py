"""The record machinery the protocol's messages are declared with (messages.py): a Field per value, with its
types, default and nested record, and Record, whose strict from_dict names the field that is wrong.

Owns: declaring, validating, copying and serialising records. Does not own: the messages themselves
(messages.py), framing (protocol.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

import copy


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


class Field(object):
    """One field: its JSON types, its default (REQUIRED when it must be sent), and a record type for nested
    records (`record=`) or lists of records (`many=True`), or the type of a plain list's items (`of=`; null items
    too with `nullable_items=True`), or an object of records by name (`record=` with `keyed=True`). None is
    allowed when the default is None or `nullable=True`."""

    __slots__ = ("name", "types", "default", "record", "many", "nullable", "of", "nullable_items", "keyed")

    def __init__(self, name, types, default=REQUIRED, record=None, many=False, nullable=False, of=None,
                 nullable_items=False, keyed=False):
        self.name = name
        self.types = types if isinstance(types, tuple) else (types,)
        self.default = default
        self.record = record
        self.many = many
        self.nullable = nullable or default is None
        self.of = of if of is None or isinstance(of, tuple) else (of,)
        self.nullable_items = nullable_items
        self.keyed = keyed

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
        if not _type_ok(value, self.types):
            raise MessageError(where, "expected %s, got %s" % (
                " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in self.types), type_name(value)))
        if float in self.types and isinstance(value, int) and int not in self.types:
            return float(value)
        if self.of is not None and isinstance(value, list):
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
            if f.record is not None and v is not None:
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
