"""Decoding an input's bytes: every input's text comes from :func:`decode_input`
(encodings, byte-order marks, text XML cannot hold), and XML text goes back to the parser
as UTF-8 through :func:`xml_bytes`."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from ..errors import InputError
from ..xmlsafe import sanitize_text


def is_pdf(data: bytes, name: str | Path = "") -> bool:
    """Whether ``data`` is a PDF: it starts with the ``%PDF-`` header (after whitespace or
    a byte-order mark) or, named ``.pdf``, holds it in its first 1,024 bytes, where PDF
    readers look for it (junk a mail program or a server put before it)."""
    head = data[:1024]
    if head.lstrip().removeprefix(codecs.BOM_UTF8).lstrip().startswith(b"%PDF-"):
        return True
    return str(name).lower().endswith(".pdf") and b"%PDF-" in head


# UTF-32 first: its little-endian mark FF FE 00 00 starts like UTF-16's FF FE.
_UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
_UTF32_XML = (b"<\x00\x00\x00?\x00\x00\x00", b"\x00\x00\x00<\x00\x00\x00?")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF16_XML = (b"<\x00?\x00", b"\x00<\x00?")  # "<?" of an XML declaration, no BOM
_DECLARED = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._:-]+)[\"']")
_UTF8_NAMES = {"utf-8", "utf8", "us-ascii", "ascii"}


def decode_input(path: str | Path, data: bytes) -> str:
    """The text of an input's bytes, fit for every reader and writer.

    UTF-8 unless a UTF-32 or UTF-16 byte-order mark (or a UTF-32 or UTF-16 ``<?xml``)
    or an XML declaration says otherwise; an XML declaration naming an encoding the
    bytes are not in is refused (``encoding="ISO-8859-1"`` on UTF-8 bytes would give
    mojibake). Leading byte-order marks are dropped (however many) and the text goes
    through :func:`~coresc.xmlsafe.sanitize_text`. Raises :class:`InputError`.
    """
    if data.startswith(_UTF32_BOMS) or data[:8] in _UTF32_XML:
        text = _decode_wide(path, data, "utf-32")
    elif data.startswith(_UTF16_BOMS) or data[:4] in _UTF16_XML:
        text = _decode_wide(path, data, "utf-16")
    else:
        if b"\x00" in data[:8192]:
            raise InputError(path, "binary file, not a paper (NUL bytes)")
        text = _decode_8bit(path, data)
    return sanitize_text(text.lstrip("\ufeff") if text.startswith("\ufeff") else text)


def _decode_wide(path: str | Path, data: bytes, codec: str) -> str:
    """UTF-32 or UTF-16 (byte order from the mark, else from where the NULs are)."""
    if not data.startswith(_UTF32_BOMS if codec == "utf-32" else _UTF16_BOMS):
        codec += "-le" if data[:1] == b"<" else "-be"
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        name = codec[:6].upper()
        raise InputError(path, f"not {name} text though it starts like it (invalid "
                               f"bytes at offset {exc.start})") from None


def _decode_8bit(path: str | Path, data: bytes) -> str:
    declared = _DECLARED.match(data[:1024].lstrip(b"\xef\xbb\xbf"))
    name = declared.group(1).decode("ascii").lower() if declared else "utf-8"
    if name not in _UTF8_NAMES:
        try:
            codec = codecs.lookup(name)
        except LookupError:
            raise InputError(path, f"XML declares an unknown encoding {name!r}") from None
        if codec.name.startswith("utf-16") or codec.name.startswith("utf-32"):
            raise InputError(path, f"XML declares {name} but the bytes are not {name} "
                                   f"(no byte-order mark, no NUL bytes)")
        if not data.isascii() and _is_utf8(data):
            raise InputError(path, f"XML declares encoding {name!r} but the bytes are "
                                   f"UTF-8: fix the declaration (encoding=\"UTF-8\")")
        try:
            return data.decode(codec.name)
        except UnicodeDecodeError as exc:
            raise InputError(path, f"not {name} text as its XML declaration says "
                                   f"(invalid byte at offset {exc.start})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (invalid byte at offset {exc.start})") from None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_DECLARATION = re.compile(r"^(\s*<\?xml[^>]*?encoding\s*=\s*)([\"'])[A-Za-z0-9._:-]+\2")


def xml_bytes(text: str) -> bytes:
    """Decoded XML text as UTF-8 bytes for the parser (the declaration says so too)."""
    return _DECLARATION.sub(r"\1\2UTF-8\2", text, count=1).encode("utf-8")
