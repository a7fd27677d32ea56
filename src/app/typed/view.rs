//! A typed image on screen: its samples in typed textures, drawn through the
//! Brightness/Contrast mapping into two RGBA8 textures egui shows (the original and the
//! result), its result's ranged histogram and the panel's state.

use crate::app::display::{
    render_display, reupload_pixels, upload_pixels, BrightnessContrast, BrightnessContrastPanel,
};
use crate::gl::{DisplayRenderer, GlError, GlTexture, TypedTexture};
use crate::ops::histogram::{ranged_histogram, HistogramOptions};
use crate::pixels::PixelImage;
use std::sync::Arc;

/// The display textures egui shows in place of the raw source and the RGBA8 output
/// (registered once; rendering resizes them in place, keeping their names).
pub struct DisplayTargets {
    renderer: DisplayRenderer,
    original: GlTexture,
    output: GlTexture,
    pub original_id: egui::TextureId,
    pub output_id: egui::TextureId,
}

impl DisplayTargets {
    pub fn new(gl: &glow::Context, painter: &mut egui_glow::Painter) -> Result<Self, GlError> {
        let renderer = DisplayRenderer::new(gl)?;
        let original = GlTexture::new(gl, 1, 1, None)?;
        let output = GlTexture::new(gl, 1, 1, None)?;
        Ok(Self {
            original_id: painter.register_native_texture(original.id),
            output_id: painter.register_native_texture(output.id),
            renderer,
            original,
            output,
        })
    }

    pub fn destroy(self, gl: &glow::Context) {
        self.renderer.destroy(gl);
        self.original.destroy(gl);
        self.output.destroy(gl);
    }
}

/// 256 bins per channel over the result's data range.
pub struct TypedHistogram {
    pub range: (f64, f64),
    pub channels: Vec<Vec<u64>>,
}

impl TypedHistogram {
    /// None when the image holds no finite value.
    pub fn of(image: &PixelImage) -> Option<Self> {
        let options = HistogramOptions {
            bins: Some(256),
            range: None,
        };
        let h = ranged_histogram(image, &options).ok()?;
        Some(Self {
            range: (h.range.lo(), h.range.hi()),
            channels: h.channels.into_iter().map(|c| c.counts).collect(),
        })
    }
}

/// The typed source, its latest result and how they show.
pub struct TypedView {
    pub source: Arc<PixelImage>,
    /// The stack's result of `source` (None until the first one arrives).
    pub result: Option<Arc<PixelImage>>,
    pub panel: BrightnessContrastPanel,
    /// Whether the Brightness/Contrast window is open.
    pub panel_open: bool,
    /// The user changed the display: a new result keeps it.
    touched: bool,
    pub histogram: Option<TypedHistogram>,
    source_texture: TypedTexture,
    result_texture: Option<TypedTexture>,
}

impl TypedView {
    /// Uploads `source` and draws the original through its default display.
    pub fn new(
        gl: &glow::Context,
        source: Arc<PixelImage>,
        targets: &mut DisplayTargets,
    ) -> Result<Self, GlError> {
        let source_texture = upload_pixels(gl, &source)?;
        let view = Self {
            panel: BrightnessContrastPanel::new(BrightnessContrast::for_image(&source)),
            panel_open: false,
            touched: false,
            histogram: None,
            result: None,
            result_texture: None,
            source,
            source_texture,
        };
        if let Err(e) = view.redraw(gl, targets) {
            view.destroy(gl);
            return Err(e);
        }
        Ok(view)
    }

    /// Takes `source` as the image (an edit, or undoing one): uploaded, the old result
    /// dropped (its stack runs again); the display settings stay. On failure nothing
    /// changes. The caller draws it ([`Self::redraw`]).
    pub fn replace_source(
        &mut self,
        gl: &glow::Context,
        source: Arc<PixelImage>,
    ) -> Result<(), GlError> {
        let texture = upload_pixels(gl, &source)?;
        let old = std::mem::replace(&mut self.source_texture, texture);
        old.destroy(gl);
        if let Some(t) = self.result_texture.take() {
            t.destroy(gl);
        }
        self.source = source;
        self.result = None;
        self.histogram = None;
        Ok(())
    }

    /// The image the window shows (and Auto measures): the result, else the source.
    pub fn shown(&self) -> &Arc<PixelImage> {
        self.result.as_ref().unwrap_or(&self.source)
    }

    /// Takes `result` as the one shown: uploaded, the histogram of what is shown counted
    /// (`shown`, where it is not the result: the result inside a selection only, the
    /// source outside), drawn (the display follows its data until the user changes it).
    pub fn set_result(
        &mut self,
        gl: &glow::Context,
        result: PixelImage,
        targets: &mut DisplayTargets,
        shown: Option<PixelImage>,
    ) -> Result<(), GlError> {
        match self.result_texture.as_mut() {
            Some(t) => reupload_pixels(gl, t, &result)?,
            None => self.result_texture = Some(upload_pixels(gl, &result)?),
        }
        self.histogram = TypedHistogram::of(shown.as_ref().unwrap_or(&result));
        if !self.touched {
            self.panel = BrightnessContrastPanel::new(BrightnessContrast::for_image(&result));
        }
        self.result = Some(Arc::new(result));
        self.redraw(gl, targets)
    }

    /// The user changed the display settings: draw again (one draw each, no upload).
    pub fn display_changed(
        &mut self,
        gl: &glow::Context,
        targets: &mut DisplayTargets,
    ) -> Result<(), GlError> {
        self.touched = true;
        self.redraw(gl, targets)
    }

    /// Draws the original and the result (when there is one) through the settings.
    pub fn redraw(&self, gl: &glow::Context, targets: &mut DisplayTargets) -> Result<(), GlError> {
        let settings = *self.panel.adjuster.settings();
        let DisplayTargets {
            renderer,
            original,
            output,
            ..
        } = targets;
        render_display(gl, renderer, &self.source_texture, &settings, original)?;
        if let Some(t) = &self.result_texture {
            render_display(gl, renderer, t, &settings, output)?;
        }
        Ok(())
    }

    pub fn destroy(self, gl: &glow::Context) {
        self.source_texture.destroy(gl);
        if let Some(t) = self.result_texture {
            t.destroy(gl);
        }
    }
}

/// The result's histogram as plain bars (per channel, overlaid), with its data range.
pub fn typed_histogram_ui(ui: &mut egui::Ui, histogram: Option<&TypedHistogram>) {
    let Some(h) = histogram else {
        ui.label("no histogram yet");
        return;
    };
    // The range is of f32 (or integer) samples: their shortest text, not f64's digits.
    let (lo, hi) = (h.range.0 as f32, h.range.1 as f32);
    ui.label(format!("range {lo} … {hi} (256 bins)"));
    let size = egui::vec2(ui.available_width(), ui.available_height().max(60.0));
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(20));
    let top = h
        .channels
        .iter()
        .flatten()
        .copied()
        .max()
        .unwrap_or(1)
        .max(1) as f32;
    let colours = match h.channels.len() {
        1 => vec![egui::Color32::LIGHT_GRAY],
        _ => vec![
            egui::Color32::from_rgba_unmultiplied(255, 80, 80, 160),
            egui::Color32::from_rgba_unmultiplied(80, 255, 80, 160),
            egui::Color32::from_rgba_unmultiplied(80, 120, 255, 160),
            egui::Color32::from_rgba_unmultiplied(200, 200, 200, 100),
        ],
    };
    let bar_w = rect.width() / 256.0;
    for (counts, colour) in h.channels.iter().zip(colours) {
        for (i, &n) in counts.iter().enumerate() {
            let x = rect.left() + i as f32 * bar_w;
            let y = rect.bottom() - rect.height() * n as f32 / top;
            let bar =
                egui::Rect::from_min_max(egui::pos2(x, y), egui::pos2(x + bar_w, rect.bottom()));
            painter.rect_filled(bar, 0.0, colour);
        }
    }
}
