"""The verbs of the ``coresc`` command, one module each (see :mod:`coresc.cli`); the
options several of them share are declared once, in :mod:`coresc.commands.options`."""
