"""``coresc review``: correct a model's CoreSC labels in the browser, saved as gold at once
(the optional extra ``coresc[serve]``).

Modules: :mod:`.decisions` (what a person decides, one paper under review),
:mod:`.store` (one annotator's papers on disk: the mode2 files, the state to resume
from, the journal), :mod:`.lock` (one review per folder and annotator), :mod:`.page`
(the pages, built on the HTML view), :mod:`.adapt` (switching to a model adapted to the
reviewed papers), :mod:`.app` (the FastAPI application, on ``coresc serve``'s stack).
Only :mod:`.app` imports FastAPI. The command is :mod:`coresc.commands.review`; the loop
is described in docs/review.md.
"""
