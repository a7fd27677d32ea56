//! A view's raw data as OpenEXR, for tools that colour it themselves: channel `dwell`
//! (32-bit unsigned, the escape count; the max dwell for points that did not escape) and
//! channel `nu` (32-bit float, the continuous escape value; the dwell itself where the point
//! did not escape), and, where the view was rendered with them, channel `de` (32-bit float,
//! the distance estimate to the set in pixels; 0 for points that did not escape), one
//! layer, with text attributes (the view, the max dwell) that any EXR reader lists.

use super::Dwells;
use exr::meta::attribute::{AttributeValue, Text};
use exr::prelude::{
    AnyChannel, AnyChannels, Encoding, FlatSamples, Image, Layer, LayerAttributes, ReadChannels,
    ReadLayers, WritableImage,
};
use std::io::{BufRead, Seek, Write};

/// Channel names.
pub const DWELL_CHANNEL: &str = "dwell";
pub const NU_CHANNEL: &str = "nu";
pub const DE_CHANNEL: &str = "de";

/// Why the raw data could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DwellExrError {
    #[error("the dwells have no continuous values (render with smooth values)")]
    NoContinuousValues,
    #[error("{0}")]
    Exr(#[from] exr::error::Error),
    #[error("not a dwell EXR: {0}")]
    NotDwells(String),
}

/// Writes `dwells` (with their continuous values) as channels `dwell` and `nu` (and `de`
/// with their distance estimates), and each
/// (key, text) of `attributes` as a text attribute of the layer.
pub fn write_dwells_exr<W: Write + Seek>(
    dwells: &Dwells,
    attributes: &[(&str, &str)],
    w: W,
) -> Result<(), DwellExrError> {
    let nu = dwells
        .smooth
        .as_ref()
        .ok_or(DwellExrError::NoContinuousValues)?;
    let mut channels = vec![
        AnyChannel::new(DWELL_CHANNEL, FlatSamples::U32(dwells.values.clone())),
        AnyChannel::new(NU_CHANNEL, FlatSamples::F32(nu.clone())),
    ];
    if let Some(de) = &dwells.distance {
        channels.push(AnyChannel::new(DE_CHANNEL, FlatSamples::F32(de.clone())));
    }
    let mut layer_attributes = LayerAttributes::default();
    for (key, text) in attributes {
        layer_attributes
            .other
            .insert(Text::from(*key), AttributeValue::Text(Text::from(*text)));
    }
    let layer = Layer::new(
        (dwells.width as usize, dwells.height as usize),
        layer_attributes,
        Encoding::FAST_LOSSLESS,
        AnyChannels::sort(channels.into()),
    );
    Image::from_layer(layer).write().to_buffered(w)?;
    Ok(())
}

/// Reads what [`write_dwells_exr`] wrote: the dwells with their continuous values, and the
/// layer's text attributes.
pub fn read_dwells_exr(
    r: impl BufRead + Seek,
) -> Result<(Dwells, Vec<(String, String)>), DwellExrError> {
    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .from_buffered(r)?;
    let layer = image.layer_data;
    let (width, height) = (layer.size.0 as u32, layer.size.1 as u32);
    let channel = |name: &str| {
        layer
            .channel_data
            .list
            .iter()
            .find(|c| c.name == *name)
            .map(|c| &c.sample_data)
            .ok_or_else(|| DwellExrError::NotDwells(format!("no channel '{name}'")))
    };
    let values = match channel(DWELL_CHANNEL)? {
        FlatSamples::U32(v) => v.clone(),
        _ => return Err(DwellExrError::NotDwells("'dwell' is not u32".into())),
    };
    let nu = match channel(NU_CHANNEL)? {
        FlatSamples::F32(v) => v.clone(),
        _ => return Err(DwellExrError::NotDwells("'nu' is not f32".into())),
    };
    let distance = match channel(DE_CHANNEL).ok() {
        None => None,
        Some(FlatSamples::F32(v)) => Some(v.clone()),
        Some(_) => return Err(DwellExrError::NotDwells("'de' is not f32".into())),
    };
    let texts = layer
        .attributes
        .other
        .iter()
        .filter_map(|(k, v)| match v {
            AttributeValue::Text(t) => Some((k.to_string(), t.to_string())),
            _ => None,
        })
        .collect();
    let dwells = Dwells {
        width,
        height,
        values,
        smooth: Some(nu),
        distance,
    };
    Ok((dwells, texts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::{render_per_pixel, View};
    use std::io::Cursor;

    #[test]
    fn a_view_round_trips_with_its_attributes() {
        let view = View {
            width: 67,
            height: 41,
            max_dwell: 300,
            ..View::default()
        };
        let mut dwells = render_per_pixel(&view, true);
        assert!(dwells.values.contains(&300) && dwells.values.iter().any(|&d| d < 5));
        let distance = crate::mandelbrot::distances_from(&view, &dwells);
        assert!(distance.iter().any(|&d| d > 1.0));
        dwells.distance = Some(distance);
        let mut file = Cursor::new(Vec::new());
        let attributes = [
            ("cudalens.view", "re=-0.5, im=0, span=3"),
            ("cudalens.max_dwell", "300"),
        ];
        write_dwells_exr(&dwells, &attributes, &mut file).expect("write");
        file.set_position(0);
        let (back, texts) = read_dwells_exr(file).expect("read");
        assert_eq!(back, dwells);
        // Without distance estimates: no `de` channel, and none read back.
        let plain = Dwells {
            distance: None,
            ..dwells.clone()
        };
        let mut file = Cursor::new(Vec::new());
        write_dwells_exr(&plain, &[], &mut file).expect("write");
        file.set_position(0);
        assert_eq!(read_dwells_exr(file).expect("read").0, plain);
        for (k, v) in attributes {
            assert!(
                texts.contains(&(k.to_string(), v.to_string())),
                "{k}: {texts:?}"
            );
        }
    }

    #[test]
    fn dwells_without_continuous_values_are_refused() {
        let view = View {
            width: 4,
            height: 3,
            ..View::default()
        };
        let dwells = render_per_pixel(&view, false);
        let err = write_dwells_exr(&dwells, &[], Cursor::new(Vec::new())).expect_err("refused");
        assert!(matches!(err, DwellExrError::NoContinuousValues));
    }

    #[test]
    fn other_exr_files_are_not_dwells() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/typed/exr_float_y.exr"
        );
        let file = std::io::BufReader::new(std::fs::File::open(path).expect("file"));
        let err = read_dwells_exr(file).expect_err("no dwell channel");
        assert!(err.to_string().contains("no channel 'dwell'"), "{err}");
    }
}
