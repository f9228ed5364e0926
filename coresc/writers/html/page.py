"""The page shell: a self-contained HTML page with the view's CSS and script inlined, and
a Content-Security-Policy that allows only the page's own scripts (by hash)."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .styles import esc


@cache
def _static(name: str) -> str:
    return resources.files("coresc").joinpath("static", name).read_text(encoding="utf-8")



@dataclass(frozen=True)
class Addon:
    """What an application adds to a paper's page (``coresc review``): CSS, HTML at the
    top of the body (and data blocks), a script run after the view's own, whether
    the page may talk to the server it came from (``connect-src 'self'``), and where a
    PDF paper's page images are (``pages``: a URL with ``{n}`` for the page's index,
    served by that server, so ``img-src 'self'``; else they are embedded)."""

    css: str = ""
    html: str = ""
    script: str = ""
    connect: bool = False
    pages: str = ""


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def page(title: str, body: str, *, body_class: str = "", script: bool = True,
          addon: Addon | None = None) -> str:
    addon = addon or Addon()
    css = _static("view.css") + addon.css
    scripts = [js for js in (_static("view.js") if script else "", addon.script) if js]
    hashes = " ".join(f"'sha256-{_sha256(js)}'" for js in scripts) or f"'sha256-{_sha256('')}'"
    images = "data: 'self'" if addon.pages else "data:"
    csp = ("default-src 'none'; style-src 'unsafe-inline'; "
           f"img-src {images}; "
           f"script-src {hashes}" + ("; connect-src 'self'" if addon.connect else ""))
    cls = f' class="{body_class}"' if body_class else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="coresc">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{esc(title)}</title>\n<style>\n{css}</style>\n</head>\n"
        f"<body{cls}>\n{addon.html}{body}\n"
        + "".join(f"<script>{js}</script>\n" for js in scripts)
        + "</body>\n</html>\n"
    )


def html_page(title: str, body: str, addon: Addon | None = None) -> str:
    """A page in the view's style around ``body`` (HTML), without the view's script."""
    return page(title, body, script=False, addon=addon)
