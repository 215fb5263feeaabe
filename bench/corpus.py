"""A seeded generator of realistic memory corpora and of keyword queries with known targets.

Shared by the recall benchmark (``keyword_bench.py``) and the speed benchmarks (#17), so that
speed and recall are measured on corpora and queries like users', not on one shape:

- memories of every type (people and project facts, preferences with keys, episodes, procedures,
  summaries, notes), in user, project, user/project and team scopes;
- statuses as a living repository has them (mostly active; superseded, retracted, needs_review,
  expired), a few ``expires`` dates (half of them past), a few ``version`` labels, ``depends_on``
  links from later memories to earlier ones;
- created dates over three years; ~10% of the memories written in Chinese;
- words drawn from a Zipf distribution over real English words, names and generated code names,
  so that some words are in half the corpus and most are in a handful of memories;
- paths and descriptions that repeat body words, as agents write them (a path or title holding
  one query word is the trap that buries full matches).

Queries, each with one target that contains every query word (after memfs's analysis):
``rare2`` (the target's two rarest words), ``rare_common`` (one rare, two common), ``title`` (its
description), ``question`` (a natural-language question whose other words are stop words),
``zh2`` (two Chinese words of a Chinese target).

    from corpus import generate, queries, write
    docs = generate(10_000, seed=1)
    write(root, docs)                      # memfs init + files + one commit
    for q in queries(docs, 200, seed=2): ...

The module needs only the standard library and memfs (for its analyzer, so that "contains every
query word" means what the index means).
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
START = dt.datetime(2023, 12, 1, tzinfo=dt.UTC)

COMMON = """
release deploy pipeline database migration schema backup restore token cache latency budget invoice
customer ticket incident outage rollback feature flag experiment dashboard metric alert pager review
approval merge branch commit build test coverage retry timeout queue worker schedule report export
import language preference format style meeting agenda summary decision owner deadline sprint roadmap
quarter vendor contract team project service server client account payment order shipping warehouse
inventory price discount refund subscription plan trial onboarding support email calendar document
draft template design mockup prototype research interview survey feedback bug crash error log trace
monitor uptime capacity storage bucket region cluster node container image registry secret config
variable endpoint request response header payload limit quota throttle batch stream event topic
partition consumer producer index query search ranking model training dataset label annotation
evaluation accuracy precision benchmark notebook script library package dependency upgrade patch
version changelog note manual guide tutorial policy compliance audit privacy consent retention archive
travel flight hotel dinner lunch coffee birthday anniversary holiday vacation weekend morning evening
office remote hybrid laptop monitor keyboard phone tablet garden kitchen recipe music concert book
movie podcast running cycling swimming hiking yoga tennis football chess painting photography
""".split()

NAMES = """
alice bob carol dmitri elena farah gustavo hana ingrid jamal keiko lars mei nadia oscar priya quentin
rosa sven tomas uma viktor wanda ximena yusuf zofia novak tanaka okafor lindqvist moreau castillo
petrov nakamura schmidt rossi kowalski haddad fernandes johansson weber ivanova dubois mendes
""".split()

PLACES = """
tallinn lisbon nairobi osaka montreal krakow valparaiso tbilisi reykjavik hanoi porto ljubljana
auckland bergen cusco tromso zanzibar marrakesh kyoto seville gdansk bilbao tartu riga vilnius
""".split()

RARE_REAL = """
tabbouleh saffron quinoa kombucha sourdough falafel ceviche baklava pierogi kimchi ramen gnocchi
harmonica cello ukulele bassoon theremin accordion origami calligraphy pottery embroidery bonsai
kayak paraglider snowboard trampoline unicycle telescope barometer metronome gyroscope sextant
kubernetes terraform grafana postgres kafka redis elasticsearch prometheus nginx ansible jenkins
webhook idempotent tombstone backpressure deadlock heisenbug watermark checksum sharding quorum
""".split()

ZH = """
发布 说明 部署 数据库 迁移 测试 回滚 版本 用户 偏好 中文 代码 评审 意见 会议 总结 预算 客户 工单
故障 报告 项目 计划 周末 旅行 酒店 航班 晚餐 咖啡 生日 音乐 电影 跑步 游泳 徒步 瑜伽 网球 足球
绘画 摄影 厨房 菜谱 花园 办公室 远程 笔记本 键盘 手机 日历 邮件 文档 草稿 模板 设计 原型 研究
访谈 调查 反馈 错误 日志 监控 容量 存储 集群 节点 镜像 配置 变量 接口 请求 响应 限额 批处理
队列 索引 查询 排序 模型 训练 数据集 标注 评估 准确率 基准 脚本 依赖 升级 补丁 手册 指南 政策
合规 审计 隐私 归档 发票 退款 订阅 试用 支持 延迟 缓存 备份 恢复 告警 指标 实验 功能 分支 合并
""".split()

#: kept out of generated paths: the secret gate once read a slug such as "token-abc-def-2024" as an
#: API key (fixed since); leaving them out keeps the generated corpora as first measured
SECRETISH = {"token", "secret"}
#: common characters the generated Chinese words are made of
ZH_CHARS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面"
    "而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性"
    "好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第"
    "向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管"
    "特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处"
)
FILLER = "the a of to and in for on with is was it that this as be by we they from at".split()
TYPES = ("fact", "preference", "episode", "procedure", "summary", "note")
FOLDERS = {"fact": "facts", "preference": "prefs", "episode": "episodes", "procedure": "procedures",
           "summary": "summaries", "note": "notes"}
STATUSES = ("active", "superseded", "retracted", "needs_review", "expired")
STATUS_WEIGHTS = (85, 7, 3, 2, 3)
KINDS = ("rare2", "rare_common", "title", "question", "zh2")
OPENINGS = {
    "fact": "{p} works on the {a} {b} in {place}.",
    "preference": "{p} prefers {a} over {b} for {c}.",
    "episode": "On {day} {month} {p} hit a {a} {b}.",
    "procedure": "To {a} the {b}: first {c}, then {a}.",
}
QUESTION_FORMS = (
    "what is the {0} of {1} {2}?",
    "what did {0} do about the {1} {2}?",
    "when was the {0} with {1} {2}?",
    "where is the {0} for {1} and {2}?",
    "who was with {0} at the {1} {2}?",
    "how did the {0} {1} go for {2}?",
)


@dataclass(frozen=True)
class Doc:
    """One generated memory: what the file says and whether recall may return it (at :data:`NOW`,
    no version asked)."""

    path: str
    id: str
    type: str
    scope: str
    status: str
    created: dt.datetime
    title: str
    body: str
    tags: tuple[str, ...]
    chinese: bool
    version: str | None = None
    expires: dt.datetime | None = None
    key: str | None = None
    confidence: float = 0.9
    depends_on: tuple[str, ...] = ()

    @property
    def eligible(self) -> bool:
        return self.status == "active" and (self.expires is None or self.expires > NOW)

    def text(self) -> str:
        """The file's bytes as text: memfs frontmatter and the body."""
        lines = [
            "---",
            f"id: {self.id}",
            f"type: {self.type}",
            f'scope: "{self.scope}"',
            f"source: conversation:C{1000 + int(self.id[1:]) % 9000}#msg-{len(self.body) % 40}",
            "source_kind: user",
        ]
        if self.key:
            lines.append(f"key: {self.key}")
        if self.version:
            lines.append(f"version: {self.version}")
        lines += [
            f"created: {_iso(self.created)}",
            f"updated: {_iso(self.created)}",
            f"status: {self.status}",
            f"confidence: {self.confidence}",
        ]
        if self.expires:
            lines.append(f"expires: {self.expires.date().isoformat()}")
        if self.depends_on:
            lines.append(f"depends_on: [{', '.join(self.depends_on)}]")
        lines += [f'description: "{self.title}"', f"tags: [{', '.join(self.tags)}]", "---", self.body, ""]
        return "\n".join(lines)


@dataclass(frozen=True)
class Query:
    kind: str
    text: str
    target: str
    scope: str
    eligible: bool


@dataclass
class _Vocab:
    words: list[str]
    weights: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.weights = [1 / (rank + 1) ** 1.07 for rank in range(len(self.words))]
        self.cum = list(_accumulate(self.weights))

    def draw(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum, k=k)


def _accumulate(values: Iterable[float]) -> Iterable[float]:
    total = 0.0
    for value in values:
        total += value
        yield total


def _codenames(rng: random.Random, count: int) -> list[str]:
    """Pronounceable made-up words (product code names, tickets' nicknames): the long rare tail."""
    onsets = "b d f g k l m n p r s t v z br dr gr kr pl st tr sk".split()
    vowels, codas = "a e i o u ai ou".split(), [*"n r s l k x m nd rk".split(), ""]
    made: set[str] = set()
    while len(made) < count:
        syllables = [rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.randint(2, 3))]
        made.add("".join(syllables) + rng.choice(codas))
    return sorted(made)


def _vocabulary(seed: int) -> _Vocab:
    rng = random.Random(seed)
    words = COMMON + NAMES + PLACES + RARE_REAL + _codenames(rng, 4000)
    rng.shuffle(words)
    head = [w for w in COMMON if rng.random() < 0.5]
    tail = [w for w in words if w not in set(head)]
    return _Vocab(head + tail)


def _iso(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _scope(rng: random.Random, n: int) -> str:
    users, projects = max(3, n // 60), max(2, n // 400)
    user, project = f"user:U{rng.randint(1, users)}", f"project:P{rng.randint(1, projects)}"
    return rng.choices([user, f"{user}/{project}", project, f"team:T{rng.randint(1, 5)}"], [45, 30, 20, 5])[0]


def _sentence(rng: random.Random, vocab: _Vocab) -> str:
    words = []
    for _ in range(rng.randint(8, 22)):
        words.append(rng.choice(FILLER) if rng.random() < 0.4 else vocab.draw(rng, 1)[0])
    return " ".join(words).capitalize() + "."


def _english(rng: random.Random, vocab: _Vocab, type_: str) -> tuple[str, str]:
    person = f"{rng.choice(NAMES).capitalize()} {rng.choice(NAMES).capitalize()}"
    a, b, c = vocab.draw(rng, 3)
    opening = OPENINGS.get(type_, "{p} noted the {a} {b}.").format(
        p=person, a=a, b=b, c=c, place=rng.choice(PLACES).capitalize(), day=rng.randint(1, 28),
        month=rng.choice(["March", "June", "October"]),
    )
    body = " ".join([opening, *(_sentence(rng, vocab) for _ in range(rng.randint(1, 5)))])
    content = [w for w in body.lower().rstrip(".").replace(".", " ").replace(",", " ").replace(":", " ").split()
               if w not in FILLER and w.isalpha()]
    title = " ".join(rng.sample(content, min(len(content), rng.randint(3, 6))))
    return title, body


def _chinese(rng: random.Random, vocab: _Vocab, zh: _Vocab) -> tuple[str, str]:
    clauses = ["".join(zh.draw(rng, rng.randint(3, 8))) for _ in range(rng.randint(2, 5))]
    name = rng.choice(NAMES).capitalize()
    body = f"{name}：" + "，".join(clauses) + f"。参考 {vocab.draw(rng, 1)[0]}。"
    return "".join(rng.sample(clauses, 1)), body


def _zh_vocabulary(seed: int) -> _Vocab:
    """The real words of :data:`ZH` first, then two- and three-character words made of common
    characters: a Zipf vocabulary of a few thousand words, as Chinese notes have."""
    rng = random.Random(seed + 1)
    made: set[str] = set()
    while len(made) < 4000:
        made.add("".join(rng.choices(ZH_CHARS, k=rng.choice((2, 2, 2, 3)))))
    tail = sorted(made - set(ZH))
    rng.shuffle(tail)
    return _Vocab(ZH + tail)


def generate(n: int, seed: int = 1) -> list[Doc]:
    """``n`` memories, the same for the same ``(n, seed)``."""
    rng, vocab, zh = random.Random(seed), _vocabulary(seed), _zh_vocabulary(seed)
    span = (NOW - START).total_seconds()
    docs: list[Doc] = []
    for i in range(n):
        type_ = rng.choices(TYPES, [25, 15, 30, 10, 10, 10])[0]
        chinese = rng.random() < 0.10
        title, body = _chinese(rng, vocab, zh) if chinese else _english(rng, vocab, type_)
        created = START + dt.timedelta(seconds=rng.random() * span)
        expires = None
        if rng.random() < 0.05:
            expires = created + dt.timedelta(days=rng.randint(30, 600))
        slug = "-".join(w for w in title.split()[:4] if w not in SECRETISH) if not chinese else "zh"
        docs.append(Doc(
            path=f"{FOLDERS[type_]}/{created.year}/{slug}-{i:06d}.md",
            id=f"m{i:06d}",
            type=type_,
            scope=_scope(rng, n),
            status=rng.choices(STATUSES, STATUS_WEIGHTS)[0],
            created=created,
            title=title,
            body=body,
            tags=tuple(dict.fromkeys(vocab.draw(rng, rng.randint(1, 3)))),
            chinese=chinese,
            version=rng.choice(["v1", "v2", "v3"]) if rng.random() < 0.08 else None,
            expires=expires,
            key=f"{title.split()[0] if not chinese else 'zh'}_{i}" if type_ == "preference" else None,
            confidence=rng.choice([0.5, 0.7, 0.8, 0.9, 0.95, 1.0]),
            depends_on=(docs[rng.randrange(i)].path,) if i and rng.random() < 0.1 else (),
        ))
    return docs


def write(root: Path, docs: list[Doc]) -> None:
    """A memfs repository at ``root`` holding ``docs``, committed once (files written directly,
    as a bulk import would, not through memfs writes)."""
    from benchlib import commit_all

    from memfs import MemoryRepo

    MemoryRepo.init(root, actor="bench:corpus")
    for doc in docs:
        path = root / doc.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc.text(), encoding="utf-8")
    commit_all(root, "bench corpus")


def _terms(text: str) -> list[str]:
    from memfs.index.analysis import tokens

    return tokens(text)


def queries(docs: list[Doc], per_kind: int = 40, seed: int = 2) -> list[Query]:
    """``per_kind`` queries of each kind in :data:`KINDS`; targets are drawn from every memory
    (eligible or not: score recall on ``Query.eligible`` ones, and count ineligible hits on all)."""
    rng = random.Random(seed)
    df = Counter(term for doc in docs for term in set(_terms(f"{doc.title} {doc.body} {' '.join(doc.tags)}")))
    english = [d for d in docs if not d.chinese]
    chinese = [d for d in docs if d.chinese]
    out: list[Query] = []
    for kind in KINDS:
        pool = chinese if kind == "zh2" else english
        made = 0
        while made < per_kind and pool:
            doc = rng.choice(pool)
            text = _query_text(kind, doc, df, len(docs), rng)
            if text is None or not set(_terms(text)) <= set(_terms(f"{doc.title} {doc.body} {' '.join(doc.tags)}")):
                continue
            out.append(Query(kind, text, doc.path, doc.scope, doc.eligible))
            made += 1
    return out


def _query_text(kind: str, doc: Doc, df: Counter[str], n: int, rng: random.Random) -> str | None:
    if kind == "zh2":
        present = sorted({w for clause in re.split("[：，。]", doc.body) for w in _zh_words(clause)})
        return " ".join(rng.sample(present, 2)) if len(present) >= 2 else None
    if kind == "title":
        return doc.title
    words = list(dict.fromkeys(w for w in doc.body.lower().replace(".", " ").replace(":", " ").split()
                               if w.isalpha() and w not in FILLER and _terms(w)))
    if len(words) < 3:
        return None
    by_rarity = sorted(words, key=lambda w: (df[_terms(w)[0]], w))
    if kind == "rare2":
        return " ".join(by_rarity[:2])
    common = [w for w in by_rarity[1:] if df[_terms(w)[0]] >= n / 100] or by_rarity[-2:]
    if kind == "rare_common":
        return " ".join([by_rarity[0], *rng.sample(common, min(2, len(common)))])
    mid = by_rarity[len(by_rarity) // 2]
    return rng.choice(QUESTION_FORMS).format(by_rarity[0], mid, by_rarity[1])


def _zh_words(clause: str) -> list[str]:
    """The vocabulary words a generated Chinese clause is made of (read back greedily; a clause is
    words written without spaces)."""
    vocab = _zh_word_set()
    out, i = [], 0
    while i < len(clause):
        size = next((k for k in (3, 2) if clause[i : i + k] in vocab), 0)
        if not size:
            i += 1
            continue
        out.append(clause[i : i + size])
        i += size
    return out


@lru_cache(maxsize=1)
def _zh_word_set() -> frozenset[str]:
    return frozenset(_zh_vocabulary(1).words) | frozenset(ZH)


def describe(docs: list[Doc]) -> str:
    """One line about a corpus (for benchmark output)."""
    eligible = sum(d.eligible for d in docs)
    zh = sum(d.chinese for d in docs)
    words = sum(len(d.body.split()) for d in docs) / max(1, len(docs))
    return (f"{len(docs):,} memories, {eligible:,} eligible, {zh:,} Chinese, "
            f"{len({d.scope for d in docs}):,} scopes, ~{math.floor(words)} body words each")
