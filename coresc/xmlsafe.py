"""Parse XML safely, and the one place that makes text fit to be written as XML.

Parsing resolves no entities, DTDs or anything over the network.

Every reader goes through :func:`parse_xml`. A document that declares entities in
its DTD (the shape of both the "billion laughs" expansion bomb and XXE) is refused
outright rather than parsed with the entities left unexpanded, because its text
would be silently wrong. A DOCTYPE that only names an external DTD (as JATS files
do) is fine: the DTD is never fetched or loaded.
"""

from __future__ import annotations

import html.entities
import io
import re
from pathlib import Path

from lxml import etree

from .errors import InputError

# Characters XML 1.0 cannot hold: C0 controls but tab/newline/CR (NUL included), lone
# surrogates (only JSON's "\\ud800" escapes or a Python str can carry them) and the
# non-characters U+FFFE/U+FFFF.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_NOT_CHARACTERS = re.compile("[\ud800-\udfff\ufffe\uffff]")

#: What :func:`sanitize_text` puts for a character that cannot be written.
REPLACEMENT = "\ufffd"


def sanitize_text(text: str) -> str:
    """``text`` with every character XML cannot hold replaced; the same string when clean.

    Control characters (form feeds from pdftotext, stray NULs, escape codes) become a
    space: they separate words where they occur. Lone surrogates and U+FFFE/U+FFFF
    become U+FFFD, the Unicode replacement character, so a reader sees that something
    was there. Every reader's text passes through here, so every writer (XML, TEI,
    mode2, JSONL, TSV, HTML), the CRF and the API only ever see text they can hold.
    """
    if text.isascii():
        if text.isprintable():
            return text
        return _CONTROLS.sub(" ", text)
    return _NOT_CHARACTERS.sub(REPLACEMENT, _CONTROLS.sub(" ", text))

_ENTITY_DECL = re.compile(rb"<!ENTITY\b")
_ENTITY_PROBLEM = ("XML declares entities in its DTD (refused: entity expansion and "
                   "external entities are not allowed)")


#: The parser's settings: no entities, no DTD, no network, libxml2's limits kept.
_SAFE = {"resolve_entities": False, "load_dtd": False, "dtd_validation": False,
         "no_network": True, "huge_tree": False, "remove_comments": False}

#: The most nodes (elements, attributes, comments, processing instructions) one XML
#: document may hold: 2.5 times the most of any paper in ../shared/data (81,298, an
#: Elsevier file of 2.3 MB), low enough that annotating the most paragraphs it allows
#: (one-sentence paragraphs) stays under 1 GB: 820 MB (docs/benchmarks.md, "Dense XML").
MAX_XML_NODES = 200_000


def _parser() -> etree.XMLParser:
    return etree.XMLParser(**_SAFE)


def too_many_nodes(data: bytes, limit: int | None = None) -> bool:
    """Whether ``data``'s XML holds more than ``limit`` (default :data:`MAX_XML_NODES`)
    nodes: elements, attributes, comments and processing instructions.

    Each node needs a ``<`` or an ``=``, so a document with no more of those than the
    limit is not parsed here at all. Otherwise it is parsed streaming, each element
    cleared and dropped once it ends, so memory stays bounded whatever the input.
    Malformed XML counts what comes before the error (the parse proper reports it).
    """
    limit = MAX_XML_NODES if limit is None else limit
    if data.count(b"<") + data.count(b"=") <= limit:
        return False
    n = 0
    events = etree.iterparse(io.BytesIO(data), events=("end", "comment", "pi"), **_SAFE)
    try:
        for event, el in events:
            n += 1 + len(el.attrib) if event == "end" else 1
            if n > limit:
                return True
            if event == "end":
                el.clear(keep_tail=True)
                while el.getprevious() is not None:  # finished siblings, comments
                    del el.getparent()[0]
    except etree.XMLSyntaxError:
        pass
    return False


def parse_xml(path: str | Path, data: bytes | None = None) -> etree._ElementTree:
    """Parse ``path`` (or ``data``, reported as ``path``) safely.

    Raises :class:`InputError` naming the file for malformed XML and for any
    document that declares entities.
    """
    if data is None:
        data = Path(path).read_bytes()
    if not data.strip():
        raise InputError(path, "file is empty")
    if too_many_nodes(data):
        raise InputError(path, f"XML holds more than {MAX_XML_NODES:,} elements, attributes "
                               f"and comments (coresc's limit for one document, which bounds "
                               f"the memory it takes; refused)")
    try:
        tree = etree.ElementTree(etree.fromstring(data, _parser()))
    except etree.XMLSyntaxError as exc:
        # lxml may stop an expansion bomb itself; say what the file really is.
        if _ENTITY_DECL.search(data[:65536]):
            raise InputError(path, _ENTITY_PROBLEM) from None
        raise InputError(path, _syntax_problem(exc)) from None
    dtd = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise InputError(path, _ENTITY_PROBLEM)
    if _NAMED_REF.search(data):
        _named_characters(tree)
    return tree


# A named reference other than XML's own five ("&iacute;", "&hairsp;", "&equals;").
_NAMED_REF = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos);)[A-Za-z][A-Za-z0-9]*;")


def _named_characters(tree: etree._ElementTree) -> None:
    """Each named character reference that the document's external DTD would define
    (JATS's DTD takes HTML's and MathML's names: "Bras&iacute;lia", "p&hairsp;&equals;")
    made the character HTML names so, from Python's own table: no DTD is read, and the
    text keeps its letters ("Braslia" otherwise). Unknown names stay as they are."""
    parents = dict.fromkeys(ent.getparent() for ent in tree.iter(etree.Entity)
                            if _character(ent) is not None)
    for parent in parents:
        if parent is not None:
            _resolve_children(parent)


def _character(node: etree._Element) -> str | None:
    return html.entities.html5.get(f"{node.name};") if node.tag is etree.Entity else None


def _resolve_children(parent: etree._Element) -> None:
    """``parent``'s known references made text, each text or tail joined once (a
    paragraph of 100,000 references is linear, not quadratic)."""
    text = [parent.text or ""]
    kept: list[tuple[etree._Element, list[str]]] = []
    gone = []
    for child in parent:
        char = _character(child)
        if char is None:
            kept.append((child, [child.tail or ""]))
        else:
            (kept[-1][1] if kept else text).extend((char, child.tail or ""))
            gone.append(child)
    parent.text = "".join(text) or None
    for child, tail in kept:
        child.tail = "".join(tail) or None
    for child in gone:
        parent.remove(child)


#: libxml2's limits without ``huge_tree`` (which coresc never sets), as its messages say.
_VALUE_LIMIT = ("XML_PARSE_HUGE", "too big found", "Resource limit exceeded")
MAX_XML_VALUE = 10_000_000


def _syntax_problem(exc: etree.XMLSyntaxError) -> str:
    """libxml2's message as one line, its limits said as coresc's (never "XML_PARSE_HUGE",
    an option the user cannot set)."""
    msg = " ".join((exc.msg or "").split())
    where = f" at line {exc.lineno}" if exc.lineno else ""
    if "Excessive depth" in msg:
        return "XML elements nested more than 256 deep (refused)"
    if any(mark in msg for mark in _VALUE_LIMIT):
        return (f"XML holds a text, attribute value, comment or CDATA section over "
                f"{MAX_XML_VALUE:,} bytes{where} (coresc's limit for one XML value; refused)")
    if msg.startswith("Name too long"):
        return f"XML holds a name over 50,000 characters{where} (refused)"
    return f"malformed XML: {msg}"


def localname(el: etree._Element) -> str:
    """The element's tag without namespace ('' for comments and processing instructions)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]
