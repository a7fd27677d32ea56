#version 330 core
// Draws the 4 x 256 histogram bins straight from the GL buffer that CUDA (or the CPU
// backend) wrote, bound as a texture buffer of R32UI: no readback for the picture.
// Channels are overlaid (R, G, B, luma); heights are linear or log(1 + count).
in vec2 v_uv;
out vec4 frag_color;
uniform usamplerBuffer u_bins;
uniform float u_max_count;   // the largest count among the shown channels
uniform int u_log_scale;     // 0: linear, 1: logarithmic
uniform vec4 u_channels;     // 1.0 where a channel is shown (R, G, B, luma)
uniform int u_hover_bin;     // bin under the cursor, -1 for none

const vec3 COLORS[4] = vec3[4](vec3(0.95, 0.25, 0.25), vec3(0.25, 0.85, 0.3),
                               vec3(0.3, 0.45, 1.0), vec3(0.85, 0.85, 0.85));

float height_of(uint count) {
    float c = float(count);
    if (u_log_scale == 1) return log(1.0 + c) / log(1.0 + max(u_max_count, 1.0));
    return c / max(u_max_count, 1.0);
}

void main() {
    int bin = clamp(int(v_uv.x * 256.0), 0, 255);
    vec3 color = vec3(0.0);
    float alpha = 0.0;
    for (int c = 0; c < 4; ++c) {
        if (u_channels[c] < 0.5) continue;
        uint count = texelFetch(u_bins, c * 256 + bin).r;
        if (v_uv.y <= height_of(count)) {
            color += COLORS[c] * 0.6;
            alpha = 0.9;
        }
    }
    if (bin == u_hover_bin) {
        color += vec3(0.25);
        alpha = max(alpha, 0.35);
    }
    frag_color = vec4(min(color, vec3(1.0)), alpha);
}
