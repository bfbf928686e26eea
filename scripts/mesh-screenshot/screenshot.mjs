// Serve index.html, three.js and a .glb on localhost, open them in headless
// Chromium through playwright-core, wait for the frame and save a PNG.
// Usage: node screenshot.mjs OUT.png MODEL.glb [MODEL.glb ...]
// (WIDTH and HEIGHT from $TF_SHOT_WIDTH, $TF_SHOT_HEIGHT; default 1024x640)
// NODE_PATH-free: node_modules is found beside this file or under
// $TF_MESH_SCREENSHOT_MODULES (screenshot.sh installs it outside the tree).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const modules = process.env.TF_MESH_SCREENSHOT_MODULES || join(here, 'node_modules');
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');

const [out, ...models] = process.argv.slice(2);
const width = process.env.TF_SHOT_WIDTH || '1024', height = process.env.TF_SHOT_HEIGHT || '640';
if (!out || models.length === 0) {
  console.error('usage: node screenshot.mjs OUT.png MODEL.glb [MODEL.glb ...]');
  process.exit(2);
}
const types = { '.html': 'text/html', '.js': 'text/javascript', '.glb': 'model/gltf-binary' };

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  let file;
  if (path === '/' || path === '/index.html') file = join(here, 'index.html');
  else if (/^\/model\/[0-9]+\.glb$/.test(path)) file = models[Number(path.slice(7, -4))];
  else if (path.startsWith('/node_modules/'))
    file = join(modules, normalize(path.slice('/node_modules/'.length)).replace(/^(\.\.[/\\])+/, ''));
  try {
    if (!file) throw new Error('not found');
    const body = await readFile(file);
    res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

// A throw-away profile: nothing of the user's is read or kept.
const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'tf-chromium-')), {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: Number(width), height: Number(height) },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
let status = 0;
try {
  const page = context.pages()[0] || (await context.newPage());
  page.on('console', (m) => console.error(`page: ${m.text()}`));
  await page.goto(`http://127.0.0.1:${port}/?width=${width}&height=${height}&count=${models.length}`);
  await page.waitForFunction(() => window.renderDone || window.renderError, null, { timeout: 60000 });
  const error = await page.evaluate(() => window.renderError);
  if (error) throw new Error(error);
  console.log(JSON.stringify(await page.evaluate(() => window.renderStats)));
  await page.screenshot({ path: out });
} catch (e) {
  console.error(`screenshot: ${e.message}`);
  status = 1;
} finally {
  await context.close();
  server.close();
}
process.exit(status);
