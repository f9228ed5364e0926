"""``coresc serve``: a web service and an upload page (the optional extra ``coresc[serve]``).

Modules: :mod:`.work` (what a worker process does with one request: the CLI's bytes),
:mod:`.pool` (the bounded pool of worker processes), :mod:`.http` (body, form, media
types), :mod:`.app` (the FastAPI application). Only :mod:`.app` imports FastAPI.
"""
