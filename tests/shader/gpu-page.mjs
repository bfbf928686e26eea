// The browser half of tests/shader/gpu.mjs: loaded by the page that gpu.mjs
// serves on 127.0.0.1. Fetches /config.json, /points.bin and the emitted
// shaders, evaluates every point in WebGL2 (fragment shader, RGBA32I points
// texture -> RGBA32F attachment, readPixels) and in WebGPU (compute shader,
// storage buffers, mapped readback), POSTs the raw float32 results to
// /result/webgl2 and /result/webgpu, and optionally times an N x N grid of
// NAME_at. Ends by setting window.harnessDone (an object) or
// window.harnessError ({api, kind, message, log}).
// Every identifier the harness adds to the shaders starts with harness_, so
// it cannot meet the emitted file's own (NAME_..., tf_...).

class HarnessError extends Error {
  constructor(api, kind, message, log) {
    super(message);
    this.api = api;
    this.kind = kind;
    this.log = log || '';
  }
}

const log = (...a) => console.log('[harness]', ...a);
const now = () => performance.now();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function fetchOk(path, how) {
  const r = await fetch(path, how);
  if (!r.ok) throw new HarnessError('harness', 'io', `${path}: HTTP ${r.status}`);
  return r;
}

// ---------------------------------------------------------------- WebGL2

const GL_VERTEX = `#version 300 es
void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`;

// The emitted file is source string 1 (its own line numbers), the harness's
// lines are source string 0, so an info log line "ERROR: 1:12: ..." is line
// 12 of the emitted file.
function glFragment(emitted, main) {
  return `#version 300 es
precision highp float;
precision highp int;
precision highp isampler2D;
#line 1 1
${emitted}
#line 1 0
${main}`;
}

function glPointsMain(name) {
  return `uniform highp isampler2D harness_points;
out vec4 harness_out;
void main() {
    ivec4 t = texelFetch(harness_points, ivec2(gl_FragCoord.xy), 0);
    ivec2 cell = t.xy;
    vec2 frac = intBitsToFloat(t.zw);
    float h = ${name}_at(cell, frac);
    vec3 g = ${name}_gradient_at(cell, frac);
    harness_out = vec4(h, g.y, g.z, g.x);
}
`;
}

function glBenchMain(name) {
  return `uniform ivec2 harness_origin;
out vec4 harness_out;
void main() {
    ivec2 cell = ivec2(gl_FragCoord.xy) + harness_origin;
    harness_out = vec4(${name}_at(cell, vec2(0.25, 0.75)), 0.0, 0.0, 1.0);
}
`;
}

function glProgram(gl, fragmentSource, what) {
  const shader = (type, source, label) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, source);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) {
      throw new HarnessError('webgl2', 'compile', `${what}: the ${label} shader did not compile`,
        gl.getShaderInfoLog(s) || '(empty info log)');
    }
    return s;
  };
  const p = gl.createProgram();
  gl.attachShader(p, shader(gl.VERTEX_SHADER, GL_VERTEX, 'vertex'));
  gl.attachShader(p, shader(gl.FRAGMENT_SHADER, fragmentSource, 'fragment'));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) {
    throw new HarnessError('webgl2', 'link', `${what}: the program did not link`,
      gl.getProgramInfoLog(p) || '(empty info log)');
  }
  return p;
}

function glTarget(gl, internal, width, height) {
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texStorage2D(gl.TEXTURE_2D, 1, internal, width, height);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
  const status = gl.checkFramebufferStatus(gl.FRAMEBUFFER);
  if (status !== gl.FRAMEBUFFER_COMPLETE) {
    throw new HarnessError('webgl2', 'setup', `float framebuffer incomplete (0x${status.toString(16)})`);
  }
  return { tex, fb };
}

// Draws rows [0, height) of the bound framebuffer in bands of `band` rows
// (short draws: SwiftShader runs on the CPU and Chromium has a GPU
// watchdog); `each(y0, rows)` runs after each band's draw.
function glBands(gl, width, height, band, each) {
  gl.viewport(0, 0, width, height);
  gl.enable(gl.SCISSOR_TEST);
  for (let y0 = 0; y0 < height; y0 += band) {
    const rows = Math.min(band, height - y0);
    gl.scissor(0, y0, width, rows);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    each(y0, rows);
  }
  gl.disable(gl.SCISSOR_TEST);
}

function glCheck(gl, what) {
  const e = gl.getError();
  if (e !== gl.NO_ERROR) throw new HarnessError('webgl2', 'gl', `${what}: GL error 0x${e.toString(16)}`);
}

// A drainage spec's network table (docs/shader.md, "Drainage"): the words
// as an R32UI texture and the segments as an RGBA32F texture, 1024 texels
// wide, on texture units 1 and 2, for the uniforms the emitted GLSL names.
function glNetwork(gl, program, name, net, maxSize) {
  const W = 1024;
  const upload = (unit, data, internal, format, type, per, make) => {
    const texels = data.length / per, h = Math.max(1, Math.ceil(texels / W));
    if (h > maxSize) throw new HarnessError('webgl2', 'setup', `the network needs ${h} rows; MAX_TEXTURE_SIZE is ${maxSize}`);
    const padded = make(W * h * per);
    padded.set(data);
    const tex = gl.createTexture();
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texImage2D(gl.TEXTURE_2D, 0, internal, W, h, 0, format, type, padded);
  };
  upload(1, new Uint32Array(net.words), gl.R32UI, gl.RED_INTEGER, gl.UNSIGNED_INT, 1, (n) => new Uint32Array(n));
  upload(2, new Float32Array(net.segments), gl.RGBA32F, gl.RGBA, gl.FLOAT, 4, (n) => new Float32Array(n));
  gl.activeTexture(gl.TEXTURE0);
  gl.uniform1i(gl.getUniformLocation(program, `${name}_network_words`), 1);
  gl.uniform1i(gl.getUniformLocation(program, `${name}_network_segments`), 2);
}

async function runWebGL2(cfg, pointsBuffer, source, net) {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const gl = canvas.getContext('webgl2', { antialias: false, depth: false, stencil: false });
  if (!gl) throw new HarnessError('webgl2', 'setup', 'no WebGL2 context');
  const info = {};
  const debug = gl.getExtension('WEBGL_debug_renderer_info');
  info.renderer = gl.getParameter(debug ? debug.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
  info.vendor = gl.getParameter(debug ? debug.UNMASKED_VENDOR_WEBGL : gl.VENDOR);
  info.version = gl.getParameter(gl.VERSION);
  info.shading_language = gl.getParameter(gl.SHADING_LANGUAGE_VERSION);
  info.max_texture_size = gl.getParameter(gl.MAX_TEXTURE_SIZE);
  log(`webgl2: ${info.renderer} (${info.vendor})`);
  if (!gl.getExtension('EXT_color_buffer_float')) {
    throw new HarnessError('webgl2', 'setup',
      'EXT_color_buffer_float is missing: float32 results cannot be rendered and read back');
  }
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const n = cfg.count, width = Math.min(1024, info.max_texture_size);
  const height = Math.max(1, Math.ceil(n / width));
  if (height > info.max_texture_size) {
    throw new HarnessError('webgl2', 'setup',
      `${n} points need a ${width}x${height} texture; MAX_TEXTURE_SIZE is ${info.max_texture_size}`);
  }
  const result = { info };

  let t = now();
  const program = glProgram(gl, glFragment(source, glPointsMain(cfg.name)), 'points');
  info.compile_s = (now() - t) / 1e3;
  gl.useProgram(program);
  const texels = new Int32Array(width * height * 4);
  texels.set(new Int32Array(pointsBuffer));
  const ptex = gl.createTexture();
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, ptex);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32I, width, height, 0, gl.RGBA_INTEGER, gl.INT, texels);
  gl.uniform1i(gl.getUniformLocation(program, 'harness_points'), 0);
  if (net) glNetwork(gl, program, cfg.name, net, info.max_texture_size);
  glTarget(gl, gl.RGBA32F, width, height);
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, ptex);
  glCheck(gl, 'points setup');

  const out = new Float32Array(width * height * 4);
  t = now();
  glBands(gl, width, height, cfg.glBandRows, (y0, rows) =>
    gl.readPixels(0, y0, width, rows, gl.RGBA, gl.FLOAT, out.subarray(y0 * width * 4, (y0 + rows) * width * 4)));
  glCheck(gl, 'points draw/readPixels');
  info.points_s = (now() - t) / 1e3;
  log(`webgl2: ${n} points in ${info.points_s.toFixed(3)} s`);
  await fetchOk('/result/webgl2', { method: 'POST', body: out.subarray(0, n * 4) });

  if (cfg.bench > 0) {
    const N = cfg.bench;
    if (N > info.max_texture_size) throw new HarnessError('webgl2', 'setup', `--bench ${N} exceeds MAX_TEXTURE_SIZE`);
    const bp = glProgram(gl, glFragment(source, glBenchMain(cfg.name)), 'bench');
    gl.useProgram(bp);
    gl.uniform2i(gl.getUniformLocation(bp, 'harness_origin'), cfg.benchOrigin[0], cfg.benchOrigin[1]);
    if (net) glNetwork(gl, bp, cfg.name, net, info.max_texture_size);
    glTarget(gl, gl.R32F, N, N);
    const one = new Float32Array(4), times = [];
    const band = Math.max(1, Math.floor(cfg.glBandRows * 1024 / N));
    for (let rep = 0; rep <= cfg.benchReps; rep++) {
      t = now();
      glBands(gl, N, N, band, () => gl.flush());
      gl.finish();
      gl.readPixels(0, N - 1, 1, 1, gl.RGBA, gl.FLOAT, one);
      const s = (now() - t) / 1e3;
      if (rep > 0) times.push(s);     // rep 0 warms up
    }
    glCheck(gl, 'bench');
    const m = median(times);
    result.bench = { n: N, samples: N * N, times_s: times, median_s: m, samples_per_s: N * N / m };
    log(`webgl2 bench: ${N}x${N} NAME_at in ${m.toFixed(4)} s median, ${(N * N / m / 1e6).toFixed(3)} M samples/s`);
  }
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return result;
}

// ---------------------------------------------------------------- WebGPU

function wgslPointsMain(name) {
  return `
struct harness_Point { cell: vec2i, frac: vec2f }
struct harness_Params { offset: u32, count: u32, width: u32, origin_x: i32, origin_y: i32 }
@group(0) @binding(0) var<storage, read> harness_points: array<harness_Point>;
@group(0) @binding(1) var<storage, read_write> harness_results: array<vec4f>;
@group(0) @binding(2) var<uniform> harness_params: harness_Params;
@compute @workgroup_size(64)
fn harness_main(@builtin(global_invocation_id) gid: vec3u) {
    let i = harness_params.offset + gid.x;
    if (i >= harness_params.count) { return; }
    let p = harness_points[i];
    let h = ${name}_at(p.cell, p.frac);
    let g = ${name}_gradient_at(p.cell, p.frac);
    harness_results[i] = vec4f(h, g.y, g.z, g.x);
}
`;
}

function wgslBenchMain(name) {
  return `
struct harness_Params { offset: u32, count: u32, width: u32, origin_x: i32, origin_y: i32 }
@group(0) @binding(0) var<storage, read_write> harness_results: array<f32>;
@group(0) @binding(1) var<uniform> harness_params: harness_Params;
@compute @workgroup_size(64)
fn harness_main(@builtin(global_invocation_id) gid: vec3u) {
    let i = harness_params.offset + gid.x;
    if (i >= harness_params.count) { return; }
    let cell = vec2i(i32(i % harness_params.width), i32(i / harness_params.width))
             + vec2i(harness_params.origin_x, harness_params.origin_y);
    harness_results[i] = ${name}_at(cell, vec2f(0.25, 0.75));
}
`;
}

async function gpuModule(device, code, what) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code, label: what });
  const ci = await module.getCompilationInfo();
  const scoped = await device.popErrorScope();
  const lines = ci.messages.map((m) => `${m.type}: ${m.lineNum}:${m.linePos}: ${m.message}`);
  const errors = ci.messages.filter((m) => m.type === 'error');
  if (errors.length || scoped) {
    throw new HarnessError('webgpu', 'compile', `${what}: the WGSL module did not compile`,
      lines.join('\n') + (scoped ? `\n${scoped.message}` : ''));
  }
  if (lines.length) log(`webgpu ${what} compilation messages:\n${lines.join('\n')}`);
  return module;
}

async function gpuPipeline(device, module, what) {
  device.pushErrorScope('validation');
  let pipeline;
  try {
    pipeline = await device.createComputePipelineAsync({
      layout: 'auto', compute: { module, entryPoint: 'harness_main' } });
  } catch (e) {
    await device.popErrorScope();
    throw new HarnessError('webgpu', 'pipeline', `${what}: the compute pipeline failed`, e.message);
  }
  const err = await device.popErrorScope();
  if (err) throw new HarnessError('webgpu', 'pipeline', `${what}: the compute pipeline failed`, err.message);
  return pipeline;
}

// Dispatches [0, count) in chunks of `chunk` invocations, one submit each
// (short submissions, as for WebGL2's bands); resolves when all are done.
async function gpuChunks(device, pipeline, bindGroup, params, count, width, origin, chunk, netGroup) {
  for (let offset = 0; offset < count; offset += chunk) {
    const p = new ArrayBuffer(32), u = new Uint32Array(p), s = new Int32Array(p);
    u[0] = offset; u[1] = count; u[2] = width; s[3] = origin[0]; s[4] = origin[1];
    device.queue.writeBuffer(params, 0, p);
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    if (netGroup) pass.setBindGroup(1, netGroup);
    pass.dispatchWorkgroups(Math.ceil(Math.min(chunk, count - offset) / 64));
    pass.end();
    device.queue.submit([enc.finish()]);
  }
  await device.queue.onSubmittedWorkDone();
}

// The network table as the emitted WGSL declares it: two read-only storage
// buffers at @group(1) @binding(0) and (1).
function gpuNetwork(device, pipeline, net) {
  const U = GPUBufferUsage;
  const buffer = (data) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: U.STORAGE | U.COPY_DST });
    device.queue.writeBuffer(b, 0, data);
    return b;
  };
  return device.createBindGroup({ layout: pipeline.getBindGroupLayout(1), entries: [
    { binding: 0, resource: { buffer: buffer(net.words) } },
    { binding: 1, resource: { buffer: buffer(net.segments) } }] });
}

async function runWebGPU(cfg, pointsBuffer, source, net) {
  if (!navigator.gpu) throw new HarnessError('webgpu', 'setup', 'navigator.gpu is missing (not a secure context, or WebGPU disabled)');
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new HarnessError('webgpu', 'setup', 'no WebGPU adapter');
  const ai = adapter.info || {};
  const info = { adapter: [ai.vendor, ai.architecture, ai.device, ai.description].filter(Boolean).join(' / '),
    vendor: ai.vendor, architecture: ai.architecture, device: ai.device, description: ai.description,
    is_fallback: ai.isFallbackAdapter ?? adapter.isFallbackAdapter };
  log(`webgpu: ${info.adapter}`);
  const n = cfg.count, N = cfg.bench;
  const need = Math.max(n * 16, N * N * 4, 256, net ? net.words.byteLength : 0, net ? net.segments.byteLength : 0);
  if (need > adapter.limits.maxStorageBufferBindingSize || need > adapter.limits.maxBufferSize) {
    throw new HarnessError('webgpu', 'setup', `${need} bytes exceed the adapter's storage buffer limit`);
  }
  const device = await adapter.requestDevice({ requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize } });
  let lost = null;
  device.lost.then((l) => {
    if (l.reason === 'destroyed') return;
    lost = l;
    log(`webgpu: device lost: ${l.reason} ${l.message}`);
  });
  device.onuncapturederror = (e) => log(`webgpu: uncaptured error: ${e.error.message}`);
  const result = { info };
  const U = GPUBufferUsage;

  let t = now();
  const module = await gpuModule(device, source + wgslPointsMain(cfg.name), 'points');
  const pipeline = await gpuPipeline(device, module, 'points');
  info.compile_s = (now() - t) / 1e3;
  const bytes = Math.max(n * 16, 16);
  const points = device.createBuffer({ size: bytes, usage: U.STORAGE | U.COPY_DST });
  device.queue.writeBuffer(points, 0, pointsBuffer);
  const results = device.createBuffer({ size: bytes, usage: U.STORAGE | U.COPY_SRC });
  const params = device.createBuffer({ size: 32, usage: U.UNIFORM | U.COPY_DST });
  const readback = device.createBuffer({ size: bytes, usage: U.MAP_READ | U.COPY_DST });
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
    { binding: 0, resource: { buffer: points } }, { binding: 1, resource: { buffer: results } },
    { binding: 2, resource: { buffer: params } }] });
  t = now();
  const netGroup = net ? gpuNetwork(device, pipeline, net) : null;
  await gpuChunks(device, pipeline, bindGroup, params, n, 0, [0, 0], cfg.gpuChunk, netGroup);
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(results, 0, readback, 0, bytes);
  device.queue.submit([enc.finish()]);
  await readback.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(readback.getMappedRange().slice(0, n * 16));
  readback.unmap();
  info.points_s = (now() - t) / 1e3;
  if (lost) throw new HarnessError('webgpu', 'lost', `device lost: ${lost.message}`);
  log(`webgpu: ${n} points in ${info.points_s.toFixed(3)} s`);
  await fetchOk('/result/webgpu', { method: 'POST', body: out });

  if (N > 0) {
    const bm = await gpuModule(device, source + wgslBenchMain(cfg.name), 'bench');
    const bpipe = await gpuPipeline(device, bm, 'bench');
    const grid = device.createBuffer({ size: N * N * 4, usage: U.STORAGE | U.COPY_SRC });
    const bparams = device.createBuffer({ size: 32, usage: U.UNIFORM | U.COPY_DST });
    const bg = device.createBindGroup({ layout: bpipe.getBindGroupLayout(0), entries: [
      { binding: 0, resource: { buffer: grid } }, { binding: 1, resource: { buffer: bparams } }] });
    const times = [], bnet = net ? gpuNetwork(device, bpipe, net) : null;
    for (let rep = 0; rep <= cfg.benchReps; rep++) {
      t = now();
      await gpuChunks(device, bpipe, bg, bparams, N * N, N, cfg.benchOrigin, cfg.gpuChunk * 4, bnet);
      const s = (now() - t) / 1e3;
      if (rep > 0) times.push(s);
    }
    if (lost) throw new HarnessError('webgpu', 'lost', `device lost: ${lost.message}`);
    const m = median(times);
    result.bench = { n: N, samples: N * N, times_s: times, median_s: m, samples_per_s: N * N / m };
    log(`webgpu bench: ${N}x${N} NAME_at in ${m.toFixed(4)} s median, ${(N * N / m / 1e6).toFixed(3)} M samples/s`);
  }
  device.destroy();
  return result;
}

// ---------------------------------------------------------------- main

async function main() {
  const cfg = await (await fetchOk('/config.json')).json();
  const pointsBuffer = await (await fetchOk('/points.bin')).arrayBuffer();
  if (pointsBuffer.byteLength !== cfg.count * 16) throw new HarnessError('harness', 'io', 'points.bin has the wrong size');
  let net = null;
  if (cfg.network) {
    net = { words: await (await fetchOk('/network-words.bin')).arrayBuffer(),
      segments: await (await fetchOk('/network-segments.bin')).arrayBuffer() };
  }
  const done = { bench: cfg.bench > 0 ? { n: cfg.bench, reps: cfg.benchReps, origin: cfg.benchOrigin } : undefined };
  if (cfg.glsl) {
    const r = await runWebGL2(cfg, pointsBuffer, await (await fetchOk('/shader.glsl')).text(), net);
    done.webgl2 = r.info;
    if (r.bench) done.bench.webgl2 = r.bench;
  }
  if (cfg.wgsl) {
    const r = await runWebGPU(cfg, pointsBuffer, await (await fetchOk('/shader.wgsl')).text(), net);
    done.webgpu = r.info;
    if (r.bench) done.bench.webgpu = r.bench;
  }
  return done;
}

main().then((done) => { window.harnessDone = done; }, (e) => {
  window.harnessError = { api: e.api || 'harness', kind: e.kind || 'exception',
    message: e.message || String(e), log: e.log || (e.stack || '') };
});
