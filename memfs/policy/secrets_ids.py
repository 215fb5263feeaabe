"""ID documents by name, bound to their number (pure): the pattern of the scanner's
``secret/id-document`` rule (:mod:`memfs.policy.secrets_scan`).

A user who types their ID number means it, whether or not the number is real: a name of an ID
document bound to an identifier is refused whether or not any checksum validates (checksummed
numbers without a name, payment cards and Chinese resident IDs, are found by their own rules).

Two kinds of name, bound two ways:

* :data:`NAMED`: a document named outright, in a dozen languages (passport, driving licence,
  national ID, 护照, Personalausweis, パスポート...). A few words may come between the name and
  the number ("passport number for the trip is ...", "号是").
* :data:`BY_KIND`: a document recognised by the structure of its name: an identity-number
  acronym (SIN, SSN, TIN, NINO...; upper case only, so "sin" and "tin" stay words), a residence or
  tax document ("residence card", "tax ID", "green card"), and the CJK compounds of 证/證 (a
  certificate: 台胞证, 居住证, 工作证; not 验证, 保证, 凭证), of 卡 after a word of identity or
  residence (居留卡, 在留卡, 社保卡; not 会员卡, 银行卡) and of 号 after one (社安号, 税号, 证件号;
  not 订单号, 手机号). These names are common words too, so the number must follow at once, at
  most after "number", "no.", 号码, a colon or "is"/是 (:data:`TIGHT_GAP`): "签证办好了，航班号
  CA1234" is not a visa number.

The number (:data:`NUMBER`) is identifier-shaped: 6 to 28 letters and digits, at least three of
them digits, optionally grouped by hyphens or by spaces between digits; :func:`is_number` then
drops dates and year ranges. Order numbers, phone numbers, versions, tracking numbers and ticket
ids are never preceded by a document's name, so they pass (tests/unit/test_gate_ids.py).
"""

from __future__ import annotations

import re

#: ID documents named outright, in the languages memfs is used in.
NAMED = (
    r"passports?|pass(?:port)?\s+(?:no|nr|number)|travel\s+document|driv(?:er['’]?s?|ing)\s+licen[cs]e|licen[cs]e\s+"
    r"(?:no|number)|national\s+(?:id|identity|insurance)|identity\s+(?:card|number|document)|"
    # an ID number, not an order's, a ticket's or a user's ("order ID number 998877665")
    r"id(?<!order\sid)(?<!ticket\sid)(?<!tracking\sid)(?<!user\sid)(?<!customer\sid)(?<!transaction\sid)"
    r"(?<!session\sid)(?<!request\sid)(?<!booking\sid)(?<!account\sid)(?<!device\sid)(?<!product\sid)"
    r"(?<!invoice\sid)[-\s]+(?:card|number)|"
    r"social\s+security|ssn|(?:my|her|his|their)\s+social|residence\s+permit|"
    r"(?:personalausweis|reisepass|ausweis|f(?:ü|ue)hrerschein)(?:nummer)?|"
    r"aufenthalts(?:titel|karte|erlaubnis)|steuer-?(?:id|nummer|identifikationsnummer)|sozialversicherungs(?:nummer|ausweis)|"
    r"carte\s+de\s+s[ée]jour|titre\s+de\s+s[ée]jour|num[ée]ro\s+fiscal|tarjeta\s+de\s+residencia|codice\s+fiscale|"
    r"pasaporte|dni|c[ée]dula|carn[eé]\s+de\s+(?:identidad|conducir)|licencia\s+de\s+conducir|"
    r"passeport|carte\s+d['’]identit[ée]|permis\s+de\s+conduire|s[ée]curit[ée]\s+sociale|num[ée]ro\s+de\s+s[ée]cu|nir|"
    r"passaporto|carta\s+d['’]identit[àa]|"
    r"passaporte|carteira\s+de\s+identidade|paspoort|rijbewijs|paszport|dow[óo]d\s+osobisty|"
    r"aadhaar|"
    r"护照|護照|身份证|身份證|驾照|駕照|驾驶证|駕駛證|驾驶执照|通行证|居留证|社保号|社保卡号|社会保障号|社会安全号|税号|"
    r"パスポート|旅券|運転免許証?|免許証|マイナンバー|個人番号|在留カード|여권|주민등록번호|외국인등록번호|운전면허|신분증"
)
#: Identity-number acronyms, upper case only ("SIN", not the word "sin"), and "my ID" ("my user ID",
#: "order ID" name something else): a pattern of its own, matched in the case written, so that its
#: required strings are too (:func:`memfs.policy.secrets_scan._cased`).
BY_ACRONYM = (
    r"(?<![A-Za-z])(?:SIN|SSN|TIN|ITIN|NINO|BSN|NIE|NIF|CPF|PESEL|PPSN|TFN|NRIC|HKID|UTR|EIN|NHS|"
    r"(?:(?<=\b[Mm]y\s)|(?<=\b[Hh]er\s)|(?<=\b[Hh]is\s)|(?<=\b[Tt]heir\s)|(?<=\b[Yy]our\s))ID)(?![A-Za-z])"
)
#: Whose identity a document records: the words that make a card, a permit or a number an ID document.
_QUALIFIER_EN = (
    r"residen(?:ce|cy|t|tial)|permanent\s+resident|green|alien\s+registration|immigration|"
    r"tax(?:payer)?|social\s+insurance|health(?:\s+insurance)?|medicare|voter|citizen(?:ship)?|"
    r"identity|identification|national|personal\s+(?:id|identity|identification)|visa|pan|nhs"
)
#: Before 证/證: a word it completes (台胞证, 居住证), not one where it means proof or checking (验证, 保证, 凭证).
_NOT_PROOF = "验驗认認保凭憑论論查举舉公引考例佐"
#: An ID document recognised by the structure of its name, in Latin script.
BY_KIND_EN = (
    rf"\b(?:{_QUALIFIER_EN})\s+(?:id|card|permit|title|number|no|code|document)\b|"
    r"\bsocial\s+insurance\b|\bwork\s+permit\b"
)
#: The same in CJK: a certificate (台胞证, 居住证; not 验证, 保证, 凭证, 论证), an identity or
#: residence card, an identity number (社安号, 证件号; not 订单号, 手机号).
BY_KIND_CJK = (
    rf"证(?<=[\u3400-\u9fff]证)(?<![{_NOT_PROOF}]证)(?:件)?|證(?<=[\u3400-\u9fff]證)(?<![{_NOT_PROOF}]證)(?:件)?|"
    r"(?:居留|在留|绿|綠|社保|医保|醫保|身份|居民|永居|永住|外国人|外國人|登记|登記|公民|个人编号|個人編號)卡|"
    r"(?:社安|社保|社会安全|社會安全|社会保险|社會保險|社会保障|社會保障|纳税人识别|納稅人識別|纳税|納稅|税|稅|身份|"
    r"证件|證件|护照|護照|个人编号|個人編號|居民)(?:号|號)"
)
#: Between the document's name and its number: a word or two ("number is", "号是", "番号は"), no digits.
LOOSE_GAP = r"[^\d\n]{0,24}?"
#: Between a document recognised by its kind and its number: nothing but "number", "no.", 号码, a
#: colon or "is"/是 ("SIN: 046 454 286", "台胞证号码是 01234567", "residence card no. Y3F8K21M7").
TIGHT_GAP = (
    r"(?:\s*(?:number|num|no\.?|nr\.?|#|(?:的)?(?:号码|號碼|号|號|编号|編號|番号|番號)))?"
    r"[\s:：=,，]*(?:(?:is|was|reads|是|为|為|は)[\s:：]*)?"
)
#: :data:`TIGHT_GAP` in the case written, for :data:`BY_ACRONYM`.
CASED_GAP = r"(?:\s*(?:[Nn]umber|[Nn]um|[Nn]o\.?|[Nn]r\.?|#))?[\s:=,]*(?:(?:is|was|reads)[\s:]*)?"
#: The number: identifier-shaped, at least three digits.
NUMBER = (
    r"(?<![A-Za-z0-9])(?=(?:[A-Z-]*\d ?){3})"
    r"(?P<v>[A-Z0-9](?:[A-Z0-9-]|(?<=\d) (?=\d)){4,26}[A-Z0-9])(?![A-Za-z0-9])"
)
#: The rule's patterns: a document named outright, then one recognised by its kind in Latin script,
#: by an acronym and in CJK (four patterns, so a text in one script is searched only by the patterns whose
#: words it holds: see :func:`memfs.policy.secrets_scan._candidates`).
PATTERNS = (
    re.compile(rf"(?i)(?<![A-Za-z])(?:{NAMED})(?![A-Za-z]){LOOSE_GAP}{NUMBER}"),
    re.compile(rf"(?i)(?:{BY_KIND_EN}){TIGHT_GAP}{NUMBER}"),
    re.compile(rf"{BY_ACRONYM}{CASED_GAP}" + NUMBER.replace("A-Z", "A-Za-z")),
    re.compile(rf"(?i)(?:{BY_KIND_CJK}){TIGHT_GAP}{NUMBER}"),
)


def is_number(value: str) -> bool:
    """A document number: at least three digits, not a date or a year range ("2027-03-01", "2024 13 05")."""
    date = re.fullmatch(r"\d{4}(?:[-./ ]\d{1,2}){1,2}|\d{4}[- ]\d{4}", value)
    return sum(c.isdigit() for c in value) >= 3 and not date
