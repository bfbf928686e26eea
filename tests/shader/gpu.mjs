// Runs an emitted `terrafit shader` GLSL file in WebGL2 and an emitted WGSL
// file in WebGPU (headless Chromium with SwiftShader, through playwright-core)
// on a list of points, and writes back what the GPU computed:
//   node tests/shader/gpu.mjs --glsl FILE.glsl --wgsl FILE.wgsl --name NAME \
//        --points POINTS.txt --out DIR [--bench N] [--bench-origin X,Y]
//        [--network WORDS.bin,SEGMENTS.bin]
//   node tests/shader/gpu.mjs --jobs JOBS.txt [--name NAME] [--bench N] ...
// (many runs in one browser: a line of JOBS.txt each, see readJobs).
// POINTS.txt: one point a line, "cx cy fx fy" (integer cell within +-2^24,
// float32 fraction); '#' lines are comments. DIR/glsl.txt and DIR/wgsl.txt
// get one line a point, "h dhdx dhdy" (h from NAME_at, the slopes from
// NAME_gradient_at), each float32 printed so that it reads back exactly;
// DIR/gpu.json the renderer, the adapter, timings and --bench's figures
// (median samples a second of an N x N grid of NAME_at; a figure, not a
// check). Either --glsl or --wgsl may be left out. A shader that does not
// compile prints its full log; any run that fails makes the exit status 1,
// and the other runs still go on. The page half is gpu-page.mjs.
// playwright-core is found under $TF_SHADER_TEST_MODULES (a node_modules
// folder; selftest.sh installs tests/shader/package.json outside the tree).
// CHROMIUM overrides /usr/bin/chromium; TF_SHADER_TEST_TIMEOUT (seconds,
// default 900) bounds each page run.
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const usage = 'usage: node gpu.mjs [--glsl FILE.glsl] [--wgsl FILE.wgsl] [--name NAME] --points POINTS.txt --out DIR [--bench N] [--bench-origin X,Y] [--network WORDS.bin,SEGMENTS.bin]\n       node gpu.mjs --jobs JOBS.txt [--name NAME] [--bench N] [--bench-origin X,Y]';

function die(message, code = 2) {
  console.error(`gpu.mjs: ${message}`);
  process.exit(code);
}

// ------------------------------------------------------------ arguments
const opt = { name: 'terrain', bench: 0, benchOrigin: [0, 0] };
{
  const argv = process.argv.slice(2);
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k], v = () => (k + 1 < argv.length ? argv[++k] : die(`${a} needs a value\n${usage}`));
    if (a === '--glsl') opt.glsl = v();
    else if (a === '--wgsl') opt.wgsl = v();
    else if (a === '--name') opt.name = v();
    else if (a === '--points') opt.points = v();
    else if (a === '--out') opt.out = v();
    else if (a === '--jobs') opt.jobs = v();
    else if (a === '--bench') opt.bench = Number(v());
    else if (a === '--bench-origin') opt.benchOrigin = v().split(',').map(Number);
    // a drainage spec's network table (tests/shader_compare network): the
    // words as little-endian uint32, the segments as float32, 8 a segment
    else if (a === '--network') opt.network = v();
    else if (a === '-h' || a === '--help') { console.log(usage); process.exit(0); }
    else die(`unknown argument ${a}\n${usage}`);
  }
  const single = opt.points || opt.out || opt.glsl || opt.wgsl || opt.network;
  if (opt.jobs ? single : !opt.points || !opt.out || (!opt.glsl && !opt.wgsl)) die(usage);
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(opt.name) || opt.name.includes('__')) die(`bad --name ${opt.name}`);
  if (!Number.isInteger(opt.bench) || opt.bench < 0 || opt.bench > 8192) die('--bench N: N in 0..8192');
  if (opt.benchOrigin.length !== 2 || !opt.benchOrigin.every((x) => Number.isInteger(x) && Math.abs(x) <= 2 ** 24)) {
    die('--bench-origin X,Y: integers within +-2^24');
  }
}

// --jobs FILE: one run a line, its fields separated by tabs (paths may hold
// spaces): GLSL WGSL POINTS OUT NETWORK, "-" for a field left out. One
// browser runs them all, a page load each: starting Chromium costs more
// than most runs.
function readJobs(path) {
  const jobs = [];
  readFileSync(path, 'utf8').split('\n').forEach((line, k) => {
    if (line.trim() === '' || line[0] === '#') return;
    const f = line.split('\t').map((x) => (x === '-' ? undefined : x));
    if (f.length !== 5 || !f[2] || !f[3] || (!f[0] && !f[1])) {
      die(`${path}:${k + 1}: expected GLSL WGSL POINTS OUT NETWORK (tab-separated, "-" for none, a shader at least)`);
    }
    jobs.push({ glsl: f[0], wgsl: f[1], points: f[2], out: f[3], network: f[4] });
  });
  if (jobs.length === 0) die(`${path}: no jobs`);
  return jobs;
}
const jobs = opt.jobs ? readJobs(opt.jobs)
  : [{ glsl: opt.glsl, wgsl: opt.wgsl, points: opt.points, out: opt.out, network: opt.network }];

// ------------------------------------------------------------ points
// Packed as the shaders read them: 4 x 32 bits a point, cx cy (int32) and
// the bits of fx fy (float32). A bad file throws (the run fails).
function readPoints(path) {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const buf = new ArrayBuffer(lines.length * 16), i32 = new Int32Array(buf), f32 = new Float32Array(buf);
  let n = 0;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k].trim();
    if (line === '' || line[0] === '#') continue;
    const f = line.split(/\s+/);
    const bad = (why) => { throw new Error(`${path}:${k + 1}: ${why}: "${line}"`); };
    if (f.length !== 4) bad('expected "cx cy fx fy"');
    const cx = Number(f[0]), cy = Number(f[1]), fx = Number(f[2]), fy = Number(f[3]);
    if (!/^[-+]?\d+$/.test(f[0]) || !/^[-+]?\d+$/.test(f[1]) || Math.abs(cx) > 2 ** 24 || Math.abs(cy) > 2 ** 24) {
      bad('cx and cy must be integers within +-2^24');
    }
    if (!Number.isFinite(fx) || !Number.isFinite(fy)) bad('fx and fy must be finite numbers');
    if (Math.fround(fx) !== fx || Math.fround(fy) !== fy) bad('fx and fy must be exactly representable in float32');
    i32[4 * n] = cx; i32[4 * n + 1] = cy; f32[4 * n + 2] = fx; f32[4 * n + 3] = fy;
    n++;
  }
  if (n === 0) throw new Error(`${path}: no points`);
  return { count: n, bytes: Buffer.from(buf, 0, n * 16) };
}

// One job's inputs, read when its turn comes.
function loadJob(job) {
  let network = null;
  if (job.network) {
    const files = job.network.split(',');
    if (files.length !== 2) throw new Error(`--network WORDS.bin,SEGMENTS.bin: ${job.network}`);
    const words = readFileSync(files[0]), segments = readFileSync(files[1]);
    if (words.length === 0 || words.length % 4 !== 0 || segments.length % 32 !== 0) {
      throw new Error(`${job.network}: not a network's words (4 bytes each) and segments (32 bytes each)`);
    }
    network = { words, segments };
  }
  const points = readPoints(job.points);
  const glslSource = job.glsl ? readFileSync(job.glsl, 'utf8') : null;
  const wgslSource = job.wgsl ? readFileSync(job.wgsl, 'utf8') : null;
  mkdirSync(job.out, { recursive: true });
  const config = {
    name: opt.name, count: points.count, glsl: !!job.glsl, wgsl: !!job.wgsl, network: !!network,
    bench: opt.bench, benchReps: Number(process.env.TF_SHADER_BENCH_REPS || 5), benchOrigin: opt.benchOrigin,
    // rows of 1024 points a WebGL2 draw, points a WebGPU submit
    glBandRows: Number(process.env.TF_SHADER_GL_BAND_ROWS || 16),
    gpuChunk: Number(process.env.TF_SHADER_GPU_CHUNK || 16384),
  };
  return { ...job, points, network, glslSource, wgslSource, config };
}

// ------------------------------------------------------------ server
// A fixed set of paths on 127.0.0.1 only, for the job being run; nothing
// else is served or kept.
const page = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>terrafit shader harness</title></head><body>
<script type="module" src="/gpu-page.mjs"></script></body></html>`;
let current = null, results = {};
const fixed = {
  '/': ['text/html', () => page],
  '/gpu-page.mjs': ['text/javascript', () => readFileSync(join(here, 'gpu-page.mjs'))],
  '/config.json': ['application/json', () => JSON.stringify(current.config)],
  '/points.bin': ['application/octet-stream', () => current.points.bytes],
  '/shader.glsl': ['text/plain', () => current.glslSource ?? ''],
  '/shader.wgsl': ['text/plain', () => current.wgslSource ?? ''],
  '/network-words.bin': ['application/octet-stream', () => current.network?.words ?? Buffer.alloc(0)],
  '/network-segments.bin': ['application/octet-stream', () => current.network?.segments ?? Buffer.alloc(0)],
};
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://127.0.0.1').pathname;
  if (req.method === 'POST' && (path === '/result/webgl2' || path === '/result/webgpu')) {
    const parts = [], into = results;
    req.on('data', (d) => parts.push(d));
    req.on('end', () => {
      into[path.slice(8)] = Buffer.concat(parts);
      res.writeHead(204);
      res.end();
    });
    return;
  }
  const f = req.method === 'GET' && current && Object.hasOwn(fixed, path) ? fixed[path] : null;
  if (!f) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': f[0], 'Cache-Control': 'no-store' });
  res.end(f[1]());
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

// ------------------------------------------------------------ browser
const modules = process.env.TF_SHADER_TEST_MODULES || join(here, 'node_modules');
let chromium;
try {
  chromium = createRequire(join(modules, 'noop.js'))('playwright-core').chromium;
} catch (e) {
  server.close();
  die(`playwright-core not found under ${modules} (set TF_SHADER_TEST_MODULES): ${e.message}`);
}

// Formats a float32 so that it reads back to the same float32 (the shortest
// decimal of the exact value; -0 keeps its sign).
const fmt = (v) => (Object.is(v, -0) ? '-0' : String(v));

function writeResults(file, buf, count) {
  const f = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  if (f.length !== count * 4) throw new Error(`${file}: ${f.length / 4} results for ${count} points`);
  const chunks = [];
  let differs = 0;
  for (let i = 0; i < count; i++) {
    chunks.push(`${fmt(f[4 * i])} ${fmt(f[4 * i + 1])} ${fmt(f[4 * i + 2])}\n`);
    // NAME_gradient_at's own height (in the 4th lane) against NAME_at's
    if (!Object.is(f[4 * i], f[4 * i + 3])) differs++;
  }
  writeFileSync(file, chunks.join(''));
  return differs;
}

// One job in a fresh page load: its results and gpu.json in its OUT folder
// (gpu.json is written last, only when the run worked). Returns 0 or 1.
async function runJob(tab, job, timeout) {
  const label = jobs.length > 1 ? `${job.out}: ` : '';
  try {
    return await tryJob(tab, job, timeout, label);
  } catch (e) {
    console.error(`gpu.mjs: ${label}${e.message}`);
    return 1;
  }
}

async function tryJob(tab, job, timeout, label) {
  current = loadJob(job);
  results = {};
  const started = Date.now();
  await tab.goto(`http://127.0.0.1:${port}/`);
  await tab.waitForFunction(() => window.harnessDone || window.harnessError, null, { timeout, polling: 100 });
  const error = await tab.evaluate(() => window.harnessError);
  if (error) {
    console.error(`gpu.mjs: ${label}${error.api}: ${error.message}`);
    if (error.log) {
      if (error.api === 'webgl2' && error.kind === 'compile') {
        console.error(`(info log: "1:LINE" is a line of ${job.glsl}, "0:LINE" a line of the harness's main)`);
      } else if (error.api === 'webgpu' && error.kind === 'compile') {
        console.error(`(line numbers up to ${current.wgslSource.split('\n').length} are lines of ${job.wgsl}; later ones the harness's entry point)`);
      }
      console.error(error.log);
    }
    return 1;
  }
  const done = await tab.evaluate(() => window.harnessDone);
  const count = current.points.count, report = { points: count };
  if (job.glsl) {
    if (!results.webgl2) throw new Error('the page sent no WebGL2 results');
    const d = writeResults(join(job.out, 'glsl.txt'), results.webgl2, count);
    report.webgl2 = { ...done.webgl2, gradient_height_differs: d };
  }
  if (job.wgsl) {
    if (!results.webgpu) throw new Error('the page sent no WebGPU results');
    const d = writeResults(join(job.out, 'wgsl.txt'), results.webgpu, count);
    report.webgpu = { ...done.webgpu, gradient_height_differs: d };
  }
  if (done.bench) report.bench = done.bench;
  report.page_s = (Date.now() - started) / 1000;
  writeFileSync(join(job.out, 'gpu.json'), JSON.stringify(report, null, 2) + '\n');
  for (const [api, what] of [['webgl2', 'renderer'], ['webgpu', 'adapter']]) {
    const r = report[api], b = done.bench?.[api];
    if (r) console.log(`${label}${api}: ${r[what]}; compiled in ${r.compile_s.toFixed(3)} s, ${count} points in ${r.points_s.toFixed(3)} s`);
    if (b) console.log(`${label}bench ${api}: ${b.n}x${b.n} NAME_at: median ${b.median_s.toFixed(4)} s, ${(b.samples_per_s / 1e6).toFixed(3)} M samples/s`);
  }
  console.log(`${label}the page took ${report.page_s.toFixed(3)} s`);
  return 0;
}

const profile = mkdtempSync(join(tmpdir(), 'tf-shader-chromium-'));
const timeout = 1000 * Number(process.env.TF_SHADER_TEST_TIMEOUT || 900);
let status = 0, context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    timeout: 60000,
    args: ['--no-sandbox', '--no-first-run', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-features=Vulkan'],
  });
  const tab = context.pages()[0] || (await context.newPage());
  tab.on('console', (m) => console.error(`page: ${m.text()}`));
  tab.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  for (const job of jobs) status |= await runJob(tab, job, timeout);
} catch (e) {
  console.error(`gpu.mjs: ${e.message}`);
  status = 1;
} finally {
  if (context) await context.close().catch(() => {});
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(status);
