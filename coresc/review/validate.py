"""What the review API accepts in its paths and bodies, checked before anything else.

Every refusal is a :class:`~coresc.serve.work.Failure` with one line naming the problem,
so no request can reach a traceback (an answer 500):

* an index in a path is ASCII digits only (``"²"`` and ``"١"`` pass ``str.isdigit`` but
  are no index), at most :data:`MAX_INDEX_DIGITS` long: else 404;
* a body is at most :data:`MAX_BODY` bytes of UTF-8 JSON holding an object, nested at
  most :data:`MAX_DEPTH` deep; the depth is measured on the bytes *before* they are
  parsed, so a body nested thousands deep never reaches the parser's recursion: else 400
  (413 for the size);
* a text field (a comment) holds no control character but tab, newline and carriage
  return, no unpaired surrogate and no non-character U+FFFE / U+FFFF, none of which a
  saved mode2 file could hold: else 400 naming the character and where it is.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..serve.work import Failure

#: The largest body a POST may send, in bytes.
MAX_BODY = 100_000
#: How deep a body's JSON may nest (a decision is 2 deep: an object holding a list).
MAX_DEPTH = 16
#: The longest index in a path (a paper or a sentence number).
MAX_INDEX_DIGITS = 9

# A JSON string, escapes included (an unrolled loop: linear, no backtracking).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKETS = re.compile(rb"[\[\]{}]")
# What a text field may not hold: C0 controls but tab, newline and CR; DEL and the C1
# controls; surrogates (in a Python str, only unpaired ones); the non-characters.
_REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def path_index(value: str, what: str) -> int:
    """``value`` from a path as an index: ASCII digits only, else :class:`Failure` 404."""
    if not (value.isascii() and value.isdigit()) or len(value) > MAX_INDEX_DIGITS:
        raise Failure(404, f"{what} {value!r}: not a {what} number")
    return int(value)


def json_depth(raw: bytes, limit: int = MAX_DEPTH) -> int:
    """How deep ``raw``'s JSON nests, counted without parsing it (stops past ``limit``).

    Brackets inside strings do not count; an unterminated string's brackets do, which
    can only make a broken body look deeper.
    """
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_JSON_STRING.sub(b'""', raw)):
        if bracket in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        else:
            depth = max(depth - 1, 0)
    return deepest


def json_object(raw: bytes) -> dict[str, Any]:
    """A POST body's JSON object (an empty body is ``{}``), or :class:`Failure` 400/413."""
    if len(raw) > MAX_BODY:
        raise Failure(413, f"the body is larger than {MAX_BODY} bytes")
    if json_depth(raw) > MAX_DEPTH:
        raise Failure(400, f"the body's JSON nests more than {MAX_DEPTH} deep")
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):  # RecursionError: belt and braces, see json_depth
        raise Failure(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise Failure(400, "the body must be a JSON object")
    return body


def text_problem(value: str) -> str | None:
    """What makes ``value`` unfit to store (a character and its place), or ``None``."""
    bad = _REFUSED.search(value)
    if bad is None:
        return None
    char = bad.group()
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        kind = "an unpaired surrogate"
    elif code in (0xFFFE, 0xFFFF):
        kind = "a non-character"
    else:
        kind = "a control character"
    return f"holds {kind} (U+{code:04X}) at character {bad.start() + 1}"


def text_field(body: dict[str, Any], key: str) -> str | None:
    """``body[key]``: absent (``None``) or a string fit to store, else :class:`Failure` 400."""
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Failure(400, f"{key}: a string")
    problem = text_problem(value)
    if problem:
        raise Failure(400, f"{key}: {problem} (refused: a saved file cannot hold it)")
    return value
