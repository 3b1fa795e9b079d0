#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets in fuzz/corpus/<target>/ (never committed) from
# the repository's fixtures and, when it is there, the real third-party data: the directory
# ROBOTS_AUDIT_DATA names, else ../shared/data beside the repository.
#
#   fuzz/seed.sh            # then: cargo +nightly fuzz run robots -- -max_total_time=600 ...
#
# Seed layouts follow each target's doc comment: `robots` seeds are a robots.txt body followed by
# a URL, agent tokens and three trailer bytes; `log_formats` seeds start with a format selector
# byte; `decompress` seeds are compressed (or plain) log files, whole and cut short.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
data="${ROBOTS_AUDIT_DATA:-$repo/../shared/data}"
corpus="$here/corpus"
max_seed=6000 # bytes: seeds stay below libFuzzer's -max_len (8192 in CONTRIBUTING.md's command)

mkdir -p "$corpus/robots" "$corpus/log_formats" "$corpus/decompress"
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

# log_formats: selector byte (format index in Format::ALL order, +64 Logpush preset, +128 the
# first line is the block header) ++ lines.
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

for target in robots log_formats decompress; do
    echo "$target: $(find "$corpus/$target" -type f | wc -l) seeds"
done
