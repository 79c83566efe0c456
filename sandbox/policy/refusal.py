"""What learner code is told when the policy refuses something: the exceptions and their wording.

Every sentence the policy's guards raise is written here, so a refusal reads the same wherever
it is raised: it names what was refused and, where there is one, says what to do instead.
(The compiler's own refusals are RestrictedPython's, with the line; see ``compiler``.)
"""

from __future__ import annotations


class PolicyError(Exception):
    """Learner code tried something the judge does not allow (a clear, learner-facing message)."""


class ObjectArrayRefused(PolicyError):
    """An operation on an array of Python objects; the message says what to do instead."""


def not_available(what: str, instead: str = "") -> str:
    """The common shape of a refusal: ``what`` is not available here, and what to do instead."""
    return f"{what} is not available in the judge" + (f"; {instead}" if instead else "")


# -- imports and surfaces ---------------------------------------------------------------------


def import_refused(name: str, available: list[str]) -> str:
    """Why ``import name`` is refused, with the modules that can be imported."""
    return f"import of '{name}' is not allowed; available modules: {', '.join(available)}"


RELATIVE_IMPORT = "relative imports are not available in the judge"
MODULE_ONLY_THROUGH_IMPORT = "modules are only reachable through import"
MODULE_UNCHANGED = "modules cannot be modified"

# -- attributes and writes --------------------------------------------------------------------


def attribute_refused(name: str) -> str:
    return f"the attribute {name!r} is not available in the judge"


def format_field_refused(field_name: str) -> str:
    return f"format field {field_name!r} is not allowed"


def cannot_modify(kind: str) -> str:
    return f"cannot modify {kind}"


def cannot_set(name: object) -> str:
    return f"cannot set the attribute {name!r}"


OBJECT_ARRAY_UNCHANGED = (
    "arrays of Python objects (dtype=object) cannot be changed in the judge; build a new one "
    "with np.array([...]), or use a list"
)


def object_array_operand(what: str) -> str:
    return not_available(
        f"{what} on an array of Python objects",
        "use a numeric array (a.astype(float)), or a list (a.tolist()) with Python's "
        "sorted()/max()/min()",
    )


def sequence_that_redefines_reading(what: str, kind: str) -> str:
    return not_available(
        f"{what} on a {kind}, whose class redefines how it is read",
        "pass a plain list (list(x)) or a numpy array",
    )


def scalar_class_argument(what: str) -> str:
    return not_available(
        f"{what}() of anything but numbers, strings, numeric arrays or dtypes",
        "convert your value first (float(x), int(x)), or pass a list of numbers",
    )


def object_array_of_own_subclass(what: str) -> str:
    return f"{what} made an array of Python objects of your own subclass"


OBJECT_ARRAY_SUBCLASS = "an array of Python objects cannot be of your own ndarray subclass"

# -- classes and type() -----------------------------------------------------------------------


def numpy_base_refused(base: str) -> str:
    return (
        f"classes cannot derive from numpy's {base} in the judge "
        "(np.ndarray is the one numpy class to derive from)"
    )


def number_base_refused(base: str) -> str:
    return f"classes cannot derive from {base} in the judge; wrap the value in an attribute instead"


def compared_base_refused(base: str) -> str:
    return (
        f"classes cannot derive from {base} in the judge: Python compares {base} values by "
        "reading their attributes from inside its own C code (comparing lists, sorting), "
        f"where a method of yours could free what that code points at; keep a {base} as an "
        "attribute instead"
    )


def compared_through(base: str, name: str) -> str:
    return (
        f"a subclass of {base} cannot define {name} in the judge: Python compares {base} "
        f"values through it from inside its own C code (comparing lists, sorting), where your "
        f"method could free what that code points at; keep a {base} as an attribute instead"
    )


def array_protocol_override(names: list[str]) -> str:
    return f"a subclass of np.ndarray cannot define {', '.join(names)} in the judge"


def own_object_to_numpy(kind: str) -> str:
    return (
        f"numpy cannot take objects of your own class {kind} in the judge; "
        "give it numbers (or lists of numbers)"
    )


def comparison_refused(name: str) -> str:
    return (
        f"classes cannot define {name} in the judge: Python calls comparisons from inside its "
        "own C code (comparing lists, sorting), where your method could free what that code "
        "still points at; compare keys instead (sorted(items, key=lambda item: item.score), "
        "a.score < b.score)"
    )


def hash_method_refused(name: str) -> str:
    return (
        f"classes cannot define {name} in the judge: their objects are compared by identity "
        "(no __eq__), so a hash of your own could only break dicts and sets; use a tuple or a "
        "number as the key"
    )


def finalizer_refused(name: str) -> str:
    return (
        f"classes cannot define {name} in the judge: a finaliser runs whenever the last "
        "reference goes, in the middle of whatever C code dropped it; clean up explicitly, "
        "with a method you call (or __enter__/__exit__)"
    )


def yield_in_cleanup_refused(block: str) -> str:
    return (
        f"a yield inside a {block} block is not available in the judge: a generator dropped "
        f"while it waits there runs the block's clean-up code (except, finally, __exit__) at "
        "whatever moment its last reference goes, in the middle of C code, as a finaliser "
        "would; yield outside the block, or finish the generator before dropping it"
    )


YIELD_FROM_REFUSED = (
    "yield from is not available in the judge: a generator dropped while it waits inside "
    "yield from closes what it delegates to (your object's close() method) at whatever moment "
    "its last reference goes, in the middle of C code; write the loop out instead: "
    "for x in it: yield x"
)


def special_method_refused(name: str) -> str:
    """A learner class's namespace holding a refused special method (however it got there)."""
    return f"classes cannot define {name} in the judge"


DTYPE_PROPERTY = (
    "a class cannot make dtype a property in the judge: numpy reads an object's .dtype from "
    "inside its own C code; store the value as a plain attribute"
)
DICT_GETITEM = (
    "a subclass of dict cannot define __getitem__ in the judge: numpy reads dicts through it "
    "from inside its own C code; keep a dict as an attribute instead"
)


def decorated_special_method(name: str) -> str:
    return f"The special method {name} cannot be decorated in the judge."


def hash_refused(kind: str) -> str:
    return (
        f"hash() of a value of type {kind!r} is not available in the judge: its hash is its "
        "memory address; "
        "hash numbers, strings, or tuples of them"
    )


TYPE_WITH_THREE_ARGUMENTS = "type() with three arguments is not available; use a class statement"
TYPE_OF_A_CLASS = "type() of a class is not available in the judge"
MEMORYVIEW = "memoryview is not available in the judge: it exposes an object's raw bytes"
BOUND_METHOD_CLASS = (
    "type() of a bound method is not available in the judge: its class binds any object, "
    "and reads every attribute off it"
)

# -- memory -----------------------------------------------------------------------------------

STRUCTURED_DTYPES = "structured and void dtypes are not available in the judge"


def structured_result(what: str) -> str:
    return f"{what} made a structured array; {STRUCTURED_DTYPES}"


def ndarray_over_memory(parameter: str) -> str:
    return not_available(f"np.ndarray(..., {parameter}=...)", "use np.array or np.zeros")


RESIZE = not_available("ndarray.resize", "build a new array")
# ndarray.data and a numpy scalar's .data are memoryviews of the raw buffer: over an object
# array, its pointers as writable bytes.
RAW_BUFFER = not_available("the raw buffer (.data) of a numpy value", "index it, or use .tolist()")

# -- copying ----------------------------------------------------------------------------------


def copy_refused(kind: str, is_generator: bool) -> str:
    """Why ``copy.copy``/``copy.deepcopy`` refuse a value of type ``kind``."""
    if is_generator:
        return (
            f"cannot copy a random generator ({kind}): the judge counts its draws; "
            "draw from the one you were given"
        )
    return (
        f"cannot copy a {kind} in the judge: copy works on numbers, strings, lists, tuples, "
        "dicts, sets, numpy arrays and instances of your own classes"
    )
