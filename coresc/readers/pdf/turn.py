"""A page's ``/Rotate`` and size: from PDF space to the frame the page is shown in (y
upwards), where the reader lays out its glyphs and places its sentences' boxes (the PDF
writer, :mod:`coresc.writers.pdf`, turns them back)."""

from __future__ import annotations

import math

#: A page smaller than this (points, its longer side) is scaled up to :data:`_PAGE_SIZE`:
#: its fonts would be under half a point (a page set in other units).
_TINY_PAGE = 100.0
_PAGE_SIZE = 792.0


class Turn:
    """A page's ``/Rotate`` (clockwise degrees): PDF space to the frame the page is shown
    in (y upwards), for a page of ``width`` x ``height`` before turning; a tiny page is
    scaled up to a letter page's height."""

    __slots__ = ("degrees", "radians", "width", "height", "scale")

    def __init__(self, degrees: int, width: float, height: float) -> None:
        self.degrees = degrees % 360
        self.radians = math.radians(self.degrees)
        self.width, self.height = width, height
        longer = max(width, height)
        self.scale = _PAGE_SIZE / longer if 0 < longer < _TINY_PAGE else 1.0

    def size(self) -> tuple[float, float]:
        """The page's width and height as shown."""
        w, h = self.width * self.scale, self.height * self.scale
        return (h, w) if self.degrees in (90, 270) else (w, h)

    def point(self, x: float, y: float) -> tuple[float, float]:
        k = self.scale
        if self.degrees == 90:
            return k * y, k * (self.width - x)
        if self.degrees == 180:
            return k * (self.width - x), k * (self.height - y)
        if self.degrees == 270:
            return k * (self.height - y), k * x
        return k * x, k * y

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
        (ax, ay), (bx, by) = self.point(x0, y0), self.point(x1, y1)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)

