// Checks what tests/shader/gpu.mjs wrote for the stub shaders (stub.glsl,
// stub.wgsl) against the stub's formula in double precision:
//   node stub-check.mjs POINTS.txt DIR [glsl.txt wgsl.txt ...]
// h = f(x / 256) f(y / 384), f(t) = 8 t (1 - t) (1 - 2 t) of t mod 1, at
// x = cx + fx, y = cy + fy, and its two slopes. Float32 arithmetic on the
// reduced phase is good to ~1e-6; the bound (TF_STUB_TOLERANCE, default
// 1e-5 of each lane's amplitude) catches a harness that mixes up points or
// lanes or loses the cell's precision (cell + frac in float32 at 1e6 is off
// by up to 1/32 of a world unit: 1e-4 of the period, 1e-3 in h).
// Prints the largest errors; exits 1 when one is over the bound.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [pointsPath, dir, ...names] = process.argv.slice(2);
if (!pointsPath || !dir) {
  console.error('usage: node stub-check.mjs POINTS.txt DIR [glsl.txt wgsl.txt ...]');
  process.exit(2);
}
const files = names.length ? names : ['glsl.txt', 'wgsl.txt'];
const tol = Number(process.env.TF_STUB_TOLERANCE || 1e-5);
const f = (t) => 8 * t * (1 - t) * (1 - 2 * t), df = (t) => 8 * (1 - 6 * t + 6 * t * t);
const mod = (a, m) => ((a % m) + m) % m;
const amplitude = [16 / 27, 8 / 256 * (4 * Math.sqrt(3) / 9), 8 / 384 * (4 * Math.sqrt(3) / 9)];

const points = readFileSync(pointsPath, 'utf8').split('\n')
  .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
  .map((l) => l.trim().split(/\s+/).map(Number));
let status = 0;
for (const name of files) {
  const rows = readFileSync(join(dir, name), 'utf8').split('\n').filter((l) => l !== '');
  if (rows.length !== points.length) {
    console.log(`${name}: ${rows.length} results for ${points.length} points`);
    status = 1;
    continue;
  }
  const worst = [0, 0, 0], where = [-1, -1, -1];
  for (let i = 0; i < points.length; i++) {
    const [cx, cy, fx, fy] = points[i];
    const tx = (mod(cx, 256) + fx) / 256, ty = (mod(cy, 384) + fy) / 384;
    const want = [f(tx) * f(ty), df(tx) / 256 * f(ty), f(tx) * df(ty) / 384];
    const got = rows[i].split(' ').map(Number);
    for (let k = 0; k < 3; k++) {
      const e = Math.abs(got[k] - want[k]) / amplitude[k];
      if (!(e <= worst[k])) { worst[k] = Number.isNaN(e) ? Infinity : e; where[k] = i; }
    }
  }
  const bad = worst.some((e) => !(e <= tol));
  console.log(`${name}: ${points.length} points; largest error (relative to each lane's amplitude) ` +
    `h ${worst[0].toExponential(2)}, dh/dx ${worst[1].toExponential(2)}, dh/dy ${worst[2].toExponential(2)}` +
    (bad ? ` > ${tol} at point ${where.map((w) => w + 1).join('/')}` : ` (bound ${tol})`));
  if (bad) status = 1;
}
process.exit(status);
