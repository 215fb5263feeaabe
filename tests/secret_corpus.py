"""A generated corpus of everyday credentials, their innocent disguises, and prose about them.

Written for memfs from the formats the open secret scanners document (gitleaks' rule file, the
detect-secrets plugins, trufflehog's detectors): an AWS secret access key is 40 characters of
``[A-Za-z0-9/+]`` found next to an ``aws ... secret/key`` name; generic assignments are a name
holding ``secret``/``password``/``token``/``api_key``... then ``=`` or ``:`` and a value of
enough variety; connection URLs carry ``user:password@``; and the false positives they allow for
are placeholders (``<password>``, ``${DB_PASSWORD}``, ``changeme``), words, slugs and hashes.
The values are random (seeded), never taken from those projects.

:data:`KINDS` maps each credential kind to a function giving ``(text, value)`` for one sample;
:data:`DISGUISES` maps each disguise to a function of ``(text, value)``; :data:`PROSE` is text
that talks about passwords, keys and tokens without holding one, in six languages, and ordinary
technical text; none of it may be refused.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable

Sample = tuple[str, str]

_SYMBOLS = "!*-_#%^~"


def _mixed(rng: random.Random, size: int, alphabet: str) -> str:
    """A random value of ``size`` characters from ``alphabet`` holding an upper- and a lower-case
    letter and a digit (as generated credentials do)."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(size))
        if any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value):
            return value


def _aws(rng: random.Random) -> str:
    return _mixed(rng, 40, string.ascii_letters + string.digits + "/+")


def _password(rng: random.Random) -> str:
    return _mixed(rng, rng.randint(10, 16), string.ascii_letters + string.digits + _SYMBOLS)


def _alnum(rng: random.Random, size: int) -> str:
    return _mixed(rng, size, string.ascii_letters + string.digits)


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _pick(rng: random.Random, *forms: str) -> str:
    return rng.choice(forms)


def _with(value: str, form: str) -> Sample:
    return form.format(v=value), value


KINDS: dict[str, Callable[[random.Random], Sample]] = {
    "aws-credentials-file": lambda r: _with(_aws(r), _pick(
        r, "[default]\naws_secret_access_key = {v}", "[prod]\nregion = eu-west-1\naws_secret_access_key={v}")),
    "aws-export": lambda r: _with(_aws(r), _pick(
        r, "export AWS_SECRET_ACCESS_KEY={v}", 'export AWS_SECRET_ACCESS_KEY="{v}"', "AWS_SECRET_ACCESS_KEY: {v}")),
    "aws-sentence": lambda r: _with(_aws(r), _pick(
        r, "The AWS secret is {v}", "our aws secret key: {v}", "AWS secret access key is {v} (rotate monthly)")),
    "env-secret": lambda r: _with(_password(r), _pick(
        r, "APP_SECRET={v}", "JWT_SECRET={v}", "SOME_SECRET='{v}'", "client_secret: {v}")),
    "env-password": lambda r: _with(_password(r), _pick(
        r, "DB_PASSWORD={v}", "export PGPASSWORD={v}", "MYSQL_ROOT_PASSWORD: {v}", "smtp_password = {v}")),
    "connection-url": lambda r: _with(_password(r).replace("#", "x").replace("%", "y"), _pick(
        r, "postgres://app:{v}@db.internal:5432/app", "mysql://root:{v}@localhost/shop",
        "redis://default:{v}@cache:6379/0", "mongodb+srv://svc:{v}@cluster0.example.net/prod")),
    "github-token": lambda r: _with("ghp_" + _alnum(r, 36), "GITHUB_TOKEN is {v}"),
    "slack-token": lambda r: _with(f"xoxb-{r.randint(10**11, 10**12 - 1)}-{r.randint(10**12, 10**13 - 1)}-"
                                   + _alnum(r, 24), "slack bot: {v}"),
    "stripe-key": lambda r: _with("sk_live_" + _alnum(r, 24), "stripe {v}"),
    "openai-key": lambda r: _with("sk-proj-" + _alnum(r, 40), "OPENAI_API_KEY={v}"),
    "anthropic-key": lambda r: _with("sk-ant-api03-" + _alnum(r, 40), "use {v} for claude"),
    "google-api-key": lambda r: _with("AIza" + _alnum(r, 35), "maps key {v}"),
    "private-key": lambda r: _with(f"-----BEGIN {_pick(r, 'RSA', 'OPENSSH', 'EC')} PRIVATE KEY-----",
                                   "{v}\nMIIEpAIBAAKCAQEA\n"),
    "jwt": lambda r: _with("eyJhbGciOiJIUzI1NiJ9." + _b64url(f'{{"sub":"{_alnum(r, 12)}"}}') + "." + _alnum(r, 43),
                           "session cookie {v}"),
    "password-en": lambda r: _with(_password(r), _pick(
        r, "my password is {v}", "The password for the staging box is {v}", "wifi password: {v}")),
    "password-zh": lambda r: _with(_password(r), _pick(r, "密码是 {v}", "我的密码是{v}", "wifi密码：{v}")),
    "password-de": lambda r: _with(_password(r), _pick(r, "mein Passwort ist {v}", "Das Kennwort lautet {v}")),
    "password-es": lambda r: _with(_password(r), _pick(
        r, "mi contraseña es {v}", "La contraseña del servidor es {v}")),
    "password-fr": lambda r: _with(_password(r), _pick(
        r, "mon mot de passe est {v}", "Le mot de passe du wifi est {v}")),
    "password-ja": lambda r: _with(_password(r), _pick(r, "パスワードは {v} です", "パスワード：{v}")),
    "password-words": lambda r: _words(r),
    "password-word-unquoted": lambda r: _unquoted_word(r),
}

_ZH_WORDS = ["春天来了", "小猫钓鱼", "大河向东流", "月亮代表我的心", "青山绿水", "长城万里"]
_JA_WORDS = ["さくらさくら", "はるがきた", "ふじやま", "うみのおと"]
_LATIN_WORDS = ["sunflower", "Sonnenblume", "mariposa", "papillon", "swordfish", "Tannenbaum"]


def _words(rng: random.Random) -> Sample:
    """A password of words only, no digits or symbols (what a person picks and says aloud)."""
    zh, ja, latin = rng.choice(_ZH_WORDS), rng.choice(_JA_WORDS), rng.choice(_LATIN_WORDS)
    return rng.choice([
        _with(zh, "我的密码是{v}"), _with(zh, "wifi密码是{v}，别告诉别人"), _with(zh, "密码是「{v}」"),
        _with(ja, "パスワードは「{v}」です"), _with(latin, 'my password is "{v}"'),
        _with(latin, "mein Passwort ist '{v}'"), _with(latin, 'mi contraseña es "{v}"'),
        _with(latin, "mon mot de passe est « {v} »".replace("« ", '"').replace(" »", '"')),
    ])

_NOUNS = ["swordfish", "sunflower", "lighthouse", "pineapple", "mariposa", "girasol", "tortuga", "papillon",
          "tournesol", "grenouille"]
_GERMAN_NOUNS = ["Sonnenblume", "Tannenbaum", "Schmetterling", "Kartoffel", "Leuchtturm"]


def _unquoted_word(rng: random.Random) -> Sample:
    """A password of one word, unquoted, ending its sentence, in English, German, Spanish, French."""
    word, noun = rng.choice(_NOUNS), rng.choice(_GERMAN_NOUNS)
    return rng.choice([
        _with(word, "my password is {v}"), _with(word, "The wifi password is {v}."),
        _with(noun, "mein Passwort ist {v}"), _with(noun, "Das Kennwort lautet {v}."),
        _with(word, "mi contraseña es {v}"), _with(word, "mon mot de passe est {v}"),
    ])


_CYRILLIC = str.maketrans("aeopcxyisjABEKMHOPCTX", "аеорсхуіѕјАВЕКМНОРСТХ")
_INVISIBLES = "\u034f\u115f\u3164\ufe0f\u200b\u2060\u00ad"


def _invisible(text: str, value: str) -> str:
    marked = "".join(c + (_INVISIBLES[i % len(_INVISIBLES)] if i % 3 == 2 else "") for i, c in enumerate(value))
    return text.replace(value, marked)


def _split(text: str, value: str) -> str:
    return text.replace(value, value[: len(value) // 2] + "\n" + value[len(value) // 2 :])


def _html(text: str, value: str) -> str:
    return "".join(f"&#{ord(c)};" if i % 2 else f"&#x{ord(c):x};" for i, c in enumerate(text))


def _percent(text: str, value: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def _base64(text: str, value: str) -> str:
    return "apiVersion: v1\nkind: Secret\ndata:\n  config: " + base64.b64encode(text.encode()).decode()


def _json(text: str, value: str) -> str:
    return '{"note": "' + "".join(f"\\u{ord(c):04x}" for c in text) + '"}'


DISGUISES: dict[str, Callable[[str, str], str]] = {
    "plain": lambda text, value: text,
    "invisible": _invisible,
    "cyrillic": lambda text, value: text.translate(_CYRILLIC),
    "split": _split,
    "html-entities": _html,
    "percent": _percent,
    "base64": _base64,
    "json-escapes": _json,
}


def samples(per_kind: int = 8, seed: int = 26) -> list[tuple[str, str, str]]:
    """``(kind, disguise, text)`` for ``per_kind`` samples of each kind in each disguise."""
    rng = random.Random(seed)
    out = []
    for kind, make in KINDS.items():
        for _ in range(per_kind):
            text, value = make(rng)
            out += [(kind, name, hide(text, value)) for name, hide in DISGUISES.items()]
    return out


PROSE_PASSWORDS = [
    "`[--password <password>]`",
    "(graphs, or password access)",
    "Reset your password in settings.",
    "The password field must be 12 characters.",
    "Use a password manager; never reuse a password.",
    "password: <your password here>",
    "DB_PASSWORD=${DB_PASSWORD}",
    "export API_TOKEN=$API_TOKEN",
    "postgres://user:<password>@localhost/db",
    "The password is stored in the team vault.",
    "my password is in 1Password",
    "Rotate the AWS secret key every 90 days.",
    "aws_secret_access_key = YOUR_SECRET_ACCESS_KEY",
    "Tokens expire after 3600 seconds; refresh with the refresh token.",
    "max_tokens: 4096",
    "author: Jane-Doe-2024",
    "auth-method: oauth2-pkce",
    "The API key goes in the Authorization header.",
    "SECRET_KEY must be set in production.",
    "password policy: at least 12 characters, one digit",
    "She forgot her password again and asked for a reset link.",
    "Passwords are hashed with argon2id before storage.",
    "token_type: bearer",
    "client_secret: changeme",
    "密码必须包含数字",
    "密码是用户自己设置的",
    "请修改默认密码。",
    "忘记密码时，可以通过邮箱重置。",
    "密码长度至少为 8 位",
    "密码是多少？",
    "密码为空时无法登录。",
    "密码是加密存储的。",
    "我的密码是随机生成的，很复杂",
    "管理员密码是必填项",
    "パスワードは「8文字以上」にしてください。",
    'The password is "required" for every account.',
    "mi contraseña es muy segura",
    "API 密钥保存在保险库里。",
    "Das Passwort muss mindestens 12 Zeichen lang sein.",
    "Passwort ist 12 Zeichen lang",
    "Ich habe mein Passwort vergessen.",
    "Bitte ändern Sie Ihr Kennwort regelmäßig.",
    "Der API-Schlüssel liegt im Tresor.",
    "mi contraseña es segura",
    "my password is wrong",
    "The password is incorrect.",
    "Your password is weak; the new one is stronger.",
    "the password for the router is unchanged",
    "What is the password?",
    "Das Passwort ist falsch.",
    "Das Passwort ist Pflicht.",
    "mi contraseña es incorrecta",
    "mon mot de passe est expiré",
    "Le mot de passe est obligatoire.",
    "Olvidé mi contraseña otra vez.",
    "La contraseña debe tener al menos ocho caracteres.",
    "Cambia la clave del wifi cada mes.",
    "El token caduca en una hora.",
    "mon mot de passe est trop long",
    "J'ai oublié mon mot de passe.",
    "Le mot de passe doit contenir un chiffre.",
    "Changez votre mot de passe tous les trois mois.",
    "La clé API est dans le coffre.",
    "パスワードを忘れました。",
    "パスワードは8文字以上にしてください。",
    "パスワードは金庫に保管しています。",
    "APIキーは環境変数で渡します。",
    "トークンの有効期限は1時間です。",
]

PROSE_TECHNICAL = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the build",
    "request id 550e8400-e29b-41d4-a716-446655440000",
    "upgrade to 3.12.1, then 3.12.2\nand 4.0.0-rc1",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    base64.b64encode(b"hello ordinary words, nothing to hide here").decode(),
    base64.b64encode(b"The meeting moved to Thursday at 3pm.").decode(),
    "def login(user, password):\n    return check(user, password)",
    "if not token:\n    raise AuthError('missing token')",
    "https://example.com/search?q=password%20reset&lang=en",
    "&lt;input type=&quot;password&quot; name=&quot;pw&quot;&gt;",
    '{"label": "\\u5bc6\\u7801", "type": "password"}',
    "git clone https://github.com/example/project.git",
    "ssh://git@github.com:22/example/project.git",
    "image: ghcr.io/example/app@sha256:3f786850e387550fdab836ed7e6dc881de23001b",
    "The deploy took 4111 seconds and 1111 retries.",
    "phone 2024\n2025\n2026\n2027",
    "AbstractSingletonProxyFactoryBeanDefinitionRegistry",
    "/usr/local/lib/python3.11/site-packages/requests/auth.py",
    "Поменяйте пароль от почты.",
    "Λέξη-κλειδί: ασφάλεια",
    # a LangGraph item's frontmatter: a namespace ending in "private" above the item's key
    "scope: langgraph/test/private\nkey: doc2\nsource: agent:graph\n",
]

PROSE = PROSE_PASSWORDS + PROSE_TECHNICAL
