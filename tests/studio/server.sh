# What the studio's end-to-end tests share (sourced after tests/tap.sh):
# starting `terrafit studio` on a project folder, taking a client's TAP
# lines as the script's own, and stopping the server, which must still be
# running and must end cleanly on SIGTERM.

# studio_start DIR: the server in the background ($server, its pid) and the
# URL it prints once it listens ($url; empty if it never did). The server
# is killed on exit whatever happens.
studio_start() {
    "$TERRAFIT" studio "$1" >"$scratch/url" 2>"$scratch/server.err" &
    server=$!
    trap 'kill $server 2>/dev/null; rm -rf "$scratch"' EXIT
    tries=0
    while [ ! -s "$scratch/url" ] && [ $tries -lt 100 ] && kill -0 $server 2>/dev/null; do
        sleep 0.1
        tries=$((tries + 1))
    done
    url=$(head -n 1 "$scratch/url")
}

# relay_tap FILE: FILE's "ok" and "not ok" lines counted as this script's
# (renumbered after its own), its comments passed on, then the client's
# stderr ($scratch/stderr) as diagnostics.
relay_tap() {
    while IFS= read -r line; do
        case $line in
        "ok "*) pass "${line#ok * - }" ;;
        "not ok "*) fail "${line#not ok * - }" ;;
        "#"*) echo "$line" ;;
        esac
    done <"$1"
    if [ -s "$scratch/stderr" ]; then
        sed -n "1,20s/^/#   /p" "$scratch/stderr"
    fi
}

# studio_stop: the server survived the client, and SIGTERM ends it with 0.
studio_stop() {
    check "the server is still running" kill -0 $server
    kill -TERM $server
    wait $server
    check "SIGTERM stops it cleanly (status 0)" test $? -eq 0
}
