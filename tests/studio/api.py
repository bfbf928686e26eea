#!/usr/bin/python3
"""terrafit studio's API and its hostile cases (tests/studio_api.sh runs it).

Every endpoint once, then what a hostile page or process might send: wrong
or missing token, foreign Host and Origin (DNS rebinding), path traversal
and symbolic links, oversized, malformed and decompression-bomb uploads,
bad arguments, concurrent requests. After each hostile case the server must
still answer. Prints TAP lines; standard library only.
  api.py URL PROJECT_DIR TERRAFIT SAMPLES_DIR SCRATCH_DIR
"""
import concurrent.futures
import http.client
import json
import os
import socket
import struct
import subprocess
import sys
import urllib.parse
import zlib

url, project, terrafit, samples, scratch = sys.argv[1:6]
parsed = urllib.parse.urlparse(url)
HOST, PORT = parsed.hostname, parsed.port
TOKEN = urllib.parse.parse_qs(parsed.query)["token"][0]
HOST_HEADER = f"{HOST}:{PORT}"

number = 0
failures = 0


def ok(name, cond, detail=""):
    global number, failures
    number += 1
    if cond:
        print(f"ok {number} - {name}")
    else:
        failures += 1
        print(f"not ok {number} - {name}")
        if detail:
            for line in str(detail).splitlines()[:8]:
                print(f"#   {line}")
    sys.stdout.flush()


def request(method, path, body=None, token=TOKEN, host=HOST_HEADER, origin=None, headers=None,
            timeout=60):
    """One request on a fresh connection: (status, headers, body bytes)."""
    conn = http.client.HTTPConnection(HOST, PORT, timeout=timeout)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    if host is not None:
        conn.putheader("Host", host)
    if token is not None:
        conn.putheader("X-Studio-Token", token)
    if origin is not None:
        conn.putheader("Origin", origin)
    for k, v in (headers or {}).items():
        conn.putheader(k, v)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders()
    if body is not None:
        conn.send(body)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data


def get_json(path, **kw):
    status, _, data = request("GET", path, **kw)
    return status, json.loads(data) if data else None


def alive(after):
    status, body = get_json("/api/state")
    ok(f"still answers after {after}", status == 200 and "references" in body, status)


def is_json_error(data):
    try:
        return "error" in json.loads(data)
    except ValueError:
        return False


def q(path, **args):
    return path + "?" + urllib.parse.urlencode(args)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def png(width, height, rows):
    """An 8-bit grey PNG; rows: the raw scanlines' bytes (filter bytes included)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9)) +
            chunk(b"IEND", b""))


# ---------------------------------------------------------------- the page
status, headers, data = request("GET", "/", token=None)
ok("GET / serves the page without a token", status == 200 and b"terrafit studio" in data)
ok("pages carry a strict Content-Security-Policy and no-store",
   "default-src 'self'" in headers.get("content-security-policy", "") and
   headers.get("cache-control") == "no-store" and headers.get("x-frame-options") == "DENY",
   headers)
status, headers, data = request("GET", "/studio.js", token=None)
ok("GET /studio.js", status == 200 and headers.get("content-type", "").startswith("text/javascript"))
status, _, _ = request("GET", "/vendor/three.min.js", token=None)
ok("GET /vendor/three.min.js (or 404 without three.js)", status in (200, 404), status)
status, _, data = request("GET", "/../../etc/passwd", token=None)
ok("a page outside the embedded ones is 404", status in (400, 404) and b"root:" not in data, status)

# ---------------------------------------------------------------- security
status, _, data = request("GET", "/api/state", token=None)
ok("no token: 401 with a JSON error", status == 401 and is_json_error(data), status)
status, _, _ = request("GET", "/api/state", token=TOKEN[:-1] + ("0" if TOKEN[-1] != "0" else "1"))
ok("a wrong token: 401", status == 401, status)
status, _, _ = request("GET", "/api/state", token=TOKEN[:10])
ok("a token's prefix: 401", status == 401, status)
status, _, _ = request("GET", "/api/state", token=TOKEN + "00")
ok("a token with more after it: 401", status == 401, status)
status, _, data = request("GET", "/api/state", host=f"evil.example:{PORT}")
ok("a foreign Host (DNS rebinding): 403", status == 403 and is_json_error(data), status)
status, _, _ = request("GET", "/", host=f"evil.example:{PORT}", token=None)
ok("a foreign Host gets no page either: 403", status == 403, status)
status, _, _ = request("GET", "/api/state", host=None)
ok("no Host: refused", status in (400, 403), status)
status, _, _ = request("GET", "/api/state", host=f"{HOST}:{PORT + 1 if PORT < 65535 else 1}")
ok("another port in Host: 403", status == 403, status)
status, _, _ = request("GET", "/api/state", origin="http://evil.example")
ok("a foreign Origin: 403", status == 403, status)
status, _, _ = request("GET", "/api/state", origin="null")
ok("Origin null (sandboxed frame, file:): 403", status == 403, status)
status, _, _ = request("GET", "/api/state", origin=f"http://{HOST_HEADER}")
ok("this server's own Origin: 200", status == 200, status)
status, _, _ = request("GET", "/api/state", host=f"localhost:{PORT}")
ok("Host localhost:PORT: 200", status == 200, status)
alive("the refused requests")

# ---------------------------------------------------------------- state, references
status, body = get_json("/api/state")
ok("GET /api/state", status == 200 and body["references"] == [] and body["layers"] == 0, body)
status, body = get_json("/api/spec")
ok("GET /api/spec before a fit: 404", status == 404, status)
status, _, data = request("GET", "/api/shader")
ok("GET /api/shader before a fit: 404", status == 404 and is_json_error(data), status)
status, _, data = request("POST", "/api/fit")
ok("POST /api/fit without references: 409", status == 409 and is_json_error(data), status)

layer0 = read(os.path.join(samples, "layered", "layer0.png"))
layer1 = read(os.path.join(samples, "layered", "layer1.png"))
for name in ["../evil.png", "/etc/passwd", ".hidden", "a/b.png", "x" * 200, "", "a\\b", "%2e%2e",
             "..", "name with space.png"]:
    status, _, data = request("POST", "/api/references?" + urllib.parse.urlencode({"name": name}),
                              body=layer0)
    ok(f"a reference named {name[:30]!r} is refused", status == 400 and is_json_error(data), status)
ok("nothing was written outside the project",
   not os.path.exists(os.path.join(project, "..", "evil.png")) and
   not os.path.exists(os.path.join(project, ".hidden")))
status, _, data = request("POST", "/api/references?name=bad.png", body=b"\x89PNG\r\n\x1a\nnot really")
ok("a malformed PNG: 400 with the reader's message", status == 400 and b"bad.png" in data, data)
ok("a refused upload leaves no file", not os.path.exists(os.path.join(project, "references", "bad.png")))
status, _, _ = request("POST", "/api/references?name=truncated.png", body=layer0[:len(layer0) // 2])
ok("a truncated PNG: 400", status == 400, status)
status, _, _ = request("POST", "/api/references?name=random.bin", body=os.urandom(4096))
ok("random bytes: 400", status == 400, status)
status, _, _ = request("POST", "/api/references?name=empty.png", body=b"")
ok("an empty upload: 400", status == 400, status)
# A decompression bomb: 20000 x 20000 pixels in a few hundred bytes.
bomb = png(20000, 20000, b"\0" * 1000)
status, _, data = request("POST", "/api/references?name=bomb.png", body=bomb)
ok("a PNG claiming 20000x20000 pixels: 413 before decoding", status == 413, (status, data))
wide = png(5000, 1, b"\0" + b"\x80" * 5000)
status, _, _ = request("POST", "/api/references?name=wide.png", body=wide)
ok("a reference wider than the studio's limit: 413", status == 413, status)
alive("the malformed uploads")

# Oversized: Content-Length beyond the limit is refused before the body is sent.
sock = socket.create_connection((HOST, PORT), timeout=30)
sock.sendall((f"POST /api/references?name=huge.png HTTP/1.1\r\nHost: {HOST_HEADER}\r\n"
              f"X-Studio-Token: {TOKEN}\r\nContent-Length: {1 << 40}\r\n\r\n").encode())
reply = sock.recv(4096)
sock.close()
ok("an upload declaring 1 TiB: 413 at once", reply.startswith(b"HTTP/1.1 413"), reply[:80])
# Chunked (no Content-Length) past the body limit of PUT /api/settings.
sock = socket.create_connection((HOST, PORT), timeout=60)
sock.sendall((f"PUT /api/settings HTTP/1.1\r\nHost: {HOST_HEADER}\r\nX-Studio-Token: {TOKEN}\r\n"
              "Transfer-Encoding: chunked\r\n\r\n").encode())
piece = b"x" * 65536
try:
    for _ in range(24):  # 1.5 MiB
        sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
    sock.sendall(b"0\r\n\r\n")
    reply = sock.recv(4096)
except OSError as e:  # the server may close as soon as it has answered
    reply = str(e).encode()
sock.close()
ok("a chunked body past the limit: 413", b"413" in reply[:20], reply[:80])
alive("the oversized uploads")

status, body = get_json("/api/state")
status, _, data = request("POST", "/api/references?name=layer0.png", body=layer0)
ok("POST /api/references (layer0.png)", status == 200 and json.loads(data)["index"] == 0, data)
status, _, data = request("POST", "/api/references?name=layer1.png", body=layer1)
ok("POST /api/references (layer1.png)", status == 200 and json.loads(data)["index"] == 1, data)
ok("the references are stored in PROJECT_DIR/references",
   read(os.path.join(project, "references", "layer1.png")) == layer1)
status, _, _ = request("POST", q("/api/references/move", **{"from": 0, "to": 1}))
status2, body = get_json("/api/state")
ok("POST /api/references/move", status == 200 and body["references"][0]["name"] == "layer1.png",
   body)
request("POST", q("/api/references/move", **{"from": 1, "to": 0}))
status, _, _ = request("POST", q("/api/references/move", **{"from": 0, "to": 7}))
ok("move out of range: 400", status == 400, status)
request("POST", "/api/references?name=extra.png", body=layer0)
status, _, _ = request("DELETE", q("/api/references", index=2))
status2, body = get_json("/api/state")
ok("DELETE /api/references", status == 200 and len(body["references"]) == 2, body)
status, _, _ = request("DELETE", q("/api/references", index=5))
ok("DELETE out of range: 400", status == 400, status)

# ---------------------------------------------------------------- fit, spec, history
status, _, data = request("POST", "/api/fit")
report = json.loads(data)
ok("POST /api/fit", status == 200 and len(report["layers"]) == 2, data[:200])
ok("the fit's answer has both frequency estimates and the one used",
   all(isinstance(l.get("peaks"), (int, float)) and isinstance(l.get("spectrum"), (int, float))
       and l.get("method") in ("peaks", "spectrum") and l["frequency"] in (l["peaks"], l["spectrum"])
       for l in report["layers"]), data[:400])
status, _, spec_text = request("GET", "/api/spec")
cli_spec = os.path.join(scratch, "cli.json")
subprocess.run([terrafit, "fit", os.path.join(samples, "layered", "layer0.png"),
                os.path.join(samples, "layered", "layer1.png"), "-o", cli_spec, "-q"], check=True)
ok("GET /api/spec is byte for byte what terrafit fit writes", spec_text == read(cli_spec))
status, _, data = request("POST", "/api/fit?layer=1")
ok("POST /api/fit?layer=1", status == 200, data[:200])
status, _, data = request("POST", "/api/fit?layer=9")
ok("POST /api/fit?layer=9: 409", status == 409, status)
for args in ["points=1", "points=99999", "noise=bogus", "points=-3", "points=1e3"]:
    status, _, _ = request("POST", "/api/fit?" + args)
    ok(f"POST /api/fit?{args}: 400", status == 400, status)

spec = json.loads(spec_text)
spec["noiseLayers"][0]["rd"]["points"][10]["y"] = 0.25
status, _, data = request("PUT", "/api/spec?live=1", body=json.dumps(spec).encode())
ok("PUT /api/spec?live=1", status == 200, data)
spec["noiseLayers"][0]["rd"]["points"][10]["y"] = 0.3
status, _, data = request("PUT", "/api/spec", body=json.dumps(spec).encode())
ok("PUT /api/spec", status == 200, data)
status, body = get_json("/api/state")
ok("a live run and its end are undoable", body["canUndo"] and not body["canRedo"], body)
status, _, _ = request("POST", "/api/undo")
status2, _, text = request("GET", "/api/spec")
ok("POST /api/undo goes back to the fitted spec (the live run is one step)",
   status == 200 and text == spec_text, status)
status, _, _ = request("POST", "/api/redo")
status2, _, text = request("GET", "/api/spec")
ok("POST /api/redo", status == 200 and json.loads(text)["noiseLayers"][0]["rd"]["points"][10]["y"] == 0.3)
status, _, data = request("POST", "/api/redo")
ok("nothing to redo: 409", status == 409 and is_json_error(data), status)

bad_specs = {
    "not JSON": b"{nope",
    "empty": b"",
    "a number": b"42",
    "NaN": spec_text.replace(b'"ampScale": 1', b'"ampScale": NaN'),
    "65 layers": json.dumps({**spec, "noiseLayers": spec["noiseLayers"] * 33}).encode(),
    "a mask on a higher layer": json.dumps({**spec, "noiseLayers": [
        {**spec["noiseLayers"][0], "maskLayerIndex": 1, "maskMinValue": 0, "maskMaxValue": 1,
         "maskFalloff": 0}, spec["noiseLayers"][1]]}).encode(),
    "deep nesting": b"[" * 100000 + b"]" * 100000,
    "binary": os.urandom(2000),
}
for what, body in bad_specs.items():
    status, _, data = request("PUT", "/api/spec", body=body)
    expected = (413,) if what == "65 layers" else (400,)
    ok(f"PUT /api/spec with {what}: {expected[0]}", status in expected and is_json_error(data),
       (status, data[:120]))
status, _, text = request("GET", "/api/spec")
ok("a refused spec leaves the spec as it was",
   json.loads(text)["noiseLayers"][0]["rd"]["points"][10]["y"] == 0.3)
alive("the malformed specs")

# ---------------------------------------------------------------- pictures, figures
for kind, extra in [("reference", {"layer": 1}), ("layer", {"layer": 1, "mask": 1}),
                    ("combined", {}), ("synthesis", {})]:
    for style in ["height", "hillshade", "color", "slope"]:
        status, headers, data = request("GET", q("/api/image", kind=kind, style=style, w=64, h=48,
                                                 **extra))
        ok(f"GET /api/image kind={kind} style={style}",
           status == 200 and data[:8] == b"\x89PNG\r\n\x1a\n" and
           struct.unpack(">II", data[16:24]) == (64, 48), (status, data[:80]))
status, _, _ = request("GET", q("/api/image", kind="synthesis", x=1e9, y=-1e9, step=250, w=32, h=32))
ok("the endless view far away", status == 200, status)
for args in [dict(kind="nope"), dict(kind="layer", layer=7), dict(kind="synthesis", w=0),
             dict(kind="synthesis", w=100000), dict(kind="synthesis", step="nan"),
             dict(kind="synthesis", step="inf"), dict(kind="synthesis", step=0),
             dict(kind="synthesis", x="1e300"), dict(kind="synthesis", style="sepia"),
             dict(kind="synthesis", w="12abc"), dict(kind="reference", layer=5), {}]:
    status, _, data = request("GET", q("/api/image", **args))
    ok(f"GET /api/image {args}: 4xx", 400 <= status < 500 and is_json_error(data), status)
status, body = get_json("/api/stats?layer=1")
ok("GET /api/stats", status == 200 and len(body["synthesis"]["histogram"]) == 32 and
   len(body["reference"]["histogram"]) == 32 and 0 <= body["chi2"] < 0.05, body)
status, _ = get_json("/api/stats?layer=3")
ok("GET /api/stats of a missing layer: 400", status == 400, status)
status, _, data = request("GET", q("/api/mesh", n=33, step=4))
ok("GET /api/mesh", status == 200 and len(data) == 33 * 33 * 4 * 4, (status, len(data)))
status, _, _ = request("GET", q("/api/mesh", n=100000))
ok("GET /api/mesh too large: 400", status == 400, status)

# ---------------------------------------------------------------- shader export
for lang, sig in [("glsl", b"vec3 terrain_gradient_at(ivec2 cell, vec2 frac) {"),
                  ("wgsl", b"fn terrain_at(cell: vec2i, frac: vec2f) -> f32 {"),
                  ("hlsl", b"float terrain(float2 p) {")]:
    status, headers, data = request("GET", q("/api/shader", lang=lang))
    ok(f"GET /api/shader lang={lang}", status == 200 and sig in data, (status, data[:80]))
    status, _, data = request("POST", q("/api/shader", lang=lang))
    ok(f"POST /api/shader lang={lang} writes terrain.{lang}",
       status == 200 and json.loads(data).get("saved") == f"terrain.{lang}" and
       read(os.path.join(project, f"terrain.{lang}")) == request("GET", q("/api/shader", lang=lang))[2],
       (status, data[:120]))
for bad in ["msl", "", "glsl/../x", "x" * 5000]:
    status, _, data = request("GET", q("/api/shader", lang=bad))
    ok(f"GET /api/shader with a bad lang ({bad[:12]!r}): 400", status == 400 and is_json_error(data),
       (status, data[:120]))
status, _, data = request("POST", "/api/shader", token="wrong")
ok("POST /api/shader without the token: refused", status in (401, 403), status)

# ---------------------------------------------------------------- settings, save, load
settings = {"verticalScale": 0.3, "bands": [{"color": "#112233", "limit": 0.5, "blend": 0.1}]}
status, _, _ = request("PUT", "/api/settings", body=json.dumps(settings).encode())
status2, body = get_json("/api/settings")
ok("PUT and GET /api/settings", status == 200 and body == settings, body)
for what, body in {"not JSON": b"{", "an array": b"[1]", "deep": b"{\"a\":" * 5000 + b"1" +
                   b"}" * 5000}.items():
    status, _, _ = request("PUT", "/api/settings", body=body)
    ok(f"PUT /api/settings with {what}: 400", status == 400, status)
status, _, data = request("POST", "/api/save")
saved = json.loads(data).get("saved", [])
ok("POST /api/save", status == 200 and sorted(saved) == ["project.json", "render.json",
                                                         "terrain.json"], data)
run = subprocess.run([terrafit, "validate", os.path.join(project, "terrain.json")],
                     capture_output=True, text=True)
ok("terrafit validate accepts the saved spec", run.returncode == 0, run.stderr)
status, _, text = request("GET", "/api/spec")
ok("the saved spec is the spec's bytes", read(os.path.join(project, "terrain.json")) == text)
ok("no temporary file is left", not [f for f in os.listdir(project) if ".tmp" in f],
   os.listdir(project))
request("PUT", "/api/spec", body=spec_text)
status, body = get_json("/api/state")
status, _, data = request("POST", "/api/load")
status2, _, text = request("GET", "/api/spec")
ok("POST /api/load reads the saved project back",
   status == 200 and json.loads(text)["noiseLayers"][0]["rd"]["points"][10]["y"] == 0.3, data[:200])
status, body = get_json("/api/state")
ok("after a load, no undo history", not body["canUndo"] and len(body["references"]) == 2, body)
status, _, _ = request("POST", "/api/undo")
ok("nothing to undo: 409", status == 409, status)

# Symbolic links: a project file or reference that is a link is refused.
outside = os.path.join(scratch, "outside.png")
with open(outside, "wb") as f:
    f.write(layer0)
link = os.path.join(project, "references", "link.png")
os.symlink(outside, link)
status, _, data = request("POST", "/api/references?name=link.png", body=layer1)
ok("an upload over a symbolic link is refused", 400 <= status < 500 and read(outside) == layer0,
   (status, data))
project_json = json.loads(read(os.path.join(project, "project.json")))
with open(os.path.join(project, "project.json"), "w") as f:
    json.dump({**project_json, "references": ["layer0.png", "link.png"]}, f)
status, _, data = request("POST", "/api/load")
ok("a project listing a symbolic link does not load", 400 <= status < 600 and is_json_error(data),
   (status, data))
status, body = get_json("/api/state")
ok("a failed load keeps the session", len(body["references"]) == 2, body)
with open(os.path.join(project, "project.json"), "w") as f:
    json.dump({**project_json, "references": ["../../etc/passwd"]}, f)
status, _, _ = request("POST", "/api/load")
ok("a project naming a file outside references/ does not load", 400 <= status < 600, status)
os.unlink(link)
with open(os.path.join(project, "references", "bomb.png"), "wb") as f:
    f.write(bomb)
with open(os.path.join(project, "project.json"), "w") as f:
    json.dump({**project_json, "references": ["bomb.png"]}, f)
status, _, _ = request("POST", "/api/load")
ok("a decompression bomb put into references/ by hand does not load", status == 413, status)
os.unlink(os.path.join(project, "references", "bomb.png"))
os.symlink("/etc/passwd", os.path.join(project, "render.json.lnk"))
os.replace(os.path.join(project, "render.json.lnk"), os.path.join(project, "render.json"))
with open(os.path.join(project, "project.json"), "w") as f:
    json.dump(project_json, f)
status, _, _ = request("POST", "/api/load")
ok("render.json as a symbolic link does not load", 400 <= status < 600, status)
status, _, _ = request("POST", "/api/save")
ok("nor is it written through", status == 409 and os.path.islink(os.path.join(project, "render.json")),
   status)
os.unlink(os.path.join(project, "render.json"))
alive("the symbolic links")

# ---------------------------------------------------------------- methods, endpoints
for method, path in [("GET", "/api/nope"), ("DELETE", "/api/spec"), ("GET", "/api/fit"),
                     ("PATCH", "/api/state"), ("POST", "/api/state"), ("GET", "/api/")]:
    status, _, data = request(method, path)
    ok(f"{method} {path}: 404", status == 404 and is_json_error(data), status)
status, _, _ = request("POST", "/", token=None)
ok("POST /: 405", status == 405, status)
sock = socket.create_connection((HOST, PORT), timeout=10)
sock.sendall(b"\x00\x01garbage that is not HTTP\r\n\r\n")
try:
    reply = sock.recv(100)
except OSError:
    reply = b""
sock.close()
ok("garbage instead of HTTP gets 400 or a closed connection", reply == b"" or b" 400 " in reply[:20],
   reply)
alive("the garbage")

# ---------------------------------------------------------------- concurrency
def fetch(k):
    status, _, _ = request("GET", q("/api/image", kind="synthesis", x=k * 100, w=256, h=256))
    return status

with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:
    statuses = list(pool.map(fetch, range(48)))
ok("48 concurrent image requests: each 200 or 503 (too many at once)",
   all(s in (200, 503) for s in statuses) and statuses.count(200) > 0, statuses)
idle = [socket.create_connection((HOST, PORT), timeout=10) for _ in range(20)]
status, _ = get_json("/api/state")
ok("20 idle connections do not shut others out", status == 200, status)
for s in idle:
    s.close()
alive("the concurrent requests")

print(f"1..{number}")
sys.exit(1 if failures else 0)
