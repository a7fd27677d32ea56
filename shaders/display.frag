#version 330 core
// Window/level, gamma and LUT: typed pixels to the RGBA8 texture the view draws, one
// texel per fragment. The CPU reference is app/display/mapping.rs (same formula):
// t = clamp((v - min) / (max - min), 0, 1), level = floor(255 * t^(1/gamma) + 0.5);
// NaN shows as 0; max <= min is a step at min. Grey goes through the LUT; colour
// channels show their levels; alpha follows the depth rules.
out vec4 frag_color;
uniform sampler2D u_source;  // R8/R16/R32F or RGBA8/RGBA16/RGBA32F
uniform sampler2D u_lut;     // 256 x 1 RGBA8
uniform float u_scale;       // sample -> image units: 255, 65535 (normalized) or 1 (float)
uniform vec3 u_min;
uniform vec3 u_max;
uniform vec3 u_inv_gamma;
uniform int u_grey;          // 1: one channel through the LUT

float level_of(float v, float lo, float hi, float inv_gamma) {
    if (isnan(v)) return 0.0;
    float t;
    if (hi > lo) {
        t = clamp((v - lo) / (hi - lo), 0.0, 1.0);
    } else {
        t = v > lo ? 1.0 : 0.0;
    }
    if (inv_gamma != 1.0 && t > 0.0) t = pow(t, inv_gamma);
    return floor(255.0 * t + 0.5);
}

void main() {
    vec4 s = texelFetch(u_source, ivec2(gl_FragCoord.xy), 0);
    vec3 v = s.rgb * u_scale;
    if (u_grey == 1) {
        int l = int(level_of(v.r, u_min.r, u_max.r, u_inv_gamma.r));
        frag_color = vec4(texelFetch(u_lut, ivec2(l, 0), 0).rgb, 1.0);
        return;
    }
    vec3 levels = vec3(level_of(v.r, u_min.r, u_max.r, u_inv_gamma.r),
                       level_of(v.g, u_min.g, u_max.g, u_inv_gamma.g),
                       level_of(v.b, u_min.b, u_max.b, u_inv_gamma.b));
    float a = isnan(s.a) ? 0.0 : floor(clamp(s.a, 0.0, 1.0) * 255.0 + 0.5);
    frag_color = vec4(levels, a) / 255.0;
}
