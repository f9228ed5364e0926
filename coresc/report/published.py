"""Published reference values a report shows beside the runs (not results of coresc)."""

from __future__ import annotations

import re

#: Published reference values (not our results). Source: the Multi-CoreSC CRA corpus paper,
#: section 4 and Table 8, as summarised in ../shared/docs/coresc-scheme.md
#: ("Reference results"). F1 in percent per label of a CRF trained and tested on CRA
#: (3-fold cross-validation, primary label only).
PUBLISHED_CRA_CRF_F1: dict[str, float] = {
    "Bac": 76.7, "Con": 53.9, "Exp": 83.4, "Goa": 54.2, "Hyp": 13.9, "Met": 58.3,
    "Mod": 0.0, "Mot": 43.9, "Obj": 27.0, "Obs": 43.0, "Res": 68.3,
}
#: Published accuracies (percent), same source.
PUBLISHED_ACCURACY: dict[str, tuple[float, str]] = {
    "art-9fold": (50.4, "SAPIENTA CRF, 9-fold CV on ART (265 papers)"),
    "art-to-cra": (51.9, "SAPIENTA trained on ART, run on CRA"),
}
PUBLISHED_SOURCE = ("Multi-CoreSC CRA corpus paper, section 4 / Table 8 "
                    "(../shared/docs/coresc-scheme.md)")


def parse_published_f1(doc_text: str) -> dict[str, float]:
    """The per-label F1 list of the scheme doc ("F1 per label: Bac 76.7, Con 53.9, ...")."""
    m = re.search(r"F1 per\s+label:\s*(.+?)\.\s*(?:\n\s*\n|\n-|$)", doc_text, re.S)
    if not m:
        return {}
    return {lab: float(v) for lab, v in re.findall(r"([A-Z][a-z]{2})\s+(\d+(?:\.\d+)?)",
                                                    m.group(1))}
