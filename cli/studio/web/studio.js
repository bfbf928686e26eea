// terrafit studio: the page. It holds no terrain logic: every picture,
// figure and fit comes from the server's JSON API (docs/studio.md); the
// page edits the spec's JSON and puts it back. Live edits (a drag) are
// sent with ?live=1 and become one undo step when the drag ends.
"use strict";

const studio = (() => {
  const params = new URLSearchParams(location.search);
  let token = params.get("token");
  if (token) {
    sessionStorage.setItem("terrafit-studio-token", token);
    history.replaceState(null, "", "/"); // keep the token out of history and referrers
  } else {
    token = sessionStorage.getItem("terrafit-studio-token") || "";
  }

  const NOISES = ["simplex", "perlin-reference-simplex", "perlin", "exponential-perlin",
    "polynomial", "value", "cellular-f1", "cellular-f2", "cellular-f2-f1"];
  const IMAGE = 512; // side of a layer preview, pixels (drawn at 256 CSS px)
  const $ = (sel, root = document) => root.querySelector(sel);

  // estimates: per layer, the fit's two frequency estimates (peaks and
  // spectrum) and the one it used, until the layers are rearranged.
  const state = { server: null, spec: null, stats: [], cards: [], busy: 0, estimates: [] };
  // Input-to-image latencies of live edits, milliseconds (read by the tests).
  const latencies = [];

  function status(text, error = false) {
    const el = $("#status");
    el.textContent = text;
    el.className = error ? "error" : "";
  }

  async function api(method, path, body, type) {
    const headers = { "X-Studio-Token": token };
    if (body !== undefined && type) headers["Content-Type"] = type;
    const r = await fetch(path, { method, headers, body });
    const ct = r.headers.get("Content-Type") || "";
    if (!r.ok) {
      let message = r.status + " " + r.statusText;
      if (ct.startsWith("application/json")) message = (await r.json()).error || message;
      throw new Error(message);
    }
    return ct.startsWith("application/json") ? r.json() : r.blob();
  }

  async function withStatus(what, fn) {
    state.busy++;
    document.body.classList.add("busy");
    status(what + "…");
    try {
      const out = await fn();
      status(typeof out === "string" ? out : what + ": done"); // a string is the outcome
      return out;
    } catch (e) {
      status(what + ": " + e.message, true);
      return undefined;
    } finally {
      if (--state.busy === 0) document.body.classList.remove("busy");
    }
  }

  // An image from the API into an <img>; resolves once it is decoded.
  async function loadImage(img, query) {
    const blob = await api("GET", "/api/image?" + new URLSearchParams(query));
    const url = URL.createObjectURL(blob);
    const old = img.dataset.url;
    img.src = url;
    img.dataset.url = url;
    await img.decode().catch(() => {});
    if (old) URL.revokeObjectURL(old);
  }

  // ---------------------------------------------------------------- state

  async function refresh() {
    state.server = await api("GET", "/api/state");
    state.spec = null;
    if (state.server.layers > 0) state.spec = await api("GET", "/api/spec");
    $("#undo").disabled = !state.server.canUndo;
    $("#redo").disabled = !state.server.canRedo;
    $("#tab3d").hidden = !state.server.three;
    $("#fit-all").disabled = state.server.references.length === 0;
    $("#add-layer").disabled = !state.spec;
    buildCards();
    await Promise.all([redrawLayers(), redrawResult()]);
    if (window.studio3d) window.studio3d.specChanged();
  }

  // The spec's layers, and after them references not fitted yet.
  function layerCount() {
    const refs = state.server.references.length;
    return state.spec ? Math.max(state.spec.noiseLayers.length, state.server.autoLayered ? 0 : refs) : refs;
  }

  // ---------------------------------------------------------------- layers

  function buildCards() {
    const list = $("#layer-list");
    list.textContent = "";
    state.cards = [];
    const n = layerCount();
    $("#empty").hidden = n > 0;
    for (let i = 0; i < n; i++) {
      const card = $("#layer-template").content.firstElementChild.cloneNode(true);
      card.dataset.layer = i;
      list.appendChild(card);
      state.cards.push(card);
      setupCard(card, i);
    }
  }

  function hasReference(i) {
    return i < state.server.references.length && !state.server.autoLayered;
  }

  function setupCard(card, i) {
    const refs = state.server.references;
    const layer = state.spec && i < state.spec.noiseLayers.length ? state.spec.noiseLayers[i] : null;
    const title = hasReference(i) ? refs[i].name
      : state.server.autoLayered ? "band of " + refs[0].name : "no reference";
    $(".layer-title", card).textContent = "Layer " + i + " · " + title;
    const noise = $(".noise", card);
    for (const name of NOISES) noise.add(new Option(name, name));
    $(".ref-img", card).closest("figure").hidden = !hasReference(i) &&
      !(state.server.autoLayered && i === 0);
    if (state.server.autoLayered && i === 0) $(".ref-img", card).nextElementSibling.textContent = "reference DEM";
    $(".up", card).disabled = i === 0;
    $(".down", card).disabled = i === layerCount() - 1;
    $(".fit-one", card).disabled = refs.length === 0;
    // Before the spec has this layer, only a fit of all can make it.
    $(".fit-one", card).onclick = () => fit(layer && (state.server.autoLayered || refs.length === state.spec.noiseLayers.length) ? i : undefined);
    $(".remove", card).onclick = () => removeLayer(i);
    $(".up", card).onclick = () => moveLayer(i, i - 1);
    $(".down", card).onclick = () => moveLayer(i, i + 1);
    const editors = [".noise", ".freq", ".amp", ".shift", ".mask-min", ".mask-max"];
    if (!layer) {
      for (const sel of editors) $(sel, card).disabled = true;
      $(".curve", card).closest("figure").hidden = true;
      $(".hist", card).closest("figure").hidden = true;
      $(".syn-img", card).closest("figure").hidden = true;
      $(".mask-controls", card).hidden = true;
      $(".mask-text", card).textContent = "Not fitted yet: press Find noise.";
      return;
    }
    noise.value = layer.baseNoise.type;
    noise.onchange = () => edit(i, l => { l.baseNoise.type = noise.value; }, false);
    const base = layer.baseNoise.frequency;
    const freq = $(".freq", card);
    freq.value = 0;
    freq.oninput = () => edit(i, l => { l.baseNoise.frequency = base * Math.pow(2, +freq.value); }, true);
    freq.onchange = () => commit();
    bindNumber(card, ".amp", i, "ampScale", 1);
    bindNumber(card, ".shift", i, "preAmpShift", 0);
    const masked = layer.maskLayerIndex !== undefined && layer.maskLayerIndex >= 0 && !layer.maskCurve;
    $(".mask-controls", card).hidden = !masked;
    if (masked) {
      bindNumber(card, ".mask-min", i, "maskMinValue", 0);
      bindNumber(card, ".mask-max", i, "maskMaxValue", 1);
    }
    $(".mask-text", card).textContent = layer.maskCurve
      ? "Partial mask: a curve of layer " + layer.maskLayerIndex + "'s value (tinted blue where it fades)."
      : masked ? "Masked by layer " + layer.maskLayerIndex + " (tinted blue where it is absent)." : "Unmasked.";
    setupCurve(card, i);
    showControls(card, layer);
  }

  function bindNumber(card, sel, i, key, fallback) {
    const input = $(sel, card);
    const layer = state.spec.noiseLayers[i];
    input.value = layer[key] !== undefined ? layer[key] : fallback;
    input.oninput = () => edit(i, l => { l[key] = +input.value; }, true);
    input.onchange = () => commit();
  }

  function showControls(card, layer) {
    const f = layer.baseNoise.frequency;
    $(".freq-out", card).textContent = f.toPrecision(4) + " (λ " + (1 / f).toFixed(1) + ")";
    $(".amp-out", card).textContent = (+(layer.ampScale ?? 1)).toFixed(2);
    $(".shift-out", card).textContent = (+(layer.preAmpShift ?? 0)).toFixed(3);
    if (layer.maskMinValue !== undefined) {
      $(".mask-min-out", card).textContent = (+layer.maskMinValue).toFixed(3);
      $(".mask-max-out", card).textContent = (+layer.maskMaxValue).toFixed(3);
    }
  }

  // The redistribution curve: x = the noise's unit value u, y = the
  // layer's value; each control point's y can be dragged.
  function setupCurve(card, i) {
    const canvas = $(".curve", card);
    let dragging = -1, moved = false;
    const pts = () => state.spec.noiseLayers[i].rd.points;
    const range = () => {
      let lo = Infinity, hi = -Infinity;
      for (const p of pts()) { lo = Math.min(lo, p.y); hi = Math.max(hi, p.y); }
      if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
      const pad = (hi - lo) * 0.15;
      return [lo - pad, hi + pad];
    };
    let frozen = null; // the y range while dragging, so the plot holds still
    const toPixel = (p, r) => [8 + p.x * (canvas.width - 16),
      canvas.height - 8 - (p.y - r[0]) / (r[1] - r[0]) * (canvas.height - 16)];
    const pos = ev => {
      const b = canvas.getBoundingClientRect();
      return [(ev.clientX - b.left) * canvas.width / b.width, (ev.clientY - b.top) * canvas.height / b.height];
    };
    canvas.draw = () => drawCurve(canvas, pts(), frozen || range(), toPixel, dragging);
    // Where control point k is on screen (CSS pixels), for keyboardless tests.
    canvas.pointPosition = k => {
      const [px, py] = toPixel(pts()[k], frozen || range());
      const b = canvas.getBoundingClientRect();
      return { x: b.left + px * b.width / canvas.width, y: b.top + py * b.height / canvas.height };
    };
    canvas.onpointerdown = ev => {
      const [mx, my] = pos(ev);
      const r = range();
      let best = -1, bestD = 12 * 12;
      pts().forEach((p, k) => {
        const [px, py] = toPixel(p, r);
        const d = (px - mx) ** 2 + (py - my) ** 2;
        if (d < bestD) { bestD = d; best = k; }
      });
      if (best < 0) return;
      dragging = best;
      moved = false;
      frozen = r;
      canvas.setPointerCapture(ev.pointerId);
    };
    canvas.onpointermove = ev => {
      if (dragging < 0) return;
      const [, my] = pos(ev);
      const r = frozen;
      const y = r[0] + (canvas.height - 8 - my) / (canvas.height - 16) * (r[1] - r[0]);
      moved = true;
      edit(i, l => { l.rd.points[dragging].y = y; }, true);
      canvas.draw();
    };
    const end = () => {
      if (dragging < 0) return;
      dragging = -1;
      frozen = null;
      canvas.draw();
      if (moved) commit(); // a click without a move is no edit
    };
    canvas.onpointerup = end;
    canvas.onpointercancel = end;
    canvas.draw();
  }

  function drawCurve(canvas, points, r, toPixel, active) {
    const g = canvas.getContext("2d");
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.strokeStyle = "#e4e7ec";
    g.lineWidth = 1;
    for (let k = 0; k <= 4; k++) {
      const x = 8 + k / 4 * (canvas.width - 16), y = 8 + k / 4 * (canvas.height - 16);
      g.beginPath(); g.moveTo(x, 8); g.lineTo(x, canvas.height - 8); g.stroke();
      g.beginPath(); g.moveTo(8, y); g.lineTo(canvas.width - 8, y); g.stroke();
    }
    g.strokeStyle = "#2f6fb0";
    g.lineWidth = 2;
    g.beginPath();
    points.forEach((p, k) => {
      const [x, y] = toPixel(p, r);
      if (k === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
    points.forEach((p, k) => {
      const [x, y] = toPixel(p, r);
      g.fillStyle = k === active ? "#d9480f" : "#1d4f80";
      g.beginPath(); g.arc(x, y, k === active ? 5 : 3, 0, 2 * Math.PI); g.fill();
    });
    g.fillStyle = "#667085";
    g.font = "11px sans-serif";
    g.fillText("u →", canvas.width - 30, canvas.height - 12);
    g.fillText(r[1].toFixed(2), 10, 18);
    g.fillText(r[0].toFixed(2), 10, canvas.height - 12);
  }

  function drawHistograms(canvas, stats) {
    const g = canvas.getContext("2d");
    g.clearRect(0, 0, canvas.width, canvas.height);
    if (!stats) return;
    const series = [[stats.reference && stats.reference.histogram, "rgba(120,120,120,0.55)"],
      [stats.synthesis.histogram, "rgba(47,111,176,0.75)"]];
    let top = 0;
    for (const [h] of series) if (h) for (const v of h) top = Math.max(top, v);
    const w = canvas.width - 16, h = canvas.height - 40;
    for (const [hist, colour] of series) {
      if (!hist) continue;
      g.fillStyle = colour;
      const bw = w / hist.length;
      hist.forEach((v, b) => {
        const bh = top > 0 ? v / top * h : 0;
        g.fillRect(8 + b * bw + (colour.startsWith("rgba(47") ? bw * 0.35 : 0), 8 + h - bh, bw * 0.65, bh);
      });
    }
    g.fillStyle = "#344054";
    g.font = "12px sans-serif";
    g.fillText(stats.lo.toFixed(2), 8, canvas.height - 18);
    g.fillText(stats.hi.toFixed(2), canvas.width - 36, canvas.height - 18);
    const chi = stats.chi2 !== undefined ? "χ² " + stats.chi2.toFixed(5) : "no reference";
    g.fillText(chi, 8, canvas.height - 4);
  }

  function figures(i) {
    const l = state.spec.noiseLayers[i];
    const st = state.stats[i];
    const parts = [];
    if (st && st.chi2 !== undefined) parts.push("χ² " + st.chi2.toFixed(5));
    parts.push("f " + l.baseNoise.frequency.toPrecision(4));
    const e = state.estimates[i];
    if (e) {
      const show = v => (typeof v === "number" ? v.toPrecision(4) : "none");
      parts.push("estimates: peaks " + show(e.peaks) + ", spectrum " + show(e.spectrum) +
                 " (fit used " + e.method + ")");
    }
    if (l.maskLayerIndex !== undefined && l.maskLayerIndex >= 0 && !l.maskCurve)
      parts.push("mask [" + (+l.maskMinValue).toFixed(3) + ", " + (+l.maskMaxValue).toFixed(3) + "] of layer " + l.maskLayerIndex);
    return parts.join(" · ");
  }

  async function redrawLayer(i, withReference) {
    const card = state.cards[i];
    if (!card) return;
    const jobs = [];
    const win = { w: IMAGE, h: IMAGE, x: 0, y: 0, step: refStep() };
    if (withReference && (hasReference(i) || (state.server.autoLayered && i === 0))) {
      const q = state.server.autoLayered ? { kind: "combined", style: "hillshade", ...win }
        : { kind: "reference", layer: i, style: "height", ...win };
      jobs.push(loadImage($(".ref-img", card), q));
    }
    if (state.spec && i < state.spec.noiseLayers.length) {
      jobs.push(loadImage($(".syn-img", card), { kind: "layer", layer: i, mask: 1, style: "height", ...win }));
      jobs.push(api("GET", "/api/stats?layer=" + i).then(st => {
        state.stats[i] = st;
        drawHistograms($(".hist", card), st);
        $(".figures", card).textContent = figures(i);
      }));
    }
    await Promise.all(jobs);
  }

  // The reference's window fills the preview: one sample per reference pixel
  // for a 512-pixel reference.
  function refStep() {
    const r = state.server.references[0];
    return r ? Math.max(r.width, r.height) / IMAGE : 1;
  }

  async function redrawLayers() {
    await Promise.all(state.cards.map((_, i) => redrawLayer(i, true)));
  }

  // ---------------------------------------------------------------- edits

  // One live edit at a time reaches the server; edits made meanwhile are
  // folded into the next one, so a fast drag never queues up requests.
  let inFlight = false, pending = null;

  function edit(i, change, live) {
    change(state.spec.noiseLayers[i]);
    const card = state.cards[i];
    showControls(card, state.spec.noiseLayers[i]);
    pending = { i, live, t0: performance.now() };
    if (!inFlight) flush();
  }

  async function flush() {
    if (!pending) return;
    const job = pending;
    pending = null;
    inFlight = true;
    try {
      await api("PUT", "/api/spec" + (job.live ? "?live=1" : ""), JSON.stringify(state.spec), "application/json");
      const card = state.cards[job.i];
      await loadImage($(".syn-img", card), { kind: "layer", layer: job.i, mask: 1, style: "height", w: IMAGE, h: IMAGE, x: 0, y: 0, step: refStep() });
      latencies.push(performance.now() - job.t0);
      status("live preview " + latencies[latencies.length - 1].toFixed(0) + " ms");
    } catch (e) {
      status(e.message, true);
    }
    inFlight = false;
    if (pending) flush();
    else if (!job.live) await afterCommit();
  }

  // The end of a drag: the spec as it now is becomes one undo step.
  async function commit() {
    while (inFlight || pending) await new Promise(r => setTimeout(r, 10));
    try {
      await api("PUT", "/api/spec", JSON.stringify(state.spec), "application/json");
    } catch (e) {
      status(e.message, true);
    }
    await afterCommit();
  }

  async function afterCommit() {
    state.server = await api("GET", "/api/state");
    $("#undo").disabled = !state.server.canUndo;
    $("#redo").disabled = !state.server.canRedo;
    await Promise.all([...state.cards.map((_, i) => redrawLayer(i, false)), redrawResult()]);
    if (window.studio3d) window.studio3d.specChanged();
  }

  // ------------------------------------------------------- layer actions

  async function fit(layer) {
    const q = layer === undefined ? "" : "?layer=" + layer;
    await withStatus(layer === undefined ? "Find noise" : "Find noise for layer " + layer, async () => {
      const report = await api("POST", "/api/fit" + q);
      if (layer === undefined) state.estimates = [];
      report.layers.forEach((l, k) => {
        if (layer === undefined || k === layer)
          state.estimates[k] = { peaks: l.peaks, spectrum: l.spectrum, method: l.method };
      });
      await refresh();
      return report;
    });
  }

  // Remove spec layer i (and reference i): masks by it go, masks by a
  // higher layer follow its new index.
  async function removeLayer(i) {
    state.estimates = []; /* they were the fitted layers' */
    await withStatus("Remove layer " + i, async () => {
      if (i < state.server.references.length) await api("DELETE", "/api/references?index=" + i);
      if (state.spec && i < state.spec.noiseLayers.length) {
        const spec = structuredClone(state.spec);
        spec.noiseLayers.splice(i, 1);
        for (const l of spec.noiseLayers) {
          if (l.maskLayerIndex === undefined || l.maskLayerIndex < 0) continue;
          if (l.maskLayerIndex === i) {
            for (const k of ["maskLayerIndex", "maskMinValue", "maskMaxValue", "maskFalloff", "maskCurve"]) delete l[k];
          } else if (l.maskLayerIndex > i) l.maskLayerIndex--;
        }
        if (spec.noiseLayers.length > 0) await api("PUT", "/api/spec", JSON.stringify(spec), "application/json");
      }
      await refresh();
    });
  }

  // Swap layers i and j (adjacent); a mask must stay on a lower layer.
  async function moveLayer(i, j) {
    state.estimates = []; /* they were the fitted layers' */
    await withStatus("Move layer " + i, async () => {
      const [a, b] = i < j ? [i, j] : [j, i];
      if (state.spec && a < state.spec.noiseLayers.length && b >= state.spec.noiseLayers.length)
        throw new Error("reference " + b + " has no layer yet: Find noise first");
      if (state.spec && b < state.spec.noiseLayers.length) {
        // Edited on a copy: a refused spec leaves the page's as it was.
        const spec = structuredClone(state.spec);
        const layers = spec.noiseLayers;
        if (layers[b].maskLayerIndex === a) throw new Error("layer " + b + " is masked by layer " + a + ": it must stay above it");
        [layers[a], layers[b]] = [layers[b], layers[a]];
        for (const l of layers) {
          if (l.maskLayerIndex === a) l.maskLayerIndex = b;
          else if (l.maskLayerIndex === b) l.maskLayerIndex = a;
        }
        await api("PUT", "/api/spec", JSON.stringify(spec), "application/json");
      }
      if (i < state.server.references.length && j < state.server.references.length)
        await api("POST", "/api/references/move?from=" + i + "&to=" + j);
      await refresh();
    });
  }

  async function addLayer() {
    state.estimates = []; /* they were the fitted layers' */
    await withStatus("Add layer", async () => {
      const spec = structuredClone(state.spec);
      const top = spec.noiseLayers[spec.noiseLayers.length - 1];
      spec.noiseLayers.push({
        baseNoise: { type: "simplex", frequency: top.baseNoise.frequency * 2, seed: (Math.random() * 2 ** 32) >>> 0, offset: [Math.random() * 1000, Math.random() * 1000, Math.random() * 1000] },
        rd: { interpolation: "monotone-cubic", points: [{ x: 0, y: 0 }, { x: 0.5, y: 0.5 }, { x: 1, y: 1 }] },
        preAmpShift: -0.5, ampScale: 0.1,
      });
      await api("PUT", "/api/spec", JSON.stringify(spec), "application/json");
      await refresh();
    });
  }

  async function upload(files) {
    const list = [...files];
    if (list.length === 0) return;
    await withStatus("Load " + list.map(f => f.name).join(", "), async () => {
      for (const f of list) {
        const name = f.name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "") || "reference";
        await api("POST", "/api/references?name=" + encodeURIComponent(name), f, "application/octet-stream");
      }
      await refresh();
    });
  }

  // ---------------------------------------------------------------- result

  async function redrawResult() {
    const style = $("#result-style").value;
    const win = { w: IMAGE, h: IMAGE, x: 0, y: 0, step: refStep(), style };
    const jobs = [];
    if (state.server.references.length > 0)
      jobs.push(loadImage($("#result-reference"), { kind: "combined", ...win }).catch(() => {}));
    if (state.spec) jobs.push(loadImage($("#result-synthesis"), { kind: "synthesis", ...win }));
    jobs.push(endless.draw());
    await Promise.all(jobs);
  }

  // The endless view: any window of the synthesis. The last image stays on
  // screen, moved and scaled, until the new one arrives.
  const endless = (() => {
    const canvas = $("#endless");
    const view = { x: -256, y: -64, step: 1 };
    let image = null, drawn = null, want = 0, drag = null;
    async function draw() {
      if (!state.spec) return;
      const ticket = ++want;
      const q = { kind: "synthesis", style: $("#result-style").value, x: view.x, y: view.y,
        step: view.step, w: canvas.width, h: canvas.height };
      try {
        const blob = await api("GET", "/api/image?" + new URLSearchParams(q));
        const bitmap = await createImageBitmap(blob);
        if (ticket !== want) return;
        image = bitmap;
        drawn = { ...view };
        paint();
      } catch (e) {
        status(e.message, true);
      }
    }
    function paint() {
      const g = canvas.getContext("2d");
      g.fillStyle = "#eef1f5";
      g.fillRect(0, 0, canvas.width, canvas.height);
      if (image) {
        const s = drawn.step / view.step;
        g.drawImage(image, (drawn.x - view.x) / view.step, (drawn.y - view.y) / view.step, canvas.width * s, canvas.height * s);
      }
      $("#endless-info").textContent = "x " + view.x.toFixed(0) + ", y " + view.y.toFixed(0) + ", " + view.step.toPrecision(3) + " units/px";
    }
    const scale = () => canvas.width / canvas.getBoundingClientRect().width;
    canvas.onpointerdown = ev => { drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y }; canvas.setPointerCapture(ev.pointerId); };
    canvas.onpointermove = ev => {
      if (!drag) return;
      view.x = drag.vx - (ev.clientX - drag.x) * scale() * view.step;
      view.y = drag.vy - (ev.clientY - drag.y) * scale() * view.step;
      paint();
      draw();
    };
    canvas.onpointerup = () => { drag = null; };
    canvas.onwheel = ev => {
      ev.preventDefault();
      const b = canvas.getBoundingClientRect();
      const px = (ev.clientX - b.left) * scale(), py = (ev.clientY - b.top) * scale();
      const wx = view.x + px * view.step, wy = view.y + py * view.step;
      view.step = Math.min(1000, Math.max(0.01, view.step * Math.exp(ev.deltaY * 0.0015)));
      view.x = wx - px * view.step;
      view.y = wy - py * view.step;
      paint();
      draw();
    };
    // whether the picture on screen is the current view's own (not the
    // last one moved and scaled while the new one is on its way)
    const current = () => drawn !== null && drawn.x === view.x && drawn.y === view.y &&
      drawn.step === view.step;
    return { draw, view, current };
  })();

  // ------------------------------------------------------------ wiring

  function showTab(name) {
    for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === name);
    for (const p of document.querySelectorAll(".panel")) p.classList.toggle("active", p.id === name);
    if (name === "view3d" && window.studio3d) window.studio3d.show();
  }

  function init() {
    for (const b of document.querySelectorAll(".tab")) b.onclick = () => showTab(b.dataset.tab);
    $("#file-input").onchange = ev => { upload(ev.target.files); ev.target.value = ""; };
    $("#fit-all").onclick = () => fit();
    $("#add-layer").onclick = addLayer;
    $("#undo").onclick = () => withStatus("Undo", async () => { await api("POST", "/api/undo"); await refresh(); });
    $("#redo").onclick = () => withStatus("Redo", async () => { await api("POST", "/api/redo"); await refresh(); });
    $("#save").onclick = () => withStatus("Save", async () => {
      if (window.studio3d) await window.studio3d.putSettings();
      const r = await api("POST", "/api/save");
      return "Saved " + r.saved.join(", ") + " in " + state.server.project;
    });
    $("#export-shader").onclick = () => withStatus("Export shader", async () => {
      const lang = $("#shader-lang").value;
      const r = await api("POST", "/api/shader?lang=" + encodeURIComponent(lang));
      return "Wrote " + r.saved + " in " + state.server.project;
    });
    $("#reload").onclick = () => withStatus("Reload", async () => { await api("POST", "/api/load"); await refresh(); });
    $("#result-style").onchange = () => redrawResult();
    document.addEventListener("keydown", ev => {
      if (!(ev.ctrlKey || ev.metaKey) || ev.target.tagName === "INPUT") return;
      if (ev.key.toLowerCase() === "z") { ev.preventDefault(); (ev.shiftKey ? $("#redo") : $("#undo")).click(); }
      if (ev.key.toLowerCase() === "y") { ev.preventDefault(); $("#redo").click(); }
    });
    document.addEventListener("dragover", ev => { ev.preventDefault(); document.body.classList.add("dropping"); });
    document.addEventListener("dragleave", () => document.body.classList.remove("dropping"));
    document.addEventListener("drop", ev => {
      ev.preventDefault();
      document.body.classList.remove("dropping");
      upload(ev.dataTransfer.files);
    });
    withStatus("Open project", refresh).then(() => { document.body.dataset.ready = "1"; });
  }

  init();
  return { api, state, latencies, refresh, showTab, withStatus, endless };
})();
window.studio = studio;
