"""Text a PDF holds but nobody sees, found so that it is not read as the paper's sentences
(part of the child process, :mod:`coresc.readers.pdf.extract`).

Hiding words in a PDF (instructions for a machine reader, keywords for a search engine)
takes little: text drawn invisible (render mode 3) or only as a clip (mode 7), fully
transparent, in the colour of what lies under it (white on the white page), clipped
away, inside an optional-content layer switched off, under an opaque box or image drawn
after it. :class:`PageView` walks a page's objects once, in paint order (form XObjects
included), and answers per text object. Glyphs drawn off the page (outside
:attr:`PageView.box`) or squeezed to no width are dropped one by one in ``extract.py``.

An OCR layer (ocrmypdf, Tesseract: invisible text over the scanned page image) is the
legitimate case: on a page where an image covers most of the page and invisible text
outnumbers the rest, invisible text is read.
"""

from __future__ import annotations

import bisect
import ctypes

#: Render modes that paint nothing: 3 (invisible), 7 (add to the clip only).
_UNPAINTED = (3, 7)
#: Render modes whose colour is the stroke's (1: stroke, 5: stroke and clip).
_STROKED = (1, 5)
#: Below this alpha (of 255), text is taken as transparent.
_MIN_ALPHA = 26
#: Colours this close (per channel, of 255) look alike.
_SAME_COLOUR = 24
#: Share of the page an image must cover for invisible text over it to be an OCR layer.
_SCAN_SHARE = 0.5
#: Share of a scanned page's text objects that must be invisible for it to be an OCR
#: layer (a page of visible text over a background image is no scan).
_SCAN_INVISIBLE = 0.9
#: Form XObjects nested deeper than this are not looked into (their text still is read).
_MAX_DEPTH = 64
#: Form XObjects PDFium reads nested (pypdfium2 5.15, PDFium 159): a form deeper than
#: this comes out empty, its text unread.
PDFIUM_FORM_LEVELS = 40
#: Box comparisons one page may take to judge its text (about a second).
_MAX_CHECKS = 5_000_000
_TEXT, _PATH, _IMAGE, _FORM = 1, 2, 3, 5
_BEZIER = 1
_BGRA = 4  # FPDFBitmap_BGRA: a bitmap with an alpha byte
_WHITE = (255, 255, 255)


class _Paint:
    """An object that paints an area: a filled path or an image, in paint order."""

    __slots__ = ("z", "box", "colour", "obj", "rect", "alpha")

    def __init__(self, z: int, box: tuple, colour: tuple | None, obj) -> None:
        self.z, self.box, self.colour, self.obj = z, box, colour, obj
        self.rect: bool | None = None  # an upright rectangle? (asked when needed)
        self.alpha: tuple | bool | None = None  # an image's: see _image_alpha


class PageView:
    """A page's objects in paint order, to tell which text objects can be seen."""

    def __init__(self, page, raw, document=None) -> None:
        self.raw, self.page, self.document = raw, page, document
        self.texts: dict[int, tuple[int, tuple]] = {}  # address -> (z, form matrices)
        self.paints: list[_Paint] = []
        self._paint_z: list[int] = []
        self._checks = 0  # box comparisons made (see _afford)  # their z, for bisect
        self._covers: list[_Paint] = []  # the opaque ones among them
        self._cover_z: list[int] = []
        self._ocr: bool | None = None
        self._cache: dict[int, bool] = {}
        self._z = 0
        self._layered: list[tuple] = []  # text in optional content (a layer)
        left, bottom, right, top = (ctypes.c_float() for _ in range(4))
        self.box = (0.0, 0.0, 0.0, 0.0)
        if raw.FPDF_GetPageBoundingBox(page, _rect := raw.FS_RECTF()):
            self.box = (_rect.left, _rect.bottom, _rect.right, _rect.top)
        self._bounds = (left, bottom, right, top)
        #: Quarter turns clockwise the page is shown turned (its /Rotate).
        self.turn = raw.FPDFPage_GetRotation(page) % 4
        #: Characters left out, by why: "hidden" (nobody sees them), "turned" (on their
        #: side); "deep": forms nested too deep for PDFium, which it left unread.
        self.dropped: dict[str, int] = {}
        self._walk(raw.FPDFPage_CountObjects(page),
                   lambda i: raw.FPDFPage_GetObject(page, i), (), 0)
        if self._layered:
            self._cache.update(dict.fromkeys(_layers_off(page, raw, self._layered, self),
                                             True))

    def _walk(self, count: int, get, matrices: tuple, depth: int) -> None:
        raw = self.raw
        for i in range(count):
            obj = get(i)
            kind = raw.FPDFPageObj_GetType(obj)
            self._z += 1
            if kind == _TEXT:
                address = ctypes.cast(obj, ctypes.c_void_p).value
                self.texts[address] = (self._z, matrices)
                if raw.FPDFPageObj_CountMarks(obj) and _in_layer(raw, obj):
                    self._layered.append((address, obj, matrices))
            elif kind in (_PATH, _IMAGE):
                self._add_paint(obj, kind, matrices)
            elif kind == _FORM and depth >= PDFIUM_FORM_LEVELS and \
                    not raw.FPDFFormObj_CountObjects(obj):  # PDFium read none of it
                self.dropped["deep"] = self.dropped.get("deep", 0) + 1
            elif kind == _FORM and depth < _MAX_DEPTH:
                inner = (*matrices, _matrix(raw, obj))
                self._walk(raw.FPDFFormObj_CountObjects(obj),
                           lambda j, form=obj: raw.FPDFFormObj_GetObject(form, j),
                           inner, depth + 1)

    def _add_paint(self, obj, kind: int, matrices: tuple) -> None:
        raw = self.raw
        colour = None
        if kind == _PATH:
            fill, stroke = ctypes.c_int(), ctypes.c_int()
            if not raw.FPDFPath_GetDrawMode(obj, fill, stroke) or not fill.value:
                return  # a line or an outline hides nothing
            rgba = _colour(raw, obj, stroke=False)
            if rgba is None or rgba[3] < _MIN_ALPHA:
                return
            colour = rgba[:3]
        box = _page_box(self._object_box(obj), matrices)
        paint = _Paint(self._z, box, colour, obj)
        self.paints.append(paint)
        self._paint_z.append(paint.z)
        if not raw.FPDFPageObj_HasTransparency(obj):
            self._covers.append(paint)
            self._cover_z.append(paint.z)

    def _object_box(self, obj) -> tuple:
        left, bottom, right, top = self._bounds
        if not self.raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
            return (0.0, 0.0, 0.0, 0.0)
        return (left.value, bottom.value, right.value, top.value)

    @property
    def ocr(self) -> bool:
        """Whether the page is a scan with its OCR layer: an image covers most of it, and
        nine in ten of its text objects are invisible."""
        if self._ocr is None:
            x0, y0, x1, y1 = self.box
            page = max((x1 - x0) * (y1 - y0), 1.0)
            scanned = any(p.colour is None and _area(_overlap(p.box, self.box))
                          >= _SCAN_SHARE * page for p in self.paints)
            mode, cast = self.raw.FPDFTextObj_GetTextRenderMode, self.raw.FPDF_PAGEOBJECT
            unpainted = sum(mode(ctypes.cast(a, cast)) in _UNPAINTED for a in self.texts)
            self._ocr = scanned and unpainted >= _SCAN_INVISIBLE * len(self.texts)
        return self._ocr

    def hidden(self, address: int) -> bool:
        """Whether nobody sees the text object at ``address`` (from
        ``FPDFText_GetTextObject``)."""
        known = self._cache.get(address)
        if known is None:
            obj = ctypes.cast(address, self.raw.FPDF_PAGEOBJECT)
            known = self._cache[address] = self._judge(obj, address)
        return known

    def _judge(self, obj, address: int) -> bool:
        raw = self.raw
        mode = raw.FPDFTextObj_GetTextRenderMode(obj)
        if mode in _UNPAINTED:
            return not self.ocr
        rgba = _colour(raw, obj, stroke=mode in _STROKED)
        if rgba is not None and rgba[3] < _MIN_ALPHA:
            return True
        clip = raw.FPDFPageObj_GetClipPath(obj)
        if clip and _clipped_away(raw, clip, self._object_box(obj)):
            return True
        z, matrices = self.texts.get(address, (None, ()))
        if z is None or not self.paints:  # nothing painted, or text nested too deep
            return bool(rgba) and _alike(rgba[:3], _WHITE)
        box = _page_box(self._object_box(obj), matrices)
        return self._covered(z, box) or (rgba is not None
                                        and _alike(rgba[:3], self._under(z, box)))

    def _covered(self, z: int, box: tuple) -> bool:
        """An opaque box or image painted after the text, over all of it."""
        x0, y0, x1, y1 = box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1  # 1 pt of slack
        later = self._covers[bisect.bisect_right(self._cover_z, z):]
        if not self._afford(len(later)):
            return False
        for c in later:
            cx0, cy0, cx1, cy1 = c.box
            if cx0 <= x0 and cy0 <= y0 and x1 <= cx1 and y1 <= cy1:
                if c.colour is not None and c.rect is None:
                    c.rect = _is_rect(self.raw, c.obj)
                if c.rect if c.colour is not None else self._opaque_image(c, box):
                    return True
        return False

    def _opaque_image(self, image: _Paint, box: tuple) -> bool:
        """Whether an image paints every pixel under ``box`` fully (an image with a soft
        mask may be clear there): the image rendered as PDFium paints it, once."""
        if image.alpha is None:
            image.alpha = _image_alpha(self.raw, self.document, self.page, image, self.box)
        if image.alpha is True:
            return True
        alpha, width, height = image.alpha
        x0, y0, x1, y1 = image.box
        sx, sy = width / max(x1 - x0, 1e-6), height / max(y1 - y0, 1e-6)
        left, right = max(int((box[0] - x0) * sx), 0), min(int((box[2] - x0) * sx) + 1, width)
        top, bottom = max(int((y1 - box[3]) * sy), 0), min(int((y1 - box[1]) * sy) + 1, height)
        return left < right and not any(alpha[r * width + left: r * width + right]
                                        .strip(b"\xff") for r in range(top, bottom))

    def _afford(self, checks: int) -> bool:
        """Whether the page's budget of box comparisons allows ``checks`` more: a page of
        hostile numbers of boxes and texts is judged until it runs out, then its text is
        read (a bound on time; hidden text beyond it is the price)."""
        self._checks += checks
        return self._checks <= _MAX_CHECKS

    def _under(self, z: int, box: tuple) -> tuple | None:
        """The colour the text lies on: the last filled area painted before it under its
        middle (None: an image, whose colour is not known), else the white page."""
        mx, my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        before = bisect.bisect_left(self._paint_z, z)
        if not self._afford(before):
            return None
        for k in range(before - 1, -1, -1):
            px0, py0, px1, py1 = self.paints[k].box
            if px0 <= mx <= px1 and py0 <= my <= py1:
                return self.paints[k].colour
        return _WHITE


def doubled_box(view: PageView | None) -> tuple[float, float, float, float]:
    """The page's visible box (PDF space), doubled: a glyph's middle lies inside the box
    when ``left + right`` lies inside this one. No box at all lets every glyph in."""
    if view is None or view.box[2] <= view.box[0]:
        return (float("-inf"), float("-inf"), float("inf"), float("inf"))
    return tuple(2 * v for v in view.box)


#: An image drawn larger than this many page areas is not rendered to look at its
#: transparency (its memory); it counts as opaque.
_MAX_IMAGE_PAGES = 4


def _image_alpha(raw, document, page, image: _Paint, page_box: tuple):
    """The image's alpha, one byte a pixel, as ``(bytes, width, height)``; True (opaque)
    where it cannot be rendered or is too large to."""
    if document is None or _area(image.box) > _MAX_IMAGE_PAGES * max(_area(page_box), 1.0):
        return True
    bitmap = raw.FPDFImageObj_GetRenderedBitmap(document, page, image.obj)
    if not bitmap:
        return True
    try:
        width, height = raw.FPDFBitmap_GetWidth(bitmap), raw.FPDFBitmap_GetHeight(bitmap)
        if raw.FPDFBitmap_GetFormat(bitmap) != _BGRA or width <= 0 or height <= 0:
            return True
        stride = raw.FPDFBitmap_GetStride(bitmap)
        buffer = ctypes.string_at(raw.FPDFBitmap_GetBuffer(bitmap), stride * height)
        alpha = b"".join(buffer[r * stride + 3: r * stride + 4 * width: 4] for r in range(height))
        return alpha, width, height
    finally:
        raw.FPDFBitmap_Destroy(bitmap)


_RGBA = tuple(ctypes.c_uint() for _ in range(4))  # reused: one call at a time


def _colour(raw, obj, stroke: bool) -> tuple[int, int, int, int] | None:
    r, g, b, a = _RGBA
    get = raw.FPDFPageObj_GetStrokeColor if stroke else raw.FPDFPageObj_GetFillColor
    if not get(obj, r, g, b, a):
        return None
    return (r.value, g.value, b.value, a.value)


def _alike(colour: tuple, ground: tuple | None) -> bool:
    return ground is not None and (abs(colour[0] - ground[0]) <= _SAME_COLOUR
                                   and abs(colour[1] - ground[1]) <= _SAME_COLOUR
                                   and abs(colour[2] - ground[2]) <= _SAME_COLOUR)


def _matrix(raw, obj) -> tuple:
    m = raw.FS_MATRIX()
    if not raw.FPDFPageObj_GetMatrix(obj, m):
        return (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _page_box(box: tuple, matrices: tuple) -> tuple:
    """A box in a form's space carried out to the page's, through each enclosing form's
    matrix (innermost first)."""
    for a, b, c, d, e, f in reversed(matrices):
        xs, ys = [], []
        for x, y in ((box[0], box[1]), (box[0], box[3]), (box[2], box[1]), (box[2], box[3])):
            xs.append(a * x + c * y + e)
            ys.append(b * x + d * y + f)
        box = (min(xs), min(ys), max(xs), max(ys))
    return box


def _is_rect(raw, obj) -> bool:
    """A filled path that is an upright rectangle (whose box is what it covers)."""
    n = raw.FPDFPath_CountSegments(obj)
    if not 0 < n <= 6:
        return False
    m = _matrix(raw, obj)
    if abs(m[1]) > 1e-6 or abs(m[2]) > 1e-6:
        return False
    points = []
    x, y = ctypes.c_float(), ctypes.c_float()
    for i in range(n):
        seg = raw.FPDFPath_GetPathSegment(obj, i)
        if raw.FPDFPathSegment_GetType(seg) == _BEZIER:
            return False
        if not raw.FPDFPathSegment_GetPoint(seg, x, y):
            return False
        points.append((x.value, y.value))
    xs, ys = {round(p[0], 2) for p in points}, {round(p[1], 2) for p in points}
    return len(xs) <= 2 and len(ys) <= 2


def _clipped_away(raw, clip, own: tuple) -> bool:
    """Whether an object's clip leaves (almost) none of it: its box against the box of
    every clip path (all in the object's own space)."""
    x, y = ctypes.c_float(), ctypes.c_float()
    box = own
    for p in range(raw.FPDFClipPath_CountPaths(clip)):
        xs, ys = [], []
        for s in range(min(raw.FPDFClipPath_CountPathSegments(clip, p), 1000)):
            seg = raw.FPDFClipPath_GetPathSegment(clip, p, s)
            if seg and raw.FPDFPathSegment_GetPoint(seg, x, y):
                xs.append(x.value)
                ys.append(y.value)
        if xs:
            box = _overlap(box, (min(xs), min(ys), max(xs), max(ys)))
    area = _area(own)
    return area > 0 and _area(box) < 0.2 * area


def _overlap(a: tuple, b: tuple) -> tuple:
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def _area(box: tuple) -> float:
    return max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0)



def _in_layer(raw, obj) -> bool:
    """Whether the object is marked as optional content (``/OC ... BDC``)."""
    buf = (ctypes.c_ushort * 8)()
    length = ctypes.c_ulong()
    for i in range(min(raw.FPDFPageObj_CountMarks(obj), 16)):
        mark = raw.FPDFPageObj_GetMark(obj, i)
        if (mark and raw.FPDFPageObjMark_GetName(mark, buf, 16, length)
                and list(buf[:3]) == [ord("O"), ord("C"), 0]):
            return True
    return False


# A colour no page uses, as a 32-bit BGRx pixel, to see where the marked text is painted.
_PROBE = (255, 0, 255)
_PROBE_PIXEL = bytes((255, 0, 255, 255))
_NO_SMOOTH = 0x1000 | 0x2000 | 0x4000  # text, images, paths drawn without anti-aliasing


def _layers_off(page, raw, layered: list[tuple], view: PageView) -> list[int]:
    """The text objects of optional content that PDFium does not paint (a layer switched
    off): each is painted in a probe colour on a rendering of the page, and looked for.
    PDFium's renderer knows the document's layers; its public interface does not say."""
    saved = [(obj, _colour(raw, obj, False), _colour(raw, obj, True))
             for _, obj, _ in layered]
    for obj, _, _ in saved:
        raw.FPDFPageObj_SetFillColor(obj, *_PROBE, 255)
        raw.FPDFPageObj_SetStrokeColor(obj, *_PROBE, 255)
    try:
        shown = _painted(page, raw, [(address, _page_box(view._object_box(obj), m))
                                     for address, obj, m in layered])
    finally:
        for obj, fill, stroke in saved:
            if fill:
                raw.FPDFPageObj_SetFillColor(obj, *fill)
            if stroke:
                raw.FPDFPageObj_SetStrokeColor(obj, *stroke)
    return [address for address, _, _ in layered if address not in shown]


def _painted(page, raw, boxes: list[tuple[int, tuple]]) -> set[int]:
    """Which of the page boxes hold a pixel of the probe colour, the page rendered at
    72 dpi."""
    width = max(int(raw.FPDF_GetPageWidthF(page)), 1)
    height = max(int(raw.FPDF_GetPageHeightF(page)), 1)
    bitmap = raw.FPDFBitmap_Create(width, height, 0)
    if not bitmap:
        return {address for address, _ in boxes}  # cannot tell: read it
    try:
        raw.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xFFFFFFFF)
        raw.FPDF_RenderPageBitmap(bitmap, page, 0, 0, width, height, 0, _NO_SMOOTH)
        buffer = raw.FPDFBitmap_GetBuffer(bitmap)
        address = ctypes.cast(buffer, ctypes.c_void_p).value
        stride = raw.FPDFBitmap_GetStride(bitmap)
        return {key for key, box in boxes
                if _probe_in(page, raw, address, stride, (width, height), box)}
    finally:
        raw.FPDFBitmap_Destroy(bitmap)


def _probe_in(page, raw, buffer: int, stride: int, size: tuple, box: tuple) -> bool:
    xs, ys = [], []
    px, py = ctypes.c_int(), ctypes.c_int()
    for x, y in ((box[0], box[1]), (box[2], box[3])):
        raw.FPDF_PageToDevice(page, 0, 0, size[0], size[1], 0, x, y, px, py)
        xs.append(px.value)
        ys.append(py.value)
    x0, x1 = max(min(xs) - 1, 0), min(max(xs) + 1, size[0])
    for row in range(max(min(ys) - 1, 0), min(max(ys) + 1, size[1])):
        line = ctypes.string_at(buffer + row * stride + 4 * x0, 4 * max(x1 - x0, 0))
        at = line.find(_PROBE_PIXEL)
        while at >= 0:
            if at % 4 == 0:
                return True
            at = line.find(_PROBE_PIXEL, at + 1)
    return False
