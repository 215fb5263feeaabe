"""A password of one word, written unquoted in a sentence (pure): "my password is swordfish",
"mein Passwort ist Sonnenblume", "mi contraseña es mariposa", "mon mot de passe est papillon".

The same sentence with a word that *describes* the password is prose: "my password is wrong",
"Das Passwort ist falsch", "mi contraseña es segura", "mon mot de passe est expiré". What tells
them apart here, without a dictionary:

* the word ends the clause (the line, or ``. , ; ! ? )`` or a closing quote follows): "is stored in the vault",
  "est trop long" and "is swordfish and ..." are not read;
* it is not a word that says what a password is like, whose it is or where it is (a list in four
  languages), nor shaped like one: a participle or an adjective by its ending (``-ed``, ``-ing``,
  ``-able``, ``-ive``, ``-ous``, ``-ado``, ``-ida``, ``-é``, ``-eux``...);
* in German, it is written with a capital (a noun): adjectives are not.

Words that end like adjectives are missed as passwords ("elephant", "crystal"); a noun that is
also a description ("Pflicht") is listed.
"""

from __future__ import annotations

import re

#: Words that say what a password is like, whose, or where: never read as the password itself.
_DESCRIBING = frozenset("""
this that these those it what which who mine yours ours his hers theirs here there same none nothing
something everything anything empty blank wrong right correct incorrect invalid valid weak strong
secure insecure safe unsafe long short required optional mandatory unique different known unknown
new old fine good bad ok okay great simple easy hard complex obvious public private secret visible
hidden set unset reset gone lost forgotten expired changed stored saved encrypted hashed missing
default temporary permanent random protected shared personal sensitive confidential important
necessary compromised leaked exposed stolen predictable memorable active inactive locked unlocked
identical similar weaker stronger longer shorter better worse best worst below above attached
included enclosed ready available unavailable unchanged broken too also still now not null nil
true false yes no unknown needed useless case sensitive insensitive mandatory encrypted plaintext
cleartext plain text numeric alphanumeric correct
ist falsch richtig sicher unsicher leer pflicht geheim neu alt gleich anders ungültig gültig
abgelaufen erforderlich optional korrekt lang kurz schwach stark einfach schwer privat öffentlich
segura seguro insegura inseguro incorrecta incorrecto correcta correcto obligatoria obligatorio débil
fuerte válida valida inválida invalida larga largo corta corto nueva nuevo vieja viejo antigua
antiguo única unica diferente igual secreta secreto privada privado pública publica vacía vacia
requerida necesaria fácil facil difícil dificil simple sencilla complicada compleja mía mia tuya
suya esta esa otra buena mala temporal aleatoria errónea erronea falsa verdadera opcional personal
importante distinta débil nula
incorrect incorrecte correcte obligatoire faible fort forte valide invalide vide requis requise
longue court courte nouveau nouvelle ancien ancienne identique secrète privée publique facile
difficile compliqué complexe mien tien sien nôtre vôtre temporaire aléatoire personnel personnelle
importante optionnel optionnelle bon bonne mauvais mauvaise perdu oublié différent différente sûr
sûre nul nulle
""".split())

#: Endings of participles and adjectives in English, Spanish and French; in German.
_DESCRIBING_ENDINGS = (
    "ed", "ing", "able", "ible", "ive", "ous", "ful", "less", "ly", "ent", "ant", "ic", "al", "ary", "ory",
    "ado", "ada", "ido", "ida", "ados", "adas", "idos", "idas", "oso", "osos", "osas", "ble", "ista",
    "é", "ée", "és", "ées", "if", "ive", "eux", "euse", "aire", "ique",
)
_GERMAN_ENDINGS = ("ig", "lich", "isch", "bar", "los", "iert", "haft", "sam")

#: The word after the copula, ending its clause: a single word of letters only.
WORD = r"""(?P<v>[^\W\d_]{4,24})(?=\s*(?:[.!,;?)"'”»}\]]|$))"""


def word_password(value: str, endings: tuple[str, ...] = _DESCRIBING_ENDINGS) -> bool:
    """Whether the clause-final ``value`` (letters only) after "password is" is the password."""
    lowered = value.lower()
    if lowered in _DESCRIBING or lowered.startswith(("pass", "contrase", "kennw")):
        return False
    return not lowered.endswith(endings)


def german_word_password(value: str) -> bool:
    """A German password word: a noun, so capitalised (adjectives, which describe, are not)."""
    return value[:1].isupper() and word_password(value, _GERMAN_ENDINGS)


#: "... password (for the wifi) is WORD" in English, and "mot de passe ... est WORD" and its
#: Spanish form; the German one, with its nouns capitalised, is :data:`GERMAN`.
SENTENCE = re.compile(
    r"(?i)\b(?:pass(?:word|phrase)|contraseña|contrasena|clave|mot\s+de\s+passe)\b"
    r"(?:\s+(?:for|of|to|on|de|du|pour|para|del)(?:\s+[\w@-]+(?:\.[\w@-]+)*){1,4}?)?"
    r"\s+(?:is|was|es|era|est|était)\s+" + WORD
)
GERMAN = re.compile(
    r"(?i)\b(?:passwort|kennwort)\b(?:\s+(?:für|von|des)(?:\s+[\w@-]+(?:\.[\w@-]+)*){1,3}?)?"
    r"\s+(?:ist|lautet|war)\s+" + WORD.replace("(?P<v>", "(?P<v>(?-i:[A-ZÄÖÜ])")
)
