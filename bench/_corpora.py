"""The corpora of ``bench_core`` and the benchmarks built on it: seeded text by kind.

Generated from word lists with a fixed seed, so every run measures the same bytes and
nothing is downloaded: English (ASCII), German (Latin-1 letters), Russian (Cyrillic),
CJK with fullwidth punctuation, English with emoji, and a JSON API response mixing
them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Final

__all__ = ["GENERATORS", "make_corpus"]

#: Generated text is tiled up to the requested size beyond this much (256 KiB).
BASE_TEXT_BYTES: Final = 256 << 10
SEED: Final = 20_240_229

_ENGLISH: Final = (
    "the quick brown fox jumps over lazy dog and then request response server "
    "client header body value error retry timeout cache policy user account "
    "order invoice payment shipping address number street city country open close"
).split()
_GERMAN: Final = (
    "Größe Übung für Änderung schön Straße weiß Fußgänger Bäckerei Öffnungszeiten "
    "Müller Käse Brötchen und oder nicht über unter während Grüße Tür Schlüssel "
    "Mädchen Gemüse Frühstück Zuständigkeit Prüfung ähnlich häufig"
).split()
_RUSSIAN: Final = (
    "съешь же ещё этих мягких французских булок да выпей чаю привет мир запрос "
    "ответ сервер клиент ошибка заказ оплата доставка адрес город страна время"
).split()
_CJK: Final = (
    "我能吞下玻璃而不伤身体",
    "日本語の文章を読みます",
    "漢字とかなを含む",
    "服务器返回了错误",
    "请稍后再试",
    "東京都渋谷区",
    "한국어 문장도 있습니다",
    "감사합니다",
    "数据已保存",
    "ユーザー名とパスワード",
)
# Fullwidth , ! ? : ( ) (U+FF0C, U+FF01, U+FF1F, U+FF1A, U+FF08, U+FF09: lead byte
# EF, like the noncharacters U+FDD0..U+FFFF) and the CJK marks 。、「」 (U+300x).
_CJK_PUNCTUATION: Final = (
    *"\uff0c\uff01\uff1f\uff1a\uff08\uff09",
    *"\u3002\u3001\u300c\u300d",
)
_EMOJI: Final = (
    "😀",
    "😂",
    "🎉",
    "👍🏽",
    "🚀",
    "✨",
    "🔥",
    "❤️",
    "👨‍👩‍👧",
    "🇩🇪",
    "🙈",
    "🤖",
    "☕",
    "🏳️‍🌈",
)
_NAMES: Final = ("Zoë", "José", "Łukasz", "Ægir", "Søren", "Иван", "李雷", "Ayşe")


def _words(rng: random.Random, words: Sequence[str], count: int, sep: str) -> str:
    return sep.join(rng.choice(words) for _ in range(count))


def _prose(rng: random.Random, words: Sequence[str], limit: int) -> str:
    parts: list[str] = []
    total = 0
    while total < limit:
        sentence = _words(rng, words, rng.randint(4, 14), " ").capitalize() + ". "
        parts.append(sentence)
        total += len(sentence.encode())
    return "".join(parts)


def _cjk(rng: random.Random, limit: int) -> str:
    parts: list[str] = []
    total = 0
    while total < limit:
        part = rng.choice(_CJK) + rng.choice(_CJK_PUNCTUATION)
        parts.append(part)
        total += len(part.encode())
    return "".join(parts)


def _emoji(rng: random.Random, limit: int) -> str:
    parts: list[str] = []
    total = 0
    while total < limit:
        text = _words(rng, _ENGLISH, rng.randint(1, 4), " ")
        part = text + " " + _words(rng, _EMOJI, rng.randint(1, 5), "") + " "
        parts.append(part)
        total += len(part.encode())
    return "".join(parts)


def _json_body(rng: random.Random, limit: int) -> str:
    """A JSON API response: ASCII keys and numbers, some non-ASCII names and notes."""
    records: list[dict[str, object]] = []
    total = 0
    while total < limit:
        record: dict[str, object] = {
            "id": rng.randrange(10**9),
            "name": f"{rng.choice(_NAMES)} {rng.choice(_ENGLISH).title()}",
            "email": f"{rng.choice(_ENGLISH)}{rng.randrange(1000)}@example.com",
            "active": rng.random() < 0.5,
            "balance": round(rng.uniform(-1000, 1000), 2),
            "tags": [rng.choice(_ENGLISH) for _ in range(rng.randint(0, 4))],
            "note": rng.choice((_words(rng, _GERMAN, 5, " "), _cjk(rng, 20), "")),
        }
        records.append(record)
        total += len(json.dumps(record, ensure_ascii=False).encode())
    return json.dumps({"data": records, "next": None}, ensure_ascii=False)


GENERATORS: Final[dict[str, Callable[[random.Random, int], str]]] = {
    "ascii": lambda rng, n: _prose(rng, _ENGLISH, n),
    "german": lambda rng, n: _prose(rng, _GERMAN, n),
    "russian": lambda rng, n: _prose(rng, _RUSSIAN, n),
    "cjk": _cjk,
    "emoji": _emoji,
    "json": _json_body,
}


def make_corpus(name: str, size: int) -> bytes:
    """``size`` bytes of valid (STRICT) UTF-8 text of kind ``name``, the same every run.

    Generated text is tiled beyond BASE_TEXT_BYTES, cut back to a character boundary
    and padded with spaces to exactly ``size``.
    """
    rng = random.Random(f"{SEED}:{name}")  # noqa: S311 - reproducible, not secret
    base = GENERATORS[name](rng, min(size, BASE_TEXT_BYTES)).encode()
    tiled = base * (size // len(base) + 1)
    cut = size
    while 0x80 <= tiled[cut] <= 0xBF:  # a continuation byte: back off to its lead
        cut -= 1
    return tiled[:cut] + b" " * (size - cut)
