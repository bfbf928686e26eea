// Serves index.html, example.js, Debian's three.js r111 and an emitted GLSL
// file on 127.0.0.1, opens them in headless Chromium (WebGL2 on SwiftShader)
// through playwright-core, waits for the frame and saves a PNG:
//   node screenshot.mjs SHADER.glsl OUT.png [NAME]
// Query parameters of the page from the environment: TF_SHOT_WIDTH,
// TF_SHOT_HEIGHT (default 1024x640), TF_SHADER_DEMO_SPAN (world units across,
// 2048), TF_SHADER_DEMO_ORIGIN ("X,Y": the world cell at the centre, 0,0),
// TF_SHADER_DEMO_RELIEF (world units given to MIN..MAX, 0.15 x span),
// TF_SHADER_DEMO_NETWORK (a drainage spec's network file, from `terrafit
// shader SPEC --network X,Y,W,H -o FILE`, covering the plane).
// playwright-core is found under $TF_SHADER_DEMO_MODULES (screenshot.sh
// installs it outside the tree); three.js under $THREE_JS (default
// /usr/share/javascript/three/build/three.module.js, Debian's libjs-three).
import { createServer } from 'node:http';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const [shader, out, name = 'terrain'] = process.argv.slice(2);
if (!shader || !out) {
  console.error('usage: node screenshot.mjs SHADER.glsl OUT.png [NAME]');
  process.exit(2);
}
const env = process.env;
const modules = env.TF_SHADER_DEMO_MODULES || join(here, 'node_modules');
const { chromium } = createRequire(join(modules, 'noop.js'))('playwright-core');
const three = env.THREE_JS || '/usr/share/javascript/three/build/three.module.js';
const width = env.TF_SHOT_WIDTH || '1024', height = env.TF_SHOT_HEIGHT || '640';
const [x, y] = (env.TF_SHADER_DEMO_ORIGIN || '0,0').split(',');
const query = new URLSearchParams({ width, height, name, x, y });
if (env.TF_SHADER_DEMO_SPAN) query.set('span', env.TF_SHADER_DEMO_SPAN);
if (env.TF_SHADER_DEMO_RELIEF) query.set('relief', env.TF_SHADER_DEMO_RELIEF);
if (env.TF_SHADER_DEMO_NETWORK) query.set('network', '1');

// A fixed set of files; nothing else is served.
const files = {
  '/': ['text/html', join(here, 'index.html')],
  '/example.js': ['text/javascript', join(here, 'example.js')],
  '/three.module.js': ['text/javascript', three],
  '/shader.glsl': ['text/plain', shader],
};
if (env.TF_SHADER_DEMO_NETWORK) files['/network.bin'] = ['application/octet-stream', env.TF_SHADER_DEMO_NETWORK];
const server = createServer((req, res) => {
  const f = files[new URL(req.url, 'http://127.0.0.1').pathname];
  let body;
  try {
    if (!f || req.method !== 'GET') throw new Error('not found');
    body = readFileSync(f[1]);
  } catch {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': f[0], 'Cache-Control': 'no-store' });
  res.end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

// A throw-away profile: nothing of the user's is read or kept.
const profile = mkdtempSync(join(tmpdir(), 'tf-shader-demo-'));
let status = 0, context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    timeout: 60000,
    viewport: { width: Number(width), height: Number(height) },
    args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on('console', (m) => console.error(`page: ${m.text()}`));
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`http://127.0.0.1:${port}/?${query}`);
  await page.waitForFunction(() => window.renderDone || window.renderError, null, { timeout: 120000 });
  const error = await page.evaluate(() => window.renderError);
  if (error) throw new Error(error);
  console.log(JSON.stringify(await page.evaluate(() => window.renderStats)));
  await page.screenshot({ path: out });
} catch (e) {
  console.error(`screenshot: ${e.message}`);
  status = 1;
} finally {
  if (context) await context.close().catch(() => {});
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(status);
