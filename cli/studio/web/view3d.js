// terrafit studio's 3D view: a mesh tile from the server (heights and
// normals from the spec, as `terrafit mesh` builds them) drawn by three.js
// with height-based texturing (bands with upper limits and blend lengths,
// a noise offset on the seams), slope-based cliffs and an orbit camera.
// The render settings are their own JSON (render.json in the project).
"use strict";

window.studio3d = (() => {
  const studio = window.studio;
  const DEFAULTS = {
    meshSide: 257,
    extent: 512,
    verticalScale: 0.03,
    seamNoise: 0.04,
    seamScale: 0.05,
    bands: [
      { name: "sand", color: "#d9c98f", limit: 0.22, blend: 0.03 },
      { name: "grass", color: "#5d8a3c", limit: 0.55, blend: 0.06 },
      { name: "rock", color: "#8a7f74", limit: 0.82, blend: 0.05 },
      { name: "snow", color: "#f3f5f7", limit: 1.0, blend: 0.04 },
    ],
    cliff: { color: "#9a8f84", slope: 38, blend: 6 },
    sun: { azimuth: 315, altitude: 40 },
  };
  let settings = JSON.parse(JSON.stringify(DEFAULTS));
  let THREE = null, renderer, scene, camera, mesh, material;
  let started = false, visible = false, dirty = true, loading = false;
  let meshes = 0; // meshes drawn so far, for a test to wait on the next one
  const orbit = { theta: 0.7, phi: 0.95, radius: 620, target: [256, 0, 256] };

  const VERTEX = `
    attribute float height;
    varying float vHeight;
    varying vec3 vNormal;
    varying vec3 vWorld;
    void main() {
      vHeight = height;
      vNormal = normal;
      vWorld = position;
      gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
    }`;
  const FRAGMENT = `
    uniform vec3 bandColor[4];
    uniform float bandLimit[4];
    uniform float bandBlend[4];
    uniform vec3 cliffColor;
    uniform float cliffSlope, cliffBlend, seamNoise, seamScale;
    uniform vec3 sun;
    varying float vHeight;
    varying vec3 vNormal;
    varying vec3 vWorld;
    float hash(vec2 p) { return fract(sin(dot(p, vec2(127.1, 311.7))) * 43758.5453); }
    float valueNoise(vec2 p) {
      vec2 i = floor(p), f = fract(p);
      vec2 u = f * f * (3.0 - 2.0 * f);
      return mix(mix(hash(i), hash(i + vec2(1.0, 0.0)), u.x),
                 mix(hash(i + vec2(0.0, 1.0)), hash(i + vec2(1.0, 1.0)), u.x), u.y);
    }
    void main() {
      vec2 p = vWorld.xz * seamScale;
      float n = valueNoise(p) * 0.65 + valueNoise(p * 2.7) * 0.35;
      float h = vHeight + seamNoise * (2.0 * n - 1.0);
      vec3 colour = bandColor[0];
      for (int k = 1; k < 4; k++) {
        float t = smoothstep(bandLimit[k - 1] - bandBlend[k - 1], bandLimit[k - 1] + bandBlend[k - 1], h);
        colour = mix(colour, bandColor[k], t);
      }
      vec3 nrm = normalize(vNormal);
      float slope = degrees(acos(clamp(nrm.y, -1.0, 1.0)));
      float c = smoothstep(cliffSlope - cliffBlend, cliffSlope + cliffBlend, slope + 4.0 * (n - 0.5));
      colour = mix(colour, cliffColor, c);
      // A grain at two scales stands in for each band's texture.
      vec2 q = vWorld.xz * 0.9;
      colour *= 0.88 + 0.16 * valueNoise(q) + 0.08 * valueNoise(q * 3.1);
      float light = 0.45 + 0.65 * max(dot(nrm, normalize(sun)), 0.0);
      gl_FragColor = vec4(colour * light, 1.0);
    }`;

  function loadThree() {
    return new Promise((resolve, reject) => {
      if (window.THREE) return resolve(window.THREE);
      const s = document.createElement("script");
      s.src = "/vendor/three.min.js";
      s.onload = () => resolve(window.THREE);
      s.onerror = () => reject(new Error("three.js did not load"));
      document.head.appendChild(s);
    });
  }

  function sunVector() {
    const az = settings.sun.azimuth * Math.PI / 180, alt = settings.sun.altitude * Math.PI / 180;
    // azimuth clockwise from north (-z), as the previews' sun
    return new THREE.Vector3(Math.sin(az) * Math.cos(alt), Math.sin(alt), -Math.cos(az) * Math.cos(alt));
  }

  function applyUniforms() {
    if (!material) return;
    const u = material.uniforms;
    u.bandColor.value = settings.bands.map(b => new THREE.Color(b.color));
    u.bandLimit.value = settings.bands.map(b => +b.limit);
    u.bandBlend.value = settings.bands.map(b => Math.max(1e-4, +b.blend));
    u.cliffColor.value = new THREE.Color(settings.cliff.color);
    u.cliffSlope.value = +settings.cliff.slope;
    u.cliffBlend.value = Math.max(0.01, +settings.cliff.blend);
    u.seamNoise.value = +settings.seamNoise;
    u.seamScale.value = +settings.seamScale;
    u.sun.value = sunVector();
    render();
  }

  async function start() {
    THREE = await loadThree();
    const canvas = document.getElementById("canvas3d");
    renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    scene = new THREE.Scene();
    scene.background = new THREE.Color(0xb8c7d9);
    camera = new THREE.PerspectiveCamera(45, 1, 1, 20000);
    material = new THREE.ShaderMaterial({
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      uniforms: {
        bandColor: { value: [] }, bandLimit: { value: [] }, bandBlend: { value: [] },
        cliffColor: { value: null }, cliffSlope: { value: 0 }, cliffBlend: { value: 1 },
        seamNoise: { value: 0 }, seamScale: { value: 1 }, sun: { value: null },
      },
    });
    try {
      const saved = await studio.api("GET", "/api/settings");
      settings = merge(JSON.parse(JSON.stringify(DEFAULTS)), saved);
    } catch (e) { /* keep the defaults */ }
    buildPanel();
    applyUniforms();
    bindOrbit(canvas);
    new ResizeObserver(() => resize()).observe(canvas);
    started = true;
  }

  // Saved settings over the defaults, keeping only what the view knows.
  function merge(base, saved) {
    if (!saved || typeof saved !== "object") return base;
    for (const k of Object.keys(base)) {
      if (!(k in saved)) continue;
      if (Array.isArray(base[k])) {
        if (Array.isArray(saved[k]) && saved[k].length === base[k].length)
          base[k] = base[k].map((b, i) => merge(b, saved[k][i]));
      } else if (typeof base[k] === "object") base[k] = merge(base[k], saved[k]);
      else if (typeof saved[k] === typeof base[k]) base[k] = saved[k];
    }
    return base;
  }

  function resize() {
    const canvas = renderer.domElement;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (w === 0 || h === 0) return;
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    render();
  }

  function placeCamera() {
    const [tx, ty, tz] = orbit.target;
    const r = orbit.radius;
    camera.position.set(tx + r * Math.sin(orbit.phi) * Math.sin(orbit.theta), ty + r * Math.cos(orbit.phi),
      tz + r * Math.sin(orbit.phi) * Math.cos(orbit.theta));
    camera.lookAt(tx, ty, tz);
  }

  function render() {
    if (!renderer) return;
    placeCamera();
    renderer.render(scene, camera);
  }

  function bindOrbit(canvas) {
    let drag = null;
    canvas.addEventListener("contextmenu", ev => ev.preventDefault());
    canvas.addEventListener("pointerdown", ev => {
      drag = { x: ev.clientX, y: ev.clientY, button: ev.button, theta: orbit.theta, phi: orbit.phi, target: [...orbit.target] };
      canvas.setPointerCapture(ev.pointerId);
    });
    canvas.addEventListener("pointermove", ev => {
      if (!drag) return;
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (drag.button === 2) { // pan along the ground
        const k = orbit.radius / 600;
        const c = Math.cos(orbit.theta), s = Math.sin(orbit.theta);
        orbit.target[0] = drag.target[0] - (dx * c - dy * s) * k;
        orbit.target[2] = drag.target[2] - (-dx * s - dy * c) * k;
      } else {
        orbit.theta = drag.theta - dx * 0.008;
        orbit.phi = Math.min(1.5, Math.max(0.08, drag.phi - dy * 0.008));
      }
      render();
    });
    canvas.addEventListener("pointerup", () => { drag = null; });
    canvas.addEventListener("wheel", ev => {
      ev.preventDefault();
      orbit.radius = Math.min(8000, Math.max(20, orbit.radius * Math.exp(ev.deltaY * 0.001)));
      render();
    }, { passive: false });
  }

  async function loadMesh() {
    if (!started || !studio.state.spec || loading) { dirty = true; return; }
    loading = true;
    dirty = false;
    try {
      const n = settings.meshSide, extent = settings.extent, vscale = settings.verticalScale * extent;
      const step = extent / (n - 1);
      const blob = await studio.api("GET", "/api/mesh?" + new URLSearchParams({ n, step, x: 0, y: 0, vscale }));
      const data = new Float32Array(await blob.arrayBuffer());
      const count = n * n;
      const positions = new Float32Array(count * 3);
      const heights = data.subarray(0, count);
      for (let j = 0; j < n; j++)
        for (let i = 0; i < n; i++) {
          const k = j * n + i;
          positions[3 * k] = i * step;
          positions[3 * k + 1] = heights[k] * vscale;
          positions[3 * k + 2] = j * step;
        }
      const index = new Uint32Array(6 * (n - 1) * (n - 1));
      let q = 0;
      for (let j = 0; j < n - 1; j++)
        for (let i = 0; i < n - 1; i++) {
          const a = j * n + i, b = a + 1, c = a + n, d = c + 1;
          index.set([a, c, b, b, c, d], q);
          q += 6;
        }
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
      geometry.setAttribute("normal", new THREE.BufferAttribute(data.slice(count, 4 * count), 3));
      geometry.setAttribute("height", new THREE.BufferAttribute(new Float32Array(heights), 1));
      geometry.setIndex(new THREE.BufferAttribute(index, 1));
      if (mesh) { scene.remove(mesh); mesh.geometry.dispose(); }
      mesh = new THREE.Mesh(geometry, material);
      scene.add(mesh);
      orbit.target = [extent / 2, vscale * 0.3, extent / 2];
      render();
      document.getElementById("canvas3d").dataset.rendered = String(++meshes);
    } catch (e) {
      studio.withStatus("3D view", () => Promise.reject(e));
    } finally {
      loading = false;
    }
    if (dirty && visible) loadMesh();
  }

  // ------------------------------------------------------- settings panel

  let putTimer = 0;
  function changed(rebuild) {
    applyUniforms();
    if (rebuild) loadMesh();
    clearTimeout(putTimer);
    putTimer = setTimeout(putSettings, 400);
  }

  async function putSettings() {
    clearTimeout(putTimer);
    await studio.api("PUT", "/api/settings", JSON.stringify(settings), "application/json");
  }

  function slider(parent, label, get, set, min, max, step, rebuild) {
    const row = document.createElement("label");
    row.textContent = label;
    const input = document.createElement("input");
    Object.assign(input, { type: "range", min, max, step, value: get() });
    const out = document.createElement("output");
    out.textContent = (+get()).toFixed(2);
    input.oninput = () => { set(+input.value); out.textContent = (+input.value).toFixed(2); changed(false); };
    if (rebuild) input.onchange = () => changed(true);
    row.append(input, out);
    parent.appendChild(row);
  }

  function colour(parent, label, get, set) {
    const row = document.createElement("label");
    row.textContent = label;
    const input = document.createElement("input");
    input.type = "color";
    input.value = get();
    input.oninput = () => { set(input.value); changed(false); };
    row.append(input, document.createElement("span"));
    parent.appendChild(row);
  }

  function heading(parent, text) {
    const h = document.createElement("h3");
    h.textContent = text;
    parent.appendChild(h);
  }

  function buildPanel() {
    const p = document.getElementById("render-settings");
    p.textContent = "";
    heading(p, "Mesh");
    slider(p, "vertices", () => settings.meshSide, v => { settings.meshSide = v; }, 33, 257, 32, true);
    slider(p, "extent", () => settings.extent, v => { settings.extent = v; }, 64, 4096, 64, true);
    slider(p, "height", () => settings.verticalScale, v => { settings.verticalScale = v; }, 0.005, 0.5, 0.005, true);
    heading(p, "Height bands (limit, blend)");
    settings.bands.forEach(b => {
      const box = document.createElement("div");
      box.className = "band";
      colour(box, b.name, () => b.color, v => { b.color = v; });
      slider(box, "limit", () => b.limit, v => { b.limit = v; }, 0, 1, 0.01);
      slider(box, "blend", () => b.blend, v => { b.blend = v; }, 0, 0.3, 0.005);
      p.appendChild(box);
    });
    heading(p, "Seams");
    slider(p, "noise", () => settings.seamNoise, v => { settings.seamNoise = v; }, 0, 0.2, 0.005);
    slider(p, "scale", () => settings.seamScale, v => { settings.seamScale = v; }, 0.005, 0.5, 0.005);
    heading(p, "Cliffs");
    colour(p, "colour", () => settings.cliff.color, v => { settings.cliff.color = v; });
    slider(p, "slope °", () => settings.cliff.slope, v => { settings.cliff.slope = v; }, 5, 85, 1);
    slider(p, "blend °", () => settings.cliff.blend, v => { settings.cliff.blend = v; }, 0.5, 30, 0.5);
    heading(p, "Sun");
    slider(p, "azimuth", () => settings.sun.azimuth, v => { settings.sun.azimuth = v; }, 0, 360, 1);
    slider(p, "altitude", () => settings.sun.altitude, v => { settings.sun.altitude = v; }, 5, 90, 1);
  }

  async function show() {
    visible = true;
    try {
      if (!started) await start();
      resize();
      if (dirty || !mesh) await loadMesh();
    } catch (e) {
      studio.withStatus("3D view", () => Promise.reject(e));
    }
  }

  function specChanged() {
    dirty = true;
    if (visible && started && document.getElementById("view3d").classList.contains("active")) loadMesh();
  }

  return { show, specChanged, putSettings: () => (started ? putSettings() : Promise.resolve()), settings: () => settings };
})();
