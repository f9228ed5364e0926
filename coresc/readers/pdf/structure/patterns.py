"""The words and shapes that tell the parts of a paper apart: headings' numbers, caption
labels, the abstract's, keywords', back matter's and front matter's names (in the
languages of the readers' users), and how a sentence ends."""

from __future__ import annotations

import re

# (a letter past H with its stop: IEEE's subsections run on to "J. Statistical analysis")
# (".1": an appendix's section in a class that numbers it under an empty chapter number,
# memoir's article style)
NUMBER = re.compile(r"^((?:\d{1,2}|[IVX]{1,4}|[A-H]|[J-Z](?=\.))(?:\.\d{1,2}){0,3}|\.\d{1,2})"
                    r"\.?\s+(?=\S)")
#: What a bulleted list's items open with.
BULLETS = "\u2022\u25e6\u25aa\u2023\u2043\u25cf\u25cb\u25a0\u00b7"
# A list item's bullet, number or letter ("•", "1.", "(b)", "iv)"), as the XML readers
# leave it out ("a." and "V." are not: "E. coli", "V. cholerae").
ENUMERATOR = re.compile(r"^(?:[" + BULLETS + r"]|\(?(?:\d{1,2}|[ivx]{1,4}|[a-h])\)|"
                        r"\d{1,2}\.)\s+(?=[^\W\d_])")
CAPTION = re.compile(
    r"^((?:supplementary\s+|suppl\.\s+)?(?:fig(?:ure)?s?|fig|table|tabela|tabla|quadro|cuadro|"
    r"gr[áa]fico|scheme|chart|plate|box|figura|algorithm|abbildung|abb|tabelle|tab|"
    r"tableau|tabella|figuur|tabel|рис(?:унок)?|таблица|图|表|図)"
    r"(?:\.?\s*(?:S?\d{1,3}[A-Za-z]?|[IVX]{1,4})(?:\s*[.:|\u2014\u2013-])?|"
    r"[.:](?=\s)))\s*(?=\S|$)", re.I)  # (SciELO's only figure: "Figure. Flow diagram")
ABSTRACT = re.compile(
    r"^(?:abstract|summary|resumo|resumen|r[ée]sum[ée]|zusammenfassung|kurzfassung|"
    r"sommario|riassunto|samenvatting|аннотация|резюме|реферат|"
    r"摘\s*要|要\s*旨|概\s*要|要\s*約|抄\s*録)(?![^\W\d_])\s*[.:\uff1a\u2014-]?\s*"
    r"(?:\u2014\s*)?", re.I)  # (French: "Résumé. — Biofilms ...")
# The first part of a structured abstract that has no "Abstract" heading.
ABSTRACT_PART = re.compile(r"^(?:background|objectives?|purpose|aims?|context|"
                            r"introduction|rationale)\b", re.I)
KEYWORDS = re.compile(r"^(?:key\s*-?\s*words?|palavras[- ]chave|palabras[- ]clave|descriptors|"
                       r"descritores|descriptores|index terms|subjects?(?=\s*[:\u2014]|\s*$))\b",
                      re.I)  # ("Subject selection" heads a section)
# Back matter skipped to the next heading as high (the references, ENDS, end the paper).
BACK = re.compile(
    r"^(?:acknowledg|agradecimentos?|agradecimientos?|"
    r"funding|financiamento|financiaci[óo]n|fomento|author['\u2019]?s?['\u2019]? contributions?|"
    r"contribui[çc]|competing interests?|conflicts? of interests?|conflito|"
    r"conflicto|declarations?|additional files?|abbreviations|list of abbreviations|availability|"
    r"data availability|ethics approval|consent for publication|author details|"
    r"publisher['\u2019]?s note|editors['\u2019]? summary|author summary|notes?$|endnotes|"
    r"footnotes|"
    r"about the authors?|how to cite|cite this|orcid|disclosure|financial disclosure|"
    r"danksagung|dank$|f[öo]rderung|interessenkonflikt|remerciements?|financement|"
    r"conflits? d'int[ée]r[êe]ts?|ringraziamenti|finanziamento|conflitto|dankwoord|"
    r"dankbetuiging|financiering|belangenconflict|благодарност|финансирование|"
    r"конфликт интересов|致\s*谢|致\s*謝|谢\s*辞|謝\s*辞|資金|基金(?:项目|資助)|利益相反)",
    re.I)
# A table of contents' heading: what follows it is skipped to the next heading as high.
# (and its lists of figures and tables: ASME's review copy sets them after the references)
CONTENTS = re.compile(r"^(?:(?:table of )?contents|list of (?:figures|tables)|"
                      r"inhalt(?:sverzeichnis)?|table des mati[èe]res|"
                      r"sommaire|indice|inhoud(?:sopgave)?|sum[áa]rio|содержание|оглавление|"
                      r"目\s*录|目\s*次|目\s*錄)$", re.I)
# A line of a table of contents: an entry, dot leaders or a wide gap, a page number (or
# a long run of spaced leaders, where the page numbers stand in a column of their own).
CONTENTS_LINE = re.compile(r"(?:\.\s*){3,}\s*[\divxlc]+$|\u2026+\s*[\divxlc]+$|"
                           r"(?:\.\s+){8,}\.?$", re.I)
# The reference list's heading: what follows is skipped, up to a back section (APPENDIX).
ENDS = re.compile(r"^(?:references?|bibliography|literature cited|works cited|"
                   r"refer[êe]ncias|referencias|bibliograf|literatur(?:verzeichnis|"
                   r"liste)?$|quellen(?:verzeichnis)?$|r[ée]f[ée]rences(?: bibliographiques)?|"
                   r"riferimenti(?: bibliografici)?|referenties|literatuur(?:lijst)?$|"
                   r"список литературы|литература|библиография|использованная литература|"
                   r"参\s*考\s*文\s*献|參\s*考\s*文\s*獻|引\s*用\s*文\s*献|文\s*献$)", re.I)
# A section after the references that is the paper's own text: an appendix, the online
# methods of a Nature paper, supplementary methods (read as a back section).
APPENDIX = re.compile(r"^(?:appendi(?:x|ces)|annex(?:e|es)?|anhang|appendice|bijlage|"
                      r"ap[êe]ndice|ap[ée]ndice|приложени|付\s*録|附\s*录|"
                      r"(?:online\s+)?methods?$|online methods|supplementary (?:methods|"
                      r"text|notes?)|materials? and methods)", re.I)
# Labelled front matter that sits among the abstract and first columns.
FRONT_LABEL = re.compile(
    r"^(?:citation|academic editor|editor|received|accepted|published|copyright|"
    r"funding|competing interests|abbreviations|e-?mail|correspond|\*\s*e-?mail|"
    r"open access|doi|issn|how to cite|recebido|aceito|aprovado|publicado|"
    r"recibido|aceptado|article info|keywords?|data availability|licen[sc]e|"
    r"this is an open|edited by|reviewed by|submitted)\b|^(?:\u00a9|\(c\)\s)", re.I)
SMALL_PRINT = re.compile(r"^(?:source|fonte|fuente|note|nota|notes|abbreviations?)\s*:", re.I)
# A caption's own DOI at its end (PLOS, eLife): not part of its text, as in their XML.
DOI_TAIL = re.compile(r"\s*(?:doi|DOI):\s*10\.\S+\s*$")
# A supplementary file's locator alone (PLOS: "Found at: doi:10.1371/... (0.63 MB XLS)")
LOCATOR = re.compile(r"^(?:found at:?\s*)?doi:?\s*10\.\d{4,}/\S+(?:\s*\([^)]{0,40}\))?$", re.I)
SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")

TOP = re.compile(r"^(?:introduc|background|related work|methods?|materials?|results?|"
                  r"discussion|conclusions?|introdu[çc][ãa]o|m[ée]todos?|resultados|"
                  r"discuss[ãa]o|discusi[óo]n|conclus|considera[çc][õo]es|experiments?|"
                  r"evaluation|references|acknowledg|einleitung|einf[üu]hrung|methoden|ergebnisse|"
    r"diskussion|schlussfolgerung|fazit|introduzione|metodi|risultati|discussione|"
    r"conclusioni|inleiding|methoden|resultaten|discussie|conclusie|m[ée]thodes?|"
    r"r[ée]sultats|введение|методы|результаты|обсуждение|заключение|выводы|"
    r"引\s*言|前\s*言|介\s*绍|方\s*法|结\s*果|讨\s*论|结\s*论|はじめに|序論|結果|考察|結論)", re.I)
# A chapter's or appendix's label before its title ("Chapter 1 Introduction",
# "Appendix A Discussion"): the label is its number.
LABELLED = re.compile(r"^(?:chapter|appendix|appendice|ap[éê]ndice|kapitel|anhang|chapitre|"
                      r"annexe|cap[íi]tulo|capitolo|hoofdstuk|bijlage)\s+"
                      r"(\d{1,2}|[A-H]|[IVX]{1,4})\.?:?\s+(?=\S)", re.I)
