// The three.js side of a `terrafit shader --lang glsl` file (three r111 and
// later, WebGL2): a ShaderMaterial whose vertex shader includes the emitted
// source and displaces a flat PlaneBufferGeometry by NAME_gradient_at, lit
// by the gradient's normal and coloured by the height over
// NAME_MIN_VALUE..NAME_MAX_VALUE. Used by index.html; quoted by the docs.
// `origin` is the world cell under the plane's centre (integers: the
// _at functions stay exact far from 0), `relief` the vertical span in world
// units given to MIN..MAX.
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
