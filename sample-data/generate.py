#!/usr/bin/env python3
"""Writes the bundled sample night: logs of three origins, robots versions, a manifest, IP ranges.

Deterministic (fixed seed): running it again rewrites the same files. Everything here is made up
for the project (the user-agent strings follow the crawlers' documented formats; addresses come
from documentation ranges and from the crawlers' published ranges).
"""
import gzip
import os
import random
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261121)
START = datetime(2026, 11, 20, 18, 0, 0, tzinfo=timezone.utc)
END = START + timedelta(hours=12)

UA = {
    "googlebot": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "googlebot-smartphone": "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "googlebot-image": "Googlebot-Image/1.0",
    "bingbot": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
    "gptbot": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    "claudebot": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
    "perplexitybot": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
    "ahrefsbot": "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "mj12bot": "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)",
    "bytespider": "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
    "yandexbot": "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
    "unknown": "Mozilla/5.0 (compatible; NightOwlCrawler/0.9; +https://nightowl.example/bot)",
    "chatgpt-user": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
}
BROWSERS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
]
GOOGLE_IPS = ["66.249.66.%d" % i for i in (1, 12, 65, 71, 160)]
SPOOF_IPS = ["203.0.113.%d" % i for i in (7, 19, 44)]

def ip_for(bot):
    if bot.startswith("googlebot"):
        return rng.choice(GOOGLE_IPS)
    return "198.51.100.%d" % rng.randint(10, 250)

WWW_OK = ["/", "/about", "/products/widget-%d" % 7, "/products/gadget-42?color=blue", "/blog/2026/11/winter-sale",
          "/docs/getting-started", "/docs/api/v2/reference", "/static/css/site.3f2a.css", "/images/logo.png",
          "/careers", "/contact"]
WWW_BAD = ["/admin/login", "/cart/checkout?step=2", "/search?q=widgets", "/internal/reports/q3.pdf", "/account/orders"]
WWW_NEW_BAD = ["/drafts/2026-winter-launch", "/drafts/pricing-v2"]
BLOG_OK = ["/", "/posts/why-robots-txt-matters", "/posts/crawl-budget-101", "/tags/seo", "/feed.xml", "/posts/2026/11/20/night-shift"]
BLOG_BAD = ["/wp-admin/", "/preview/draft-17", "/posts/crawl-budget-101?replytocom=42"]
SHOP_OK = ["/", "/c/shoes", "/p/trail-runner-3000", "/p/rain-jacket?size=m", "/c/jackets?page=2", "/help/shipping"]
SHOP_BAD = ["/checkout/payment", "/cart", "/c/shoes?sort=price&filter=red", "/api/v1/stock?id=12"]

def clf_time(t):
    return t.strftime("%d/%b/%Y:%H:%M:%S +0000")

def times(n):
    span = (END - START).total_seconds()
    return sorted(START + timedelta(seconds=rng.uniform(0, span)) for _ in range(n))

def plan(host, ok, bad, new_bad=()):
    """(time, bot, path) tuples for one origin."""
    events = []
    per_bot = {
        "googlebot": (60, 0.0), "googlebot-smartphone": (40, 0.0), "googlebot-image": (15, 0.0),
        "bingbot": (50, 0.0), "gptbot": (35, 0.3), "claudebot": (25, 0.0), "perplexitybot": (20, 0.2),
        "ahrefsbot": (30, 0.25), "mj12bot": (12, 1.0), "bytespider": (30, 0.5), "yandexbot": (15, 0.0),
        "unknown": (15, 0.4),
    }
    for bot, (n, bad_share) in per_bot.items():
        ts = times(n)
        # Well-behaved crawlers fetch robots.txt first; the careless ones sometimes do not.
        if bad_share < 0.3 or rng.random() < 0.5:
            events.append((ts[0] - timedelta(seconds=5), bot, "/robots.txt", None))
        for t in ts:
            pool = bad if rng.random() < bad_share else ok
            if new_bad and bot == "gptbot" and t.hour < 12 and rng.random() < 0.4:
                pool = new_bad
            events.append((t, bot, rng.choice(pool), None))
    for t in times(8):  # a Googlebot impostor from a hosting range
        events.append((t, "googlebot", rng.choice(bad + ok), rng.choice(SPOOF_IPS)))
    for t in times(400):
        events.append((t, None, rng.choice(ok + bad), None))
    events.sort(key=lambda e: e[0])
    return events

def user_fetches(ok, bad):
    """ChatGPT-User fetching shop pages people asked ChatGPT about: no robots.txt first, most of
    them pages robots.txt disallows (OpenAI says robots.txt may not apply to these fetches, so the
    audit counts them `exempt`). Drawn from a stream of their own, so that the rest of the night
    stays byte for byte what it was before they were added."""
    own = random.Random(20261122)
    span = (END - START).total_seconds()
    events = []
    for i in range(8):
        t = START + timedelta(seconds=own.uniform(0, span))
        path = own.choice(bad) if i < 5 else own.choice(ok)
        events.append((t, "chatgpt-user", path, "198.51.100.%d" % own.randint(10, 250)))
    return sorted(events), own

def line(host, port, vhost, t, bot, path, ip, r=None):
    r = r or rng
    ua = UA[bot] if bot else r.choice(BROWSERS)
    ip = ip or (ip_for(bot) if bot else "192.0.2.%d" % r.randint(1, 254))
    status = 200 if r.random() < 0.9 else r.choice([304, 404, 301])
    size = r.randint(300, 90000) if status == 200 else 0
    if path == "/robots.txt":
        status, size = 200, r.randint(200, 900)
    ref = "-" if bot else "https://%s/" % host
    core = '%s - - [%s] "GET %s HTTP/1.1" %d %d "%s" "%s"' % (ip, clf_time(t), path, status, size, ref, ua)
    return ("%s:%d %s" % (host, port, core)) if vhost else core

def write_gz(name, lines):
    path = os.path.join(HERE, "logs", name)
    with open(path, "wb") as raw:
        # mtime=0 keeps the archive byte-identical between runs.
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
            f.write(("\n".join(lines) + "\n").encode())

def main():
    os.makedirs(os.path.join(HERE, "logs"), exist_ok=True)
    vhost = []
    for host, ok, bad, new_bad in [("www.example.com", WWW_OK, WWW_BAD, WWW_NEW_BAD), ("blog.example.com", BLOG_OK, BLOG_BAD, ())]:
        for t, bot, path, ip in plan(host, ok, bad, new_bad):
            vhost.append((t, line(host, 443, True, t, bot, path, ip)))
    vhost.sort(key=lambda x: x[0])
    midnight = datetime(2026, 11, 21, tzinfo=timezone.utc)
    before = [l for t, l in vhost if t < midnight]
    after = [l for t, l in vhost if t >= midnight]
    # Damage a few lines the way real logs get damaged: a cut-off line and a binary one.
    before.insert(len(before) // 2, before[len(before) // 2][:60])
    after.insert(10, '\x00\x00\x16\x03\x01 garbage from a TLS client on the plain port')
    write_gz("vhost-2026-11-20.log.gz", before)
    write_gz("vhost-2026-11-21.log.gz", after)
    shop = [(t, line("shop.example.net", 443, False, t, bot, path, ip)) for t, bot, path, ip in plan("shop.example.net", SHOP_OK, SHOP_BAD)]
    fetches, own = user_fetches(SHOP_OK, SHOP_BAD)
    shop += [(t, line("shop.example.net", 443, False, t, bot, path, ip, own)) for t, bot, path, ip in fetches]
    shop.sort(key=lambda x: x[0])
    write_gz("shop-access.log.gz", [l for _, l in shop])

if __name__ == "__main__":
    main()
