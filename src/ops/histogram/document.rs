//! The JSON document of `cudalens histogram --json` for any image.
//!
//! Keys (the first four of every channel kept from the 8-bit RGBA document):
//! - `width`, `height`: the image's size in pixels;
//! - one key per channel (`r`, `g`, `b`, `luma`, or `grey`): its `bins` counts;
//! - `stats`: per channel `count`, `min`, `max`, `mean`, `median` (the lower median),
//!   `std_dev` (population), from the data in the image's units (integers for 8 and
//!   16-bit images; float images count finite values only; `null` when none);
//! - `depth` (`8`, `16` or `32f`), `channels` (the channel names in order), `bins`,
//!   `range` (`[lo, hi]`), `edges` (the `bins + 1` bin edges);
//! - `outside`: per channel `below`, `above` (values outside the range, ±inf too) and
//!   `nan` (NaN values).

use super::bin_range::HistogramError;
use super::data_stats::DataStats;
use super::ranged::{ranged_histogram, HistogramOptions, RangedHistogram};
use crate::pixels::{PixelImage, SampleType};
use serde_json::{json, Map, Value};

/// The `histogram --json` document of `image`.
pub fn histogram_document(
    image: &PixelImage,
    options: &HistogramOptions,
) -> Result<Value, HistogramError> {
    Ok(document_of(&ranged_histogram(image, options)?))
}

/// A statistic in the image's units: an integer for integer images, `null` if undefined.
fn in_units(v: f64, sample_type: SampleType) -> Value {
    match sample_type {
        _ if !v.is_finite() => Value::Null,
        SampleType::F32 => json!(v),
        // Integer data: min, max and median are whole sample values.
        _ => json!(v as u64),
    }
}

fn finite_or_null(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

fn stats_json(s: &DataStats, sample_type: SampleType) -> Value {
    json!({
        "count": s.count,
        "min": in_units(s.min, sample_type),
        "max": in_units(s.max, sample_type),
        "mean": finite_or_null(s.mean),
        "median": in_units(s.median, sample_type),
        "std_dev": finite_or_null(s.std_dev),
    })
}

/// The document of a computed histogram.
pub fn document_of(h: &RangedHistogram) -> Value {
    let mut doc = Map::new();
    doc.insert("width".into(), h.width.into());
    doc.insert("height".into(), h.height.into());
    let (mut stats, mut outside) = (Map::new(), Map::new());
    for c in &h.channels {
        doc.insert(c.name.into(), c.counts.clone().into());
        stats.insert(c.name.into(), stats_json(&c.stats, h.sample_type));
        outside.insert(
            c.name.into(),
            json!({ "below": c.below, "above": c.above, "nan": c.nan }),
        );
    }
    doc.insert("stats".into(), stats.into());
    doc.insert("depth".into(), h.sample_type.depth_name().into());
    let names: Vec<&str> = h.channels.iter().map(|c| c.name).collect();
    doc.insert("channels".into(), names.into());
    doc.insert("bins".into(), h.range.bins().into());
    doc.insert("range".into(), json!([h.range.lo(), h.range.hi()]));
    doc.insert("edges".into(), h.range.edges().into());
    doc.insert("outside".into(), outside.into());
    doc.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;
    use crate::pixels::ImageBuf;

    #[test]
    fn rgba8_document_keeps_the_old_keys() {
        let rgba = random_image(9, 7, 3);
        let old = crate::ops::cpu::histogram(&rgba).to_json();
        let new = histogram_document(&PixelImage::from_rgba8(rgba), &HistogramOptions::default())
            .expect("defaults");
        for key in ["width", "height", "r", "g", "b", "luma"] {
            assert_eq!(new[key], old[key], "{key}");
        }
        for c in ["r", "g", "b", "luma"] {
            for s in ["count", "min", "max", "median"] {
                assert_eq!(new["stats"][c][s], old["stats"][c][s], "{c} {s}");
            }
        }
        assert_eq!(new["edges"].as_array().map(Vec::len), Some(257));
        assert_eq!(new["depth"], "8");
    }

    #[test]
    fn float_document_has_nulls_for_an_empty_channel() {
        let grey = ImageBuf::<f32>::from_vec(2, 1, 1, vec![f32::NAN, f32::NAN]).expect("size");
        let doc = histogram_document(&PixelImage::F32(grey), &HistogramOptions::default())
            .expect("defaults");
        assert_eq!(doc["stats"]["grey"]["count"], 0);
        assert_eq!(doc["stats"]["grey"]["mean"], Value::Null);
        assert_eq!(doc["outside"]["grey"]["nan"], 2);
        assert_eq!(doc["range"], json!([0.0, 1.0]));
    }
}
