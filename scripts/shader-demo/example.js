// The three.js side of a `terrafit shader --lang glsl` file (three r111 and
// later, WebGL2): a ShaderMaterial whose vertex shader includes the emitted
// source and displaces a flat PlaneBufferGeometry by NAME_gradient_at, lit
// by the gradient's normal and coloured by the height over
// NAME_MIN_VALUE..NAME_MAX_VALUE. Used by index.html; quoted by the docs.
// `origin` is the world cell under the plane's centre (integers: the
// _at functions stay exact far from 0), `relief` the vertical span in world
// units given to MIN..MAX. A spec with a drainage stage also needs its
// network table (attachNetwork).
import * as THREE from 'three';

export function terrainMaterial(glsl, name, origin, relief) {
  const vertexShader = `#version 300 es
${glsl}
uniform ivec2 origin;
uniform float relief;
out float vHeight;
out vec3 vNormal;
void main() {
    vec2 p = floor(position.xy);                     // plane vertex in world units
    vec3 g = ${name}_gradient_at(origin + ivec2(p), position.xy - p);
    float k = relief / (${name}_MAX_VALUE - ${name}_MIN_VALUE);
    vHeight = (g.x - ${name}_MIN_VALUE) / (${name}_MAX_VALUE - ${name}_MIN_VALUE);
    vNormal = normalize(vec3(-k * g.y, 1.0, k * g.z));   // world y runs to three's -z
    gl_Position = projectionMatrix * modelViewMatrix * vec4(position.x, k * (g.x - ${name}_MIN_VALUE), -position.y, 1.0);
}`;
  const fragmentShader = `#version 300 es
in float vHeight;
in vec3 vNormal;
out vec4 colour;
void main() {
    vec3 low = vec3(0.30, 0.50, 0.22), mid = vec3(0.55, 0.48, 0.36), high = vec3(0.95, 0.95, 0.97);
    vec3 albedo = vHeight < 0.5 ? mix(low, mid, vHeight * 2.0) : mix(mid, high, vHeight * 2.0 - 1.0);
    vec3 n = normalize(vNormal), sun = normalize(vec3(-0.5, 0.6, 0.4));
    float light = 0.35 + 0.15 * n.y + 0.75 * max(dot(n, sun), 0.0);
    colour = vec4(albedo * light, 1.0);
}`;
  return new THREE.ShaderMaterial({ vertexShader, fragmentShader, uniforms: {
    origin: { value: Int32Array.from(origin) }, relief: { value: relief } } });  // r111: ivec2 takes an array
}

// A drainage spec's network table (`terrafit shader SPEC --network X,Y,W,H
// -o FILE`: "TFNETWK1", the word and segment counts, the words, the
// segments' floats, little-endian) as the two textures the emitted GLSL
// reads, 1024 texels wide: NAME_network_words (R32UI) and
// NAME_network_segments (RGBA32F). three r111 has no integer textures, so
// they are made with the renderer's WebGL2 context on texture units 14
// and 15, which a material without textures of its own leaves alone; call
// after renderer.compile() has built the material's program.
export function attachNetwork(renderer, material, name, file) {
  const view = new DataView(file);
  const magic = new TextDecoder().decode(new Uint8Array(file, 0, 8));
  const words = view.getUint32(8, true), segments = view.getUint32(12, true);
  if (magic !== 'TFNETWK1' || file.byteLength !== 16 + 4 * words + 32 * segments) {
    throw new Error('not a terrafit network file');
  }
  const gl = renderer.getContext(), W = 1024;
  const texture = (unit, count, per, internal, format, type, make, read) => {
    const rows = Math.max(1, Math.ceil(count / per / W)), data = make(W * rows * per);
    for (let k = 0; k < count; k++) data[k] = read(k);
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texImage2D(gl.TEXTURE_2D, 0, internal, W, rows, 0, format, type, data);
  };
  texture(14, words, 1, gl.R32UI, gl.RED_INTEGER, gl.UNSIGNED_INT, (n) => new Uint32Array(n),
    (k) => view.getUint32(16 + 4 * k, true));
  texture(15, 8 * segments, 4, gl.RGBA32F, gl.RGBA, gl.FLOAT, (n) => new Float32Array(n),
    (k) => view.getFloat32(16 + 4 * words + 4 * k, true));
  gl.activeTexture(gl.TEXTURE0);
  const program = renderer.properties.get(material).program.program, current = gl.getParameter(gl.CURRENT_PROGRAM);
  gl.useProgram(program);
  gl.uniform1i(gl.getUniformLocation(program, `${name}_network_words`), 14);
  gl.uniform1i(gl.getUniformLocation(program, `${name}_network_segments`), 15);
  gl.useProgram(current);
}
