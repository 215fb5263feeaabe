"""Value classes (pure data): words that name one value of an attribute that holds one value at a
time, in English and Chinese, so that two texts giving *another value of the same class* can be
told from two texts about different things.

A class is an attribute a memory sets: the language or script of an answer, a file format or a
layout, a unit of temperature, weight, distance or money, a colour theme, a diet, a channel, an
editor, a package manager, a code host, an operating system, a browser, a database, a cloud, a
phone, a part of the day, a month, a weekday, a role, a length or a tone. Each class lists the
common values of its attribute (not the words of any test pair): ``Word`` and ``文档`` formats
are the same format, so a word maps to the class and the value (``"PDF"`` →
``format:pdf``). Words that are also everyday words in another sense (``word``, ``text``,
``edge``, ``arch``, ``signal``) are left out: a class word must name the value on its own.
"""

from __future__ import annotations

from collections.abc import Mapping

Lexicon = Mapping[str, tuple[str, ...]]

LANGUAGES: Lexicon = {
    "english": ("english", "英文", "英语", "英語"),
    "chinese": ("chinese", "mandarin", "中文", "汉语", "漢語", "华语", "普通话"),
    "cantonese": ("cantonese", "粤语", "廣東話", "广东话"),
    "spanish": ("spanish", "西班牙语", "西班牙文", "西语"),
    "portuguese": ("portuguese", "葡萄牙语", "葡萄牙文", "葡语"),
    "french": ("french", "法语", "法文"),
    "german": ("german", "德语", "德文"),
    "japanese": ("japanese", "日语", "日文", "日本語"),
    "korean": ("korean", "韩语", "韩文", "한국어"),
    "italian": ("italian", "意大利语", "意大利文"),
    "russian": ("russian", "俄语", "俄文"),
    "dutch": ("dutch", "荷兰语"),
    "arabic": ("arabic", "阿拉伯语"),
    "hindi": ("hindi", "印地语"),
    "turkish": ("turkish", "土耳其语"),
    "polish": ("polish", "波兰语"),
    "swedish": ("swedish", "瑞典语"),
    "vietnamese": ("vietnamese", "越南语"),
    "thai": ("thai", "泰语"),
}
#: How Chinese is written: a script, not a language (繁体 / 简体).
SCRIPTS: Lexicon = {"traditional": ("繁体", "繁體", "繁体字"), "simplified": ("简体", "簡體", "简体字")}
DAYS: Lexicon = {
    day: (day, f"{day}s", *cjk) for day, cjk in (
        ("monday", ("周一", "星期一", "礼拜一")), ("tuesday", ("周二", "星期二", "礼拜二")),
        ("wednesday", ("周三", "星期三", "礼拜三")), ("thursday", ("周四", "星期四", "礼拜四")),
        ("friday", ("周五", "星期五", "礼拜五")), ("saturday", ("周六", "星期六", "礼拜六")),
        ("sunday", ("周日", "周天", "星期日", "星期天", "礼拜天")))
}
MONTHS: Lexicon = {
    month: (month, month[:3]) for month in (
        "january", "february", "march", "april", "june", "july", "august", "september", "october", "november",
        "december")
}  # "may" is a modal verb far more often than a month
LENGTHS: Lexicon = {"short": ("short", "简短", "简洁", "简要"), "brief": ("brief",), "concise": ("concise",),
                    "long": ("long",), "detailed": ("detailed", "详细", "详尽"), "verbose": ("verbose",)}
TONES: Lexicon = {"formal": ("formal", "正式"), "informal": ("informal",), "casual": ("casual", "随意")}
FORMATS: Lexicon = {
    "pdf": ("pdf",), "docx": ("docx", "doc"), "xlsx": ("xlsx", "xls", "excel"), "csv": ("csv", "tsv"),
    "markdown": ("markdown", "md"), "html": ("html",), "json": ("json",), "yaml": ("yaml", "yml"), "xml": ("xml",),
    "txt": ("txt",), "pptx": ("pptx", "ppt", "powerpoint"), "png": ("png",), "jpeg": ("jpg", "jpeg"),
    "svg": ("svg",), "epub": ("epub",), "odt": ("odt",), "rtf": ("rtf",), "latex": ("latex", "tex"),
}
#: How a text is laid out: as a list, a table or running prose.
LAYOUTS: Lexicon = {"list": ("bullet", "bullets", "bulleted", "列表", "要点"), "table": ("table", "tables", "表格"),
                    "prose": ("prose", "paragraphs", "段落")}
TEMPERATURES: Lexicon = {"celsius": ("celsius", "centigrade", "摄氏", "摄氏度"),
                         "fahrenheit": ("fahrenheit", "华氏", "华氏度"), "kelvin": ("kelvin", "开尔文")}
WEIGHTS: Lexicon = {"kilogram": ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "公斤", "千克"),
                    "pound": ("lb", "lbs", "pound", "pounds", "磅"), "jin": ("斤",), "stone": ("stone",),
                    "gram": ("gram", "grams")}
DISTANCES: Lexicon = {"kilometre": ("km", "kilometre", "kilometres", "kilometer", "kilometers", "公里", "千米"),
                      "mile": ("mile", "miles", "英里"), "metre": ("metre", "metres", "meter", "meters"),
                      "foot": ("foot", "feet", "英尺"), "inch": ("inch", "inches", "英寸"),
                      "centimetre": ("cm", "centimetre", "centimetres", "厘米")}
CURRENCIES: Lexicon = {"usd": ("usd", "dollar", "dollars", "美元", "美金"), "eur": ("eur", "euro", "euros", "欧元"),
                       "gbp": ("gbp", "sterling", "英镑"), "cny": ("cny", "rmb", "yuan", "renminbi", "人民币"),
                       "jpy": ("jpy", "yen", "日元"), "hkd": ("hkd", "港币", "港元"), "chf": ("chf", "franc", "francs")}
THEMES: Lexicon = {"dark": ("dark", "深色", "暗色", "黑色主题"), "light": ("light", "浅色", "亮色", "白色主题")}
DIETS: Lexicon = {"vegetarian": ("vegetarian", "素食", "素食者", "吃素"), "vegan": ("vegan", "纯素", "纯素食"),
                  "pescatarian": ("pescatarian",), "omnivore": ("omnivore", "荤素不忌"), "keto": ("keto", "生酮")}
CHANNELS: Lexicon = {"email": ("email", "e-mail", "邮件", "电子邮件"), "sms": ("sms", "短信"),
                     "slack": ("slack",), "telegram": ("telegram",), "whatsapp": ("whatsapp",),
                     "discord": ("discord",), "wechat": ("wechat", "微信"), "imessage": ("imessage",),
                     "dingtalk": ("dingtalk", "钉钉"), "feishu": ("feishu", "lark", "飞书")}
EDITORS: Lexicon = {"vim": ("vim", "vi"), "neovim": ("neovim", "nvim"), "emacs": ("emacs",),
                    "vscode": ("vscode",), "helix": ("helix",), "nano": ("nano",), "sublime": ("sublime",),
                    "intellij": ("intellij",), "pycharm": ("pycharm",), "xcode": ("xcode",), "zed": ("zed",)}
PACKAGE_MANAGERS: Lexicon = {name: (name,) for name in (
    "npm", "pnpm", "yarn", "bun", "pip", "pipx", "poetry", "uv", "conda", "pdm", "maven", "gradle", "homebrew",
    "brew")}
CODE_HOSTS: Lexicon = {"github": ("github",), "gitlab": ("gitlab",), "bitbucket": ("bitbucket",),
                       "gitea": ("gitea",), "gitee": ("gitee", "码云"), "codeberg": ("codeberg",)}
SYSTEMS: Lexicon = {"windows": ("windows",), "macos": ("macos", "osx"), "linux": ("linux",), "ubuntu": ("ubuntu",),
                    "debian": ("debian",), "fedora": ("fedora",), "centos": ("centos",), "ios": ("ios",),
                    "android": ("android", "安卓")}
BROWSERS: Lexicon = {name: (name,) for name in ("chrome", "chromium", "firefox", "safari", "brave", "vivaldi")}
DATABASES: Lexicon = {"postgres": ("postgres", "postgresql"), "mysql": ("mysql",), "mariadb": ("mariadb",),
                      "sqlite": ("sqlite",), "mongodb": ("mongodb", "mongo"), "dynamodb": ("dynamodb",),
                      "cassandra": ("cassandra",), "clickhouse": ("clickhouse",)}
CLOUDS: Lexicon = {"aws": ("aws",), "gcp": ("gcp",), "azure": ("azure",), "aliyun": ("aliyun", "阿里云"),
                   "tencent": ("腾讯云",), "huaweicloud": ("华为云",)}
PHONES: Lexicon = {"iphone": ("iphone",), "pixel": ("pixel",), "galaxy": ("galaxy",),
                   "huawei": ("huawei", "华为"), "xiaomi": ("xiaomi", "小米"), "oneplus": ("oneplus", "一加")}
#: Ranks and posts a person holds one of at a time.
ROLES: Lexicon = {
    "intern": ("intern", "实习生"), "junior": ("junior", "初级"), "senior": ("senior", "资深"),
    "principal": ("principal",), "manager": ("manager", "经理"),
    "director": ("director", "总监"), "vp": ("vp", "副总裁"), "ceo": ("ceo", "总裁", "首席执行官"),
    "cto": ("cto",), "supervisor": ("supervisor", "主管"),
}
#: How hot a dish is ordered.
SPICE: Lexicon = {"none": ("不辣", "免辣", "不要辣"), "mild": ("mild", "微辣", "小辣"), "medium": ("中辣",),
                  "hot": ("特辣", "重辣", "大辣", "extra-hot")}
#: Indentation: by tabs or by spaces.
INDENTS: Lexicon = {"tab": ("tab", "tabs", "制表符"), "space": ("space", "spaces", "空格")}

CLASS_LEXICONS: Mapping[str, Lexicon] = {
    "language": LANGUAGES, "script": SCRIPTS, "day": DAYS, "month": MONTHS,
    "length": LENGTHS, "tone": TONES, "format": FORMATS, "layout": LAYOUTS, "temperature": TEMPERATURES,
    "weight": WEIGHTS, "distance": DISTANCES, "currency": CURRENCIES, "theme": THEMES, "diet": DIETS,
    "channel": CHANNELS, "editor": EDITORS, "packager": PACKAGE_MANAGERS, "codehost": CODE_HOSTS, "os": SYSTEMS,
    "browser": BROWSERS, "database": DATABASES, "cloud": CLOUDS, "phone": PHONES, "role": ROLES,
    "indent": INDENTS, "spice": SPICE,
}
#: Classes whose words measure a number (``4 spaces``, ``80 kg``, ``20 dollars``): after a number
#: they are its unit, part of the value.
UNIT_CLASSES = frozenset({"temperature", "weight", "distance", "currency", "indent"})


def classes() -> dict[str, str]:
    """Every class word, mapped to ``class:value`` (``"英文"`` → ``"language:english"``)."""
    return {word: f"{name}:{value}" for name, lexicon in CLASS_LEXICONS.items()
            for value, words in lexicon.items() for word in words}
