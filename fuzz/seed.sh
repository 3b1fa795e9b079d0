#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets in fuzz/corpus/<target>/ (never committed) from
# the repository's fixtures and, when it is there, the real third-party data: the directory
# ROBOTS_AUDIT_DATA names, else ../shared/data beside the repository.
#
#   fuzz/seed.sh            # then: cargo +nightly fuzz run robots -- -max_total_time=600 ...
#
# Seed layouts follow each target's doc comment: `robots` seeds are a robots.txt body followed by
# a URL, agent tokens and three trailer bytes; `log_formats` seeds start with a format selector
# byte; `decompress` seeds are compressed (or plain) log files, whole and cut short; `inputs`
# seeds start with a reader selector byte (a range file, a catalog, the DNS cache, a CDX answer,
# a state's payload, the last from an audit of sample-data/ run by `cargo run --release`).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
data="${ROBOTS_AUDIT_DATA:-$repo/../shared/data}"
corpus="$here/corpus"
max_seed=6000 # bytes: seeds stay below libFuzzer's -max_len (8192 in CONTRIBUTING.md's command)

mkdir -p "$corpus/robots" "$corpus/log_formats" "$corpus/decompress" "$corpus/inputs"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# robots: body ++ url ++ agents ++ [url_len] [agents_len] [flags].
robots_seed() { # <body file> <url> <agents> <flags as octal escape> <name>
    local body="$1" url="$2" agents="$3" flags="$4" name="$5"
    {
        head -c "$max_seed" "$body"
        printf '%s%s' "$url" "$agents"
        printf "\\$(printf '%03o' "${#url}")\\$(printf '%03o' "${#agents}")$flags"
    } >"$corpus/robots/$name"
}
n=0
add_robots_dir() { # <dir>: every file, paired with a few URLs and agents
    local file
    for file in "$1"/*; do
        [ -f "$file" ] || continue
        n=$((n + 1))
        case $((n % 4)) in
        0) robots_seed "$file" "https://example.com/private/x?q=1" "Googlebot" '\000' "r$n" ;;
        1) robots_seed "$file" "/search?q=a" "bingbot,msnbot" '\000' "r$n" ;;
        2) robots_seed "$file" "/index.html" "GPTBot" '\377' "r$n" ;;
        3) robots_seed "$file" "//h/a/b.php" "*" '\201' "r$n" ;;
        esac
    done
}
add_robots_dir "$repo/sample-data/robots"
add_robots_dir "$repo/sample-data/manifest"
if [ -f "$data/robots/protego_real_robots_4231.tar.gz" ]; then
    mkdir -p "$scratch/protego"
    tar -xzf "$data/robots/protego_real_robots_4231.tar.gz" -C "$scratch/protego"
    add_robots_dir "$scratch/protego/test_data"
    cp "$data/robots/ai-robots-txt_robots.txt" "$scratch/ai.txt"
    robots_seed "$scratch/ai.txt" "/" "GPTBot" '\000' "ai"
fi

# log_formats: selector byte (format index in Format::ALL order, +64 Logpush preset and
# HAProxy's captures declared as host,user-agent, +128 the first line is the block header) ++
# lines.
log_seed() { # <selector> <file> <name>
    { printf "\\$(printf '%03o' "$1")"; head -c "$max_seed" "$2"; } >"$corpus/log_formats/$3"
}
fixtures="$repo/crates/logs/tests/fixtures"
log_seed 0 "$fixtures/combined.log" combined
log_seed 0 "$fixtures/nginx_xff.log" nginx_xff
log_seed 1 "$fixtures/common.log" common
log_seed 2 "$fixtures/vhost_combined.log" vhost_combined
log_seed 3 "$fixtures/w3c.log" w3c
log_seed 131 "$fixtures/w3c.log" w3c_header
log_seed 4 "$fixtures/cloudfront.log" cloudfront
log_seed 5 "$fixtures/alb.log" alb
log_seed 6 "$fixtures/caddy.log" caddy
log_seed 7 "$fixtures/json_nginx.log" json_nginx
log_seed 71 "$fixtures/logpush.log" logpush
log_seed 8 "$fixtures/crawl.log" crawl
log_seed 8 "$fixtures/crawl_json.log" crawl_json
log_seed 9 "$fixtures/haproxy_syslog.log" haproxy_syslog
log_seed 73 "$fixtures/haproxy_syslog.log" haproxy_captures
if [ -d "$data/logs" ]; then
    for file in "$data"/logs/*.log "$data"/logs/format_samples/*.log; do
        name="$(basename "$file" .log)"
        case "$name" in
        iis_*) selector=3 ;;
        caddy_*) selector=6 ;;
        *cloudfront*) selector=4 ;;
        *alb* | *elb*) selector=5 ;;
        *common_vhost*) selector=2 ;;
        *nginx_json*) selector=7 ;;
        *netscaler* | matomo_iis) selector=3 ;;
        *) selector=0 ;;
        esac
        log_seed "$selector" "$file" "$name"
    done
fi

# decompress: plain, gzip (single and multi-member), zstd, and the same cut short.
for file in "$fixtures"/*.log; do
    name="$(basename "$file" .log)"
    cp "$file" "$corpus/decompress/$name.plain"
    gzip -9c "$file" >"$corpus/decompress/$name.gz"
    zstd -q -19 -c "$file" >"$corpus/decompress/$name.zst"
    cat "$corpus/decompress/$name.gz" "$corpus/decompress/$name.gz" >"$corpus/decompress/$name.multi.gz"
    size=$(stat -c %s "$corpus/decompress/$name.gz")
    head -c $((size / 2)) "$corpus/decompress/$name.gz" >"$corpus/decompress/$name.cut.gz"
done
for file in "$repo"/sample-data/logs/*.gz; do
    head -c "$max_seed" "$file" >"$corpus/decompress/$(basename "$file").head"
done

# inputs: selector byte (0 range file as .txt, 130 as .json: 0 with bit 7 set; 1 catalog, 2 DNS
# cache, 3 CDX answer, 4 state payload) ++ the input.
input_seed() { # <selector> <file> <name>
    { printf "\\$(printf '%03o' "$1")"; head -c "$max_seed" "$2"; } >"$corpus/inputs/$3"
}
input_seed 130 "$repo/sample-data/ranges/googlebot.json" ranges_json
printf '66.249.64.0/19\n# comment\n2001:4860:4801::/48\n192.0.2.1\n' >"$scratch/ranges.txt"
input_seed 0 "$scratch/ranges.txt" ranges_txt
input_seed 1 "$repo/crates/bots/tests/fixtures/extra_catalog.json" catalog_own
printf '[{"pattern": "[pP]ython-urllib", "instances": ["Python-urllib/3.11"]}]' >"$scratch/cua.json"
input_seed 1 "$scratch/cua.json" catalog_cua
printf 'ip,ptr,confirmed,checked_at\n66.249.66.1,crawl-66-249-66-1.googlebot.com,true,1700000000\n2001:db8::1,,false,1700000000\n' >"$scratch/dns.csv"
input_seed 2 "$scratch/dns.csv" dns_cache
printf '[["timestamp","statuscode","digest"],["20240101000000","200","AAA"],["20240301120000","404","BBB"]]' >"$scratch/cdx.json"
input_seed 3 "$scratch/cdx.json" cdx
json_head() { # <file> <out>: a JSON list, or an object's `prefixes`, cut to its first 10 items
    python3 - "$1" "$2" <<'PY'
import json, sys
value = json.load(open(sys.argv[1], encoding="utf-8"))
if isinstance(value, list):
    value = value[:10]
elif isinstance(value, dict) and isinstance(value.get("prefixes"), list):
    value["prefixes"] = value["prefixes"][:10]
json.dump(value, open(sys.argv[2], "w", encoding="utf-8"), separators=(",", ":"))
PY
}
if [ -d "$data/bots/ip_ranges" ]; then
    for file in "$data"/bots/ip_ranges/*; do
        case "$file" in
        *.json)
            json_head "$file" "$scratch/head.json"
            input_seed 130 "$scratch/head.json" "$(basename "$file")"
            ;;
        *) input_seed 0 "$file" "$(basename "$file")" ;;
        esac
    done
    json_head "$data/bots/crawler-user-agents.json" "$scratch/head.json"
    input_seed 1 "$scratch/head.json" crawler_user_agents
fi
(cd "$repo" && cargo run -q --release -- audit --quiet --robots sample-data/robots \
    --robots sample-data/manifest.csv --origin https://shop.example.net \
    --verify Google=sample-data/ranges/googlebot.json --out "$scratch/report" sample-data/logs) ||
    true # exit codes 1 to 3 are verdicts; the state is written all the same
python3 - "$scratch/report/state.json" "$corpus/inputs/state" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
start = text.index('"payload":') + len('"payload":')
end = text.rindex(',"sha256":')
open(sys.argv[2], "wb").write(b"\x04" + text[start:end].encode("utf-8"))
PY

for target in robots log_formats decompress inputs; do
    echo "$target: $(find "$corpus/$target" -type f | wc -l) seeds"
done
