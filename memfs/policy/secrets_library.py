"""The ``detect-secrets`` plugins' patterns without importing ``detect-secrets``.

Importing a plugin module runs the package's ``__init__``, which imports its whole scanning
machinery (``requests``, ``urllib3``, ``charset_normalizer``, ``email``...): ~0.15 s of CPU that
every fresh process scanning a text paid (a ``memfs remember``, a ``memfs sync`` judging fetched
commits), for some 40 regular expressions. The patterns are kept in
:mod:`memfs.policy.secrets_library_table`, made from the installed library by
``python -m memfs.policy.secrets_library --write`` with the library's version; a test fails while
the table and the library differ.

:func:`plugin_patterns` answers from the table only when the installed library's version (read
from its ``__version__.py``, without running its package) is the table's; otherwise it loads the
plugins themselves, so a different library version always scans with its own patterns. A
plugin's ``is_formally_valid`` check (JWT's) is imported only when a match is to be checked.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: detect-secrets plugins whose patterns are specific enough for prose: module, class, the
#: finding's slug and what it is.
PLUGINS: dict[str, tuple[str, str, str]] = {
    "aws": ("AWSKeyDetector", "aws-access-key", "AWS access key"),
    "artifactory": ("ArtifactoryDetector", "artifactory-token", "Artifactory token"),
    "azure_storage_key": ("AzureStorageKeyDetector", "azure-storage-key", "Azure storage account key"),
    "discord": ("DiscordBotTokenDetector", "discord-token", "Discord bot token"),
    "github_token": ("GitHubTokenDetector", "github-token", "GitHub token"),
    "gitlab_token": ("GitLabTokenDetector", "gitlab-token", "GitLab token"),
    "jwt": ("JwtTokenDetector", "jwt", "JSON Web Token"),
    "mailchimp": ("MailchimpDetector", "mailchimp-key", "Mailchimp API key"),
    "npm": ("NpmDetector", "npm-token", "npm token"),
    "openai": ("OpenAIDetector", "openai-key", "OpenAI API key"),
    "private_key": ("PrivateKeyDetector", "private-key", "private key"),
    "pypi_token": ("PypiTokenDetector", "pypi-token", "PyPI token"),
    "sendgrid": ("SendGridDetector", "sendgrid-key", "SendGrid API key"),
    "slack": ("SlackDetector", "slack-token", "Slack token"),
    "square_oauth": ("SquareOAuthDetector", "square-oauth-secret", "Square OAuth secret"),
    "stripe": ("StripeDetector", "stripe-key", "Stripe key"),
    "telegram_token": ("TelegramBotTokenDetector", "telegram-token", "Telegram bot token"),
    "twilio": ("TwilioKeyDetector", "twilio-key", "Twilio API key"),
}
TARGET = Path(__file__).with_name("secrets_library_table.py")
REGENERATE = "python -m memfs.policy.secrets_library --write"
_VERSION = re.compile(r"""^VERSION\s*=\s*['"]([^'"]+)['"]""", re.M)


@dataclass(frozen=True)
class PluginPattern:
    """One pattern of a plugin's ``denylist``, and its ``is_formally_valid`` check if it has one."""

    module: str
    pattern: re.Pattern[str]
    accept: Callable[[str], bool] | None


def installed_version() -> str | None:
    """The installed ``detect-secrets``'s version, read from its ``__version__.py`` without
    importing the package; ``None`` when it cannot be read."""
    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        text = (Path(next(iter(spec.submodule_search_locations))) / "__version__.py").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = _VERSION.search(text)
    return found.group(1) if found else None


@functools.cache
def plugin_patterns() -> tuple[PluginPattern, ...]:
    """Every pattern of :data:`PLUGINS`, in order: from the table when it was made from the
    installed version, else from the plugins."""
    from memfs.policy import secrets_library_table as table

    if table.VERSION is not None and installed_version() == table.VERSION:
        return tuple(PluginPattern(module, re.compile(source, flags), _checker(module) if checks else None)
                     for module, source, flags, checks in table.PATTERNS)
    return tuple(PluginPattern(module, pattern, accept) for module, pattern, accept, _ in _loaded())


def _checker(module: str) -> Callable[[str], bool]:
    """The plugin's ``is_formally_valid``, imported when first called."""

    def accept(value: str) -> bool:
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), PLUGINS[module][0])
        return bool(plugin.is_formally_valid(value))

    return accept


def _loaded() -> list[tuple[str, re.Pattern[str], Callable[[str], bool] | None, bool]]:
    """The plugins' patterns read from the plugins themselves (importing ``detect-secrets``)."""
    out: list[tuple[str, re.Pattern[str], Callable[[str], bool] | None, bool]] = []
    for module, (cls, _, _) in PLUGINS.items():
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)
        accept = getattr(plugin, "is_formally_valid", None)
        out.extend((module, pattern, accept, accept is not None) for pattern in plugin.denylist)
    return out


def render() -> str:
    """The table's source, from the installed library."""
    rows = "".join(f"    ({module!r}, {pattern.pattern!r}, {int(pattern.flags)}, {checks}),\n"
                   for module, pattern, _, checks in _loaded())
    return (
        f'"""Made by ``{REGENERATE}`` (:mod:`memfs.policy.secrets_library`): the\n'
        '``detect-secrets`` plugins\' patterns, for the version named here. Do not edit."""\n\n'
        f"VERSION: str | None = {installed_version()!r}\n"
        "#: (plugin module, pattern, flags, whether the plugin checks a match with ``is_formally_valid``)\n"
        f"PATTERNS: tuple[tuple[str, str, int, bool], ...] = (\n{rows})\n"
    )


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {REGENERATE}")
    TARGET.write_text(render(), encoding="utf-8")
