// terrafit studio in a real browser (tests/studio_browser.sh runs it):
// headless Chromium through playwright-core opens the studio, loads the
// layered samples, fits, drags a curve point (measuring the time from each
// pointer move to the new 512x512 layer image), checks the preview changed
// and the saved spec is the CLI's fit but for the edit, switches to the 3D
// view and checks it drew, saves and reloads. TAP lines on stdout.
//   node browser.mjs URL PROJECT_DIR CLI_SPEC SAMPLES_DIR [SCREENSHOT_DIR]
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";

const modules = process.env.TF_STUDIO_TEST_MODULES;
const require = createRequire(join(modules, "noop.js"));
const { chromium } = require("playwright-core");
const [url, project, cliSpecPath, samples, shots] = process.argv.slice(2);

let number = 0, failures = 0;
function ok(name, cond, detail) {
  number++;
  if (cond) console.log(`ok ${number} - ${name}`);
  else {
    failures++;
    console.log(`not ok ${number} - ${name}`);
    if (detail !== undefined) for (const l of String(detail).split("\n").slice(0, 8)) console.log(`#   ${l}`);
  }
}

// the browser's profile in a folder of its own, removed at the end
const profile = mkdtempSync(join(tmpdir(), "tf-studio-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
const page = context.pages()[0] || (await context.newPage());
const pageErrors = [];
page.on("pageerror", e => pageErrors.push(e.message));
page.on("console", m => { if (m.type() === "error") pageErrors.push(m.text()); });
const shot = async (name, clip) => {
  if (!shots) return;
  await page.screenshot({ path: join(shots, name), clip });
};
const statusText = () => page.locator("#status").textContent();
// A digest of an <img>'s or <canvas>'s pixels, to tell whether it changed.
const digest = sel => page.evaluate(sel => {
  const el = document.querySelector(sel);
  const c = document.createElement("canvas");
  c.width = el.naturalWidth || el.width;
  c.height = el.naturalHeight || el.height;
  const g = c.getContext("2d");
  g.drawImage(el, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let h = 0, sum = 0, sum2 = 0;
  for (let k = 0; k < d.length; k += 4) {
    h = (h * 31 + d[k] + 7 * d[k + 1] + 13 * d[k + 2]) >>> 0;
    sum += d[k]; sum2 += d[k] * d[k];
  }
  const n = d.length / 4;
  return { hash: h, sd: Math.sqrt(Math.max(0, sum2 / n - (sum / n) ** 2)), w: c.width, h: c.height };
}, sel);

try {
  await page.goto(url);
  await page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  ok("the page opens and reads the token from its URL", !page.url().includes("token="), page.url());
  ok("an empty project invites to add references", await page.locator("#empty").isVisible());

  await page.setInputFiles("#file-input", [join(samples, "layered", "layer0.png")]);
  await page.waitForFunction(() => window.studio.state.server && window.studio.state.server.references.length === 1, null, { timeout: 30000 });
  ok("a reference loaded through the file picker", (await page.locator(".layer").count()) === 1);
  // The second one dropped on the page, as a file dragged from a file manager.
  const bytes = readFileSync(join(samples, "layered", "layer1.png")).toString("base64");
  await page.evaluate(b64 => {
    const data = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([data], "layer1.png", { type: "image/png" }));
    document.querySelector("main").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, bytes);
  await page.waitForFunction(() => window.studio.state.server.references.length === 2, null, { timeout: 30000 });
  ok("a reference dropped on the page", (await page.locator(".layer").count()) === 2);

  await page.click("#fit-all");
  await page.waitForFunction(() => window.studio.state.spec && document.querySelectorAll(".layer .hist").length === 2 &&
    window.studio.state.stats.filter(Boolean).length === 2 && document.body.classList.contains("busy") === false, null, { timeout: 60000 });
  ok("Find noise fits both layers", (await statusText()).includes("done"), await statusText());
  const stats = await page.evaluate(() => window.studio.state.stats.map(s => s.chi2));
  ok("each layer shows its chi-square", stats.every(c => typeof c === "number" && c < 0.05), stats);
  const figures = await page.locator(".layer .figures").first().textContent();
  ok("each layer shows its figures (chi2, frequency, both estimates)",
     figures.includes("χ²") && figures.includes("f ") && figures.includes("estimates: peaks ") &&
     figures.includes("spectrum "), figures);
  ok("layer 1 shows its mask range", (await page.locator(".layer .figures").nth(1).textContent()).includes("mask ["));
  await page.waitForTimeout(300);
  await shot("studio-layers.png", { x: 0, y: 0, width: 1400, height: 770 });

  // The saved spec right after the fit is the CLI's, byte for byte.
  const fitted = await page.evaluate(() => window.studio.api("GET", "/api/spec").then(s => JSON.stringify(s)));
  const cliText = readFileSync(cliSpecPath, "utf8");
  ok("the fitted spec is terrafit fit's", JSON.stringify(JSON.parse(cliText)) === fitted);

  // Drag control point 40 of layer 0's curve upwards, step by step.
  const before = await digest(".layer:nth-child(1) .syn-img");
  const point = 40;
  const yBefore = JSON.parse(cliText).noiseLayers[0].rd.points[point].y;
  const p = await page.evaluate(k => document.querySelector(".layer .curve").pointPosition(k), point);
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  const steps = 12;
  for (let k = 1; k <= steps; k++) {
    const seen = await page.evaluate(() => window.studio.latencies.length);
    await page.mouse.move(p.x, p.y - 3 * k);
    await page.waitForFunction(n => window.studio.latencies.length > n, seen, { timeout: 10000 });
  }
  await page.mouse.up();
  await page.waitForFunction(() => window.studio.state.server.canUndo && !document.body.classList.contains("busy"), null, { timeout: 10000 });
  await page.waitForTimeout(500);
  const latencies = await page.evaluate(() => window.studio.latencies.slice());
  const sorted = [...latencies].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)], worst = sorted[sorted.length - 1];
  console.log(`# live update, pointer move to new 512x512 layer image: median ${median.toFixed(1)} ms, ` +
    `max ${worst.toFixed(1)} ms over ${latencies.length} moves`);
  // Speed is a measurement, not a pass/fail on a shared machine: the
  // bound applies only when asked for (TF_STUDIO_MAX_LATENCY_MS).
  ok(`every move gave a new preview (${latencies.length} of ${steps})`, latencies.length >= steps,
     latencies);
  if (process.env.TF_STUDIO_MAX_LATENCY_MS) {
    const limit = Number(process.env.TF_STUDIO_MAX_LATENCY_MS);
    ok(`live update within ${limit} ms (median ${median.toFixed(0)} ms)`, median <= limit, sorted);
  }
  const after = await digest(".layer:nth-child(1) .syn-img");
  ok("the layer preview changed while dragging", after.hash !== before.hash && after.w === 512, [before.hash, after.hash]);

  await page.click("#save");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Saved"), null, { timeout: 10000 });
  const saved = JSON.parse(readFileSync(join(project, "terrain.json"), "utf8"));
  const cli = JSON.parse(cliText);
  const yAfter = saved.noiseLayers[0].rd.points[point].y;
  ok("the saved spec has the dragged point higher", yAfter > yBefore, [yBefore, yAfter]);
  saved.noiseLayers[0].rd.points[point].y = yBefore;
  ok("and is otherwise the CLI's fit", JSON.stringify(saved) === JSON.stringify(cli));

  // Export shader: the spec as WGSL in the project folder.
  await page.selectOption("#shader-lang", "wgsl");
  await page.click("#export-shader");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Wrote terrain.wgsl"), null, { timeout: 10000 });
  let wgsl = "";
  try { wgsl = readFileSync(join(project, "terrain.wgsl"), "utf8"); } catch { /* checked below */ }
  ok("Export shader writes terrain.wgsl with the terrain's functions",
     wgsl.includes("fn terrain_gradient_at(cell: vec2i, frac: vec2f) -> vec3f {"), wgsl.slice(0, 200));

  // Undo gives back the fitted spec exactly; redo the edit.
  await page.click("#undo");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Undo: done"), null, { timeout: 10000 });
  const undone = await page.evaluate(() => fetch("/api/spec", { headers: { "X-Studio-Token": sessionStorage.getItem("terrafit-studio-token") } }).then(r => r.text()));
  ok("Undo returns the spec to the fit, byte for byte", undone === cliText);
  await page.click("#redo");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Redo: done"), null, { timeout: 10000 });

  // Result: reference and synthesis side by side, and the endless view.
  await page.click("button[data-tab='result']");
  // both pictures decoded (a slow, sanitized server sends them seconds apart)
  await page.waitForFunction(() => ["#result-reference", "#result-synthesis"].every(sel => {
    const el = document.querySelector(sel);
    return el && el.complete && el.naturalWidth > 0;
  }), null, { timeout: 60000 });
  const resultRef = await digest("#result-reference"), resultSyn = await digest("#result-synthesis");
  ok("the result shows the combined reference and the synthesis", resultRef.sd > 5 && resultSyn.sd > 5, [resultRef.sd, resultSyn.sd]);
  const endlessBefore = await digest("#endless");
  const box = await page.locator("#endless").boundingBox();
  await page.mouse.move(box.x + 400, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + 200, box.y + 150, { steps: 5 });
  await page.mouse.up();
  await page.mouse.wheel(0, 400);
  // the new window's own picture, drawn from the server's (a fixed delay
  // would race a slow, sanitized server)
  let endlessArrived = true;
  await page.waitForFunction(() => window.studio.endless.view.step > 1 && window.studio.endless.current(),
    null, { timeout: 60000 }).catch(() => { endlessArrived = false; });
  const endlessAfter = await digest("#endless");
  const view = await page.evaluate(() => window.studio.endless.view);
  ok("the endless view pans and zooms", endlessArrived && endlessAfter.hash !== endlessBefore.hash && view.step > 1 && endlessAfter.sd > 5, view);
  await shot("studio-result.png", { x: 0, y: 0, width: 1400, height: 660 });
  const hillshade = await digest("#result-synthesis");
  const hillshadeUrl = await page.evaluate(() => document.querySelector("#result-synthesis").dataset.url);
  await page.selectOption("#result-style", "color");
  // the new picture has arrived when the image holds another URL, decoded
  // (a fixed delay loses the race on a slow, sanitized server)
  await page.waitForFunction(before => {
    const el = document.querySelector("#result-synthesis");
    return el.complete && el.naturalWidth > 0 && el.dataset.url && el.dataset.url !== before;
  }, hillshadeUrl, { timeout: 60000 });
  ok("the result's style can be switched", (await digest("#result-synthesis")).hash !== hillshade.hash);

  // 3D.
  const has3d = await page.evaluate(() => window.studio.state.server.three);
  if (has3d) {
    await page.click("button[data-tab='view3d']");
    await page.waitForFunction(() => document.querySelector("#canvas3d").dataset.rendered, null, { timeout: 60000 });
    await page.waitForTimeout(500);
    const gl = await digest("#canvas3d");
    ok("the 3D view rendered the terrain (a non-blank canvas)", gl.sd > 8, gl);
    const before3d = gl.hash;
    const renderedAt = await page.evaluate(() => document.querySelector("#canvas3d").dataset.rendered);
    await page.locator("#render-settings input[type=range]").nth(2).fill("0.05"); // height
    await page.locator("#render-settings input[type=range]").nth(2).dispatchEvent("change");
    // the height rebuilds the mesh from the server: wait for that render, not
    // a fixed delay (a sanitized server takes seconds to answer)
    await page.waitForFunction(before => document.querySelector("#canvas3d").dataset.rendered !== before,
      renderedAt, { timeout: 60000 });
    ok("the 3D view follows its settings", (await digest("#canvas3d")).hash !== before3d);
    await shot("studio-3d.png", { x: 0, y: 0, width: 1400, height: 800 });
  } else {
    ok("the 3D view rendered # SKIP three.js not installed", true);
    ok("the 3D view follows its settings # SKIP three.js not installed", true);
  }

  // Save (render settings too) and open the page again; then Reload from disk.
  await page.click("#save");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Saved"), null, { timeout: 10000 });
  const savedText = readFileSync(join(project, "terrain.json"), "utf8");
  let renderJson = null;
  try { renderJson = JSON.parse(readFileSync(join(project, "render.json"), "utf8")); } catch { /* none */ }
  ok("Save writes the render settings to render.json", !has3d || (renderJson && Math.abs(renderJson.verticalScale - 0.05) < 1e-9), renderJson && renderJson.verticalScale);
  await page.reload();
  await page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  ok("the page reloads with the token kept for the tab", (await page.locator(".layer").count()) === 2);
  await page.click("#reload");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Reload: done"), null, { timeout: 30000 });
  const reloaded = await page.evaluate(() => fetch("/api/spec", { headers: { "X-Studio-Token": sessionStorage.getItem("terrafit-studio-token") } }).then(r => r.text()));
  ok("Reload reads the saved project back, byte for byte", reloaded === savedText);

  // Layers: add one, move it, refuse a move that would put a mask above
  // its layer, remove it.
  const idle = () => page.waitForFunction(() => !document.body.classList.contains("busy") &&
    !document.querySelector("#status").textContent.endsWith("…"), null, { timeout: 30000 });
  await page.click("#add-layer");
  await page.waitForFunction(() => document.querySelectorAll(".layer").length === 3, null, { timeout: 30000 });
  await idle();
  ok("Add layer adds a noise layer", (await page.evaluate(() => window.studio.state.spec.noiseLayers.length)) === 3);
  await page.locator(".layer .down").nth(1).click(); // layer 1 <-> layer 2
  await idle();
  const masks = await page.evaluate(() => window.studio.state.spec.noiseLayers.map(l => l.maskLayerIndex ?? -1));
  ok("a layer moves, and masks follow it", JSON.stringify(masks) === "[-1,-1,0]", masks);
  await page.locator(".layer .up").nth(2).click(); // back again
  await idle();
  await page.locator(".layer .down").first().click(); // layer 0 above the layer it masks
  await idle();
  ok("a move that would put a mask above its layer is refused with a message",
    (await statusText()).includes("must stay above") && (await page.evaluate(() => window.studio.state.spec.noiseLayers[1].maskLayerIndex)) === 0,
    await statusText());
  await page.locator(".layer .remove").nth(2).click();
  await page.waitForFunction(() => document.querySelectorAll(".layer").length === 2, null, { timeout: 30000 });
  await idle();
  const back = await page.evaluate(() => fetch("/api/spec", { headers: { "X-Studio-Token": sessionStorage.getItem("terrafit-studio-token") } }).then(r => r.text()));
  ok("Remove takes the added layer away again", back === savedText);
  ok("no error on the page", pageErrors.length === 0, pageErrors.join("\n"));
} catch (e) {
  ok("the browser session ran to the end", false, e.stack || e);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`1..${number}`);
process.exit(failures ? 1 : 0);
