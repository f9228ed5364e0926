"""Tokenizer: scientific-text conventions (decimals, chemical names, PTB clitics)."""

from __future__ import annotations

import pytest

from coresc.tokenize import tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("We measured the samples.", ["We", "measured", "the", "samples", "."]),
        ("at 0.05 mM and 1,000 K", ["at", "0.05", "mM", "and", "1,000", "K"]),
        ("a 3.2e-5 m gap", ["a", "3.2e-5", "m", "gap"]),
        ("the well-known 2,4-dinitrophenol", ["the", "well-known", "2,4-dinitrophenol"]),
        ("N,N-dimethylformamide and Fe(III)", ["N,N-dimethylformamide", "and", "Fe(III)"]),
        ("the 5'-end of CO2-rich gas", ["the", "5'-end", "of", "CO2-rich", "gas"]),
        ("samples (n = 5) [12].", ["samples", "(", "n", "=", "5", ")", "[", "12", "]", "."]),
        ("e.g. Smith et al. (Fig. 3b)", ["e.g.", "Smith", "et", "al.", "(", "Fig.", "3b", ")"]),
        ("it doesn't; the cell's size", ["it", "does", "n't", ";", "the", "cell", "'s", "size"]),
        ("10–20% at 25 °C", ["10", "–", "20", "%", "at", "25", "°C"]),
        ("p<0.01, x ± 0.2", ["p", "<", "0.01", ",", "x", "±", "0.2"]),
        ("see https://example.org/a.b.", ["see", "https://example.org/a.b", "."]),
        ("the 'term' ...", ["the", "'", "term", "'", "..."]),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_empty_and_whitespace() -> None:
    assert tokenize("") == []
    assert tokenize("  \n\t ") == []


def test_no_characters_lost_but_spaces() -> None:
    text = "The α-helix (residues 12–40) binds Cu(2+) at pH 7.4; cf. Eq. 3 [Ref. 9]."
    assert "".join(tokenize(text)) == "".join(text.split())
