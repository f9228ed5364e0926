"""coresc: label the sentences of scientific papers with CoreSC discourse roles."""

__version__ = "0.1.0"
