"""The web pages' message catalogue: Chinese and English.

Keys are the English text (so templates read naturally); ``EN`` holds only entries whose
English differs from the key (prefixed keys such as ``scope:host``); ``ZH`` must translate
every key the pages use — a test scans the templates and views for ``t("…")`` keys.
Language choice: the profile's language, else the visitor's pick, else Accept-Language,
else Chinese.
"""

# ruff: noqa: E501  (catalogue entries are one sentence per line)

from __future__ import annotations

import logging
from typing import Any

from starlette.requests import Request

logger = logging.getLogger(__name__)

LANGUAGES = ("zh", "en")
DEFAULT = "zh"

EN: dict[str, str] = {
    "delivery:pending": "waiting",
    "delivery:sending": "sending",
    "delivery:sent": "sent",
    "delivery:failed": "failed, will retry",
    "delivery:dead": "gave up",
    "scope:host": "This host only",
    "scope:domain": "The whole domain",
    "scope:any": "Follow links anywhere",
    "push:instant": "Instantly",
    "push:digest": "Daily digest",
    "push:both": "Instantly and daily digest",
    "push:off": "Don't push (dashboard only)",
    "status:running": "running",
    "status:ok": "ok",
    "status:done": "done",
    "status:finished": "finished",
    "status:failed": "failed",
    "status:error": "error",
    "status:partial": "partial",
    "status:not_modified": "not modified",
    "bfs": "Breadth-first",
    "fish": "Fish Search",
    "fish-kp": "Keyword-position Fish Search",
    "pagerank": "PageRank",
    "adaptive": "Adaptive (recommended)",
    "topic-pagerank": "Topic PageRank",
    "ipagerank": "IPageRank",
    "statistical": "Statistical model",
    "method:kp": "keyword-position relevance",
    "method:fish": "Fish Search relevance",
    "method:vsm": "vector-space similarity",
    "error-kind:ServiceError": "",
    "error:throttled": "Too many attempts. Please wait {minutes} minutes and try again.",
}

ZH: dict[str, str] = {
    "delivery:pending": "待发送",
    "delivery:sending": "发送中",
    "delivery:sent": "已发送",
    "delivery:failed": "失败，将重试",
    "delivery:dead": "已放弃",
    "Deliveries": "推送记录",
    "Channel": "渠道",
    "Attempts": "尝试次数",
    "Sent": "发送时间",
    "Last error": "最近错误",
    "Send again": "重新发送",
    "Nothing was pushed for this message (it is in the dashboard only, or in a daily digest).": (
        "这条消息没有单独推送（只在网页上显示，或在每日摘要中）。"
    ),
    "Queued to be sent again.": "已加入发送队列。",
    "Test a channel": "测试推送渠道",
    "Sends a test message now to the address in your profile.": "立即向您资料中的地址发送一条测试消息。",
    "Test message sent.": "测试消息已发送。",
    "The test failed: {error}": "测试失败：{error}",
    # layout
    "Timely Push": "及时推",
    "Timely Push — new, relevant pages from the sites you follow.": "及时推 — 您关注的网站一有相关新内容，立即推送给您。",
    "My messages": "我的消息",
    "My concerns": "我的关注",
    "Settings": "设置",
    "Log out": "退出",
    "Back to the start page": "返回首页",
    "Not found": "找不到页面",
    "There is nothing here, or it is not yours.": "这里没有内容，或者它不属于您的账户。",
    "Form expired": "表单已失效",
    "The form was stale or not sent from this site. Go back, reload the page and try again.": "表单已过期或并非从本站提交。请返回、刷新页面后重试。",
    # auth
    "Log in": "登录",
    "Register": "注册",
    "Email": "邮箱",
    "Password": "密码",
    "Forgot password?": "忘记密码？",
    "No account yet?": "还没有账户？",
    "Create your account": "创建账户",
    "At least 8 characters.": "至少 8 个字符。",
    "Repeat password": "再次输入密码",
    "Already registered?": "已有账户？",
    "The two passwords differ.": "两次输入的密码不一致。",
    "We sent a verification link to {email}.": "验证链接已发送到 {email}。",
    "The verification email could not be sent; try again later.": "验证邮件发送失败，请稍后再试。",
    "Verification failed": "验证失败",
    "This verification link is invalid or has expired.": "验证链接无效或已过期。",
    "Email verified": "邮箱已验证",
    "Thank you, {email} is confirmed.": "谢谢，{email} 已确认。",
    "Continue": "继续",
    "You are logged out.": "您已退出登录。",
    "Forgot password": "忘记密码",
    "Enter your email address and we will send you a link to choose a new password.": "输入您的邮箱，我们会发送一个设置新密码的链接。",
    "Send reset link": "发送重置链接",
    "Or get a code by SMS on the phone number of your account.": "或者通过短信把验证码发送到账户绑定的手机。",
    "Send code by SMS": "发送短信验证码",
    "Check your email": "请查收邮件",
    "If an account exists for {email}, we sent it a link to choose a new password. The link works once and expires in one hour.": "如果 {email} 已注册，我们已向它发送了设置新密码的链接。链接只能使用一次，一小时内有效。",
    "Back to log in": "返回登录",
    "If the account has a phone number, we sent it a code.": "如果该账户绑定了手机号，验证码已经发出。",
    "Choose a new password": "设置新密码",
    "SMS code": "短信验证码",
    "New password": "新密码",
    "Save new password": "保存新密码",
    "Your password is changed. Please log in.": "密码已修改，请重新登录。",
    # concerns
    "Add concern": "添加关注",
    "Edit concern": "编辑关注",
    "Add your first concern": "添加第一个关注",
    "You follow no sites yet.": "您还没有关注任何网站。",
    "Active": "启用",
    "Paused": "已暂停",
    "Priority": "优先级",
    "Strategy": "策略",
    "Max pages per visit": "每次访问最多页数",
    "Next visit": "下次访问",
    "not scheduled": "未安排",
    "Revisit level": "回访级别",
    "Messages": "消息",
    "Crawl report": "抓取报告",
    "Check now": "立即检查",
    "Edit": "编辑",
    "Pause": "暂停",
    "Resume": "恢复",
    "Delete": "删除",
    "Delete this concern and its messages?": "删除这个关注及其全部消息？",
    "Site URL": "网站地址",
    "The page the crawler starts from, usually the site's home or section page.": "爬虫开始抓取的页面，通常是网站首页或栏目页。",
    "Keywords": "关键词",
    "Separate several keywords with commas (, ， or 、).": "多个关键词用逗号（, ，或 、）分隔。",
    "Exclude words": "排除词",
    "optional": "可选",
    "Priority (0–5)": "优先级（0–5）",
    "Scope": "抓取范围",
    "scope:host": "仅此主机",
    "scope:domain": "整个域名",
    "scope:any": "不限范围",
    "Crawl strategy": "抓取策略",
    "Leave a parameter empty to use its default.": "参数留空即使用默认值。",
    "Relevance threshold T": "相关度阈值 T",
    "PageRank weight γ": "PageRank 权重 γ",
    "Children followed W": "跟随子链接数 W",
    "Depth after an irrelevant page D": "无关页面后的深度 D",
    "Widening after a relevant page a": "相关页面放宽倍数 a",
    "Active (crawl on schedule)": "启用（按计划抓取）",
    "Save": "保存",
    "Cancel": "取消",
    "Enter a whole number from {low} to {high}.": "请输入 {low} 到 {high} 之间的整数。",
    "Enter a number from {low} to {high}.": "请输入 {low} 到 {high} 之间的数字。",
    "Choose a strategy from the list.": "请从列表中选择策略。",
    "Concern added; the first visit is scheduled.": "关注已添加，首次访问已安排。",
    "Concern saved.": "关注已保存。",
    "Concern paused.": "关注已暂停。",
    "Concern resumed.": "关注已恢复。",
    "Concern deleted.": "关注已删除。",
    "A visit is scheduled right away.": "已安排立即访问。",
    "bfs": "广度优先",
    "fish": "鱼群搜索（Fish Search）",
    "fish-kp": "关键词位置鱼群搜索",
    "pagerank": "PageRank",
    "adaptive": "自适应（推荐）",
    "topic-pagerank": "主题 PageRank",
    "ipagerank": "改进 PageRank（IPageRank）",
    "statistical": "统计模型",
    # reports
    "Recent runs": "最近抓取",
    "Pages": "页数",
    "Pages fetched": "抓取页数",
    "Pages matched": "命中页数",
    "New pages": "新页面",
    "Harvest rate": "收获率",
    "Harvest rate over the recent runs": "最近各次抓取的收获率",
    "Harvest rate during the latest run": "最近一次抓取过程中的收获率",
    "No crawl has run yet. Use “Check now” to schedule one.": "还没有抓取记录。点击“立即检查”安排一次抓取。",
    "Started": "开始时间",
    "Status": "状态",
    "Errors": "错误",
    "No runs yet.": "暂无抓取记录。",
    "status:running": "进行中",
    "status:ok": "完成",
    "status:done": "完成",
    "status:finished": "完成",
    "status:failed": "失败",
    "status:error": "出错",
    "status:partial": "部分完成",
    "status:not_modified": "无变化",
    # messages
    "{n} unread": "{n} 条未读",
    "Search title and excerpt": "搜索标题和摘要",
    "Search": "搜索",
    "Concern": "关注",
    "All concerns": "全部关注",
    "Keyword": "关键词",
    "Site": "网站",
    "From": "起始日期",
    "To": "截止日期",
    "Unread only": "只看未读",
    "Filter": "筛选",
    "Clear": "清除筛选",
    "Select all": "全选",
    "Select": "选择",
    "Mark read": "标为已读",
    "Mark unread": "标为未读",
    "Score": "得分",
    "Why it matched": "为什么推送",
    "Open page": "打开原文",
    "No messages match these filters.": "没有符合筛选条件的消息。",
    "No messages yet. New relevant pages from your concerns will appear here.": "还没有消息。您关注的网站出现相关新页面时会显示在这里。",
    "Newest": "最新",
    "Older": "更早",
    "Read": "已读",
    "Unread": "未读",
    "Found in": "出现位置",
    "threshold": "阈值",
    "learned terms": "学习到的词",
    "method:kp": "关键词位置相关度",
    "method:fish": "鱼群搜索相关度",
    "method:vsm": "向量空间相似度",
    "title": "标题",
    "meta keywords": "元关键词",
    "anchor text": "链接文字",
    "body text": "正文",
    "description": "描述",
    "URL": "网址",
    "Enter dates as YYYY-MM-DD.": "日期格式为 YYYY-MM-DD。",
    "Select at least one message.": "请至少选择一条消息。",
    "{n} messages updated.": "已更新 {n} 条消息。",
    "Message deleted.": "消息已删除。",
    "{error}": "{error}",
    # settings
    "Profile": "个人资料",
    "Not verified yet.": "尚未验证。",
    "Send the link again": "重新发送验证链接",
    "Change password": "修改密码",
    "Current password": "当前密码",
    "Password changed.": "密码已修改。",
    "The current password is wrong.": "当前密码不正确。",
    "Phone": "手机号",
    "Time zone": "时区",
    "Language": "语言",
    "Push preferences": "推送偏好",
    "Channels": "推送渠道",
    "SMS": "短信",
    "Webhook": "Webhook",
    "When to push": "推送方式",
    "push:instant": "即时推送",
    "push:digest": "每日摘要",
    "push:both": "即时推送 + 每日摘要",
    "push:off": "不推送（仅在网页查看）",
    "Daily digest at": "每日摘要时间",
    "Quiet from": "免打扰开始",
    "Quiet until": "免打扰结束",
    "Times are in your time zone. Instant pushes wait until the quiet hours end.": "时间按您的时区计算。免打扰时段内的即时推送会延后到时段结束。",
    "Send the digest even when there is nothing new": "没有新消息时也发送摘要",
    "Webhook URL": "Webhook 地址",
    "Each request is signed with your secret (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature headers).": "每个请求都用您的密钥签名（Standard Webhooks：webhook-id、webhook-timestamp、webhook-signature 请求头）。",
    "Your new signing secret — copy it now, it will not be shown again:": "新的签名密钥 — 请立即复制，它不会再次显示：",
    "Signing secret": "签名密钥",
    "set": "已设置",
    "not set": "未设置",
    "Generate a new secret": "重新生成密钥",
    "Generate secret": "生成密钥",
    "API tokens": "API 令牌",
    "Apps and scripts sign in through the REST API and get a token per device.": "手机应用和脚本通过 REST API 登录，每台设备一个令牌。",
    "Name": "名称",
    "Created": "创建时间",
    "Last used": "最近使用",
    "Revoked": "已吊销",
    "Revoke": "吊销",
    "No API tokens.": "没有 API 令牌。",
    "Token revoked.": "令牌已吊销。",
    "Profile saved.": "个人资料已保存。",
    "Push preferences saved.": "推送偏好已保存。",
    "Webhook saved.": "Webhook 已保存。",
    # service errors
    "error:bad_credentials": "邮箱或密码错误。",
    "error:email_taken": "该邮箱已经注册。",
    "error:invalid_email": "请输入有效的邮箱地址。",
    "error:weak_password": "密码至少需要 8 个字符。",
    "error:invalid_password": "密码太长（最多 256 个字符）。",
    "error:invalid_token": "链接无效、已过期或已被使用。",
    "error:invalid_code": "验证码错误或已过期。",
    "error:no_keywords": "请至少输入一个关键词（多个用逗号分隔）。",
    "error:too_many_keywords": "每个关注最多 20 个关键词。",
    "error:keyword_too_long": "关键词太长（每个最多 50 个字符）。",
    "error:invalid_time": "时间格式为 HH:MM（00:00–23:59）。",
    "error:invalid_timezone": "未知时区（请使用 Asia/Shanghai 这样的名称）。",
    "error:invalid_phone": "请输入带国家代码的手机号，例如 +8613800138000。",
    "error:sms_unavailable": "暂不支持短信重置密码。",
    "error:invalid_cursor": "分页参数无效，请从第一页重新开始。",
    "error:too_many_concerns": "关注数量已达上限，请先删除一些。",
    "error:throttled": "尝试次数过多，请 {minutes} 分钟后再试。",
    "error-lead:unreachable": "网站无法访问：",
    "error-lead:blocked_url": "不能使用这个地址：",
    "error-lead:invalid_url": "网址无效：",
    "error-kind:ServiceError": "",
    "error-kind:Invalid": "输入有误：",
    "error-kind:Conflict": "冲突：",
    "error-kind:NotFound": "未找到：",
    "error-kind:Unauthorized": "未授权：",
    "error-kind:Throttled": "请稍后再试：",
}

# everyday use: unsubscribe page, phone navigation, concern form help, report, settings
ZH.update(
    {
        "Unsubscribe": "退订",
        "This unsubscribe link is invalid or expired.": "退订链接无效或已过期。",
        "Open your settings": "打开设置",
        "Unsubscribe from notification email": "退订通知邮件",
        "{email} will no longer get Timely Push notification emails or daily digests.": "退订后，{email} 将不再收到及时推的通知邮件和每日摘要。",
        "You are unsubscribed": "您已退订",
        "{email} will no longer get notification emails. Your concerns and messages stay on the dashboard.": "{email} 不会再收到通知邮件。您的关注和消息仍保留在网页上。",
        "Subscribe again": "重新订阅",
        "You are subscribed again": "已重新订阅",
        "{email} will get notification emails again.": "{email} 将重新收到通知邮件。",
        "Menu": "菜单",
        "More filters": "更多筛选",
        "Expires": "到期时间",
        "never (until revoked)": "不过期（直到吊销）",
        "Synonyms": "同义词",
        "Other words for the same thing (国足 for 国家足球队); a page with one of them counts as much as one with a keyword.": "同一事物的其他说法（如“国足”之于“国家足球队”）；页面含同义词与含关键词同样计分。",
        "Advanced": "高级",
        "most people keep the defaults": "大多数用户保持默认即可",
        "The recommended strategy adapts to each site by itself. Change these only to tune a site the defaults do not suit.": "推荐的策略会自动适应每个网站。只有默认设置不适合某个网站时才需要调整这些参数。",
        "default": "默认",
        "How closely a page must match your keywords to reach you. Higher: fewer, more certain messages; lower: more messages, some less relevant.": "页面与关键词要多接近才推送给您。调高：消息更少、更准确；调低：消息更多，有些不那么相关。",
        "How much a link's standing within the site counts next to how well its words match yours (0: only the words, 1: only the standing).": "链接在网站中的重要程度与其文字和关键词的相符程度相比占多大比重（0：只看文字，1：只看重要程度）。",
        "How many links the crawler follows from each page. More: a broader, slower visit.": "每个页面最多继续访问多少个链接。越多：访问范围越广，也越慢。",
        "How much wider the crawler looks around a page that matched.": "找到相关页面后，在它周围扩大多少搜索范围。",
        "How many more steps the crawler goes past pages that do not match before it gives up on that path.": "遇到不相关的页面后，还沿这条路径继续走几步才放弃。",
        "Last visit {when}: the site has not changed since the visit before. Next visit {next}.": "上次访问 {when}：网站自上次以来没有变化，下次访问 {next}。",
        "Visiting the site now (started {when}).": "正在访问网站（{when} 开始）。",
        "Last visit {when} failed: {error}": "上次访问 {when} 失败：{error}",
        "Last visit {when}: {n} pages fetched.": "上次访问 {when}：抓取了 {n} 个页面。",
        "Pages fetched (for everyone)": "抓取页数（所有关注者共享）",
        "Matches for this concern": "本关注命中数",
        "Each visit fetches the site once for everyone who follows it. The matches and the harvest rate here are this concern's own.": "每次访问为关注该网站的所有用户共同抓取一次；这里的命中数和收获率只计算本关注自己的结果。",
        "Pages that matched any concern on this site, as the visit went on.": "访问过程中与该网站任一关注相符的页面。",
    }
)

CATALOGUES: dict[str, dict[str, str]] = {"zh": ZH, "en": EN}


def has(lang: str, key: str) -> bool:
    """True when ``lang``'s catalogue has its own text for ``key``."""
    return key in CATALOGUES.get(lang, {})


def translate(lang: str, key: str, **params: Any) -> str:
    """The text for ``key`` in ``lang`` with ``{params}`` filled in.

    English falls back to the key itself; a key missing from the Chinese catalogue is logged
    and shown in English. Prefixed keys (``status:xyz``) fall back to their suffix.
    """
    catalogue = CATALOGUES.get(lang, ZH)
    text = catalogue.get(key)
    if text is None:
        if lang != "en":
            logger.warning("no %s translation for %r", lang, key)
        text = EN.get(key, key)
        prefix, sep, rest = text.partition(":")
        if sep and prefix in ("status", "scope", "push", "method") and text == key:
            text = rest
    if params:
        try:
            return text.format(**params)
        except (KeyError, IndexError, ValueError):
            logger.warning("bad parameters for message %r", key)
    return text


def negotiate(accept_language: str | None) -> str:
    """The best of LANGUAGES for an Accept-Language header; Chinese when nothing fits."""
    if not accept_language:
        return DEFAULT
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGUAGES and quality > 0:
            ranked.append((-quality, index, primary))
    return sorted(ranked)[0][2] if ranked else DEFAULT


def negotiate_request(request: Request) -> str:
    """The language of an anonymous visitor: their explicit pick, else Accept-Language."""
    chosen = request.session.get("lang")
    if isinstance(chosen, str) and chosen in LANGUAGES:
        return chosen
    return negotiate(request.headers.get("accept-language"))
