//! Histograms: the frame's 256-bin RGBA8 histogram (`rgba8`, the GPU bin buffer's
//! layout) and ranged histograms of 8-bit, 16-bit and float images (`ranged`: any bin
//! count over a range, 64-bit counts, statistics from the data), their JSON document and
//! the drawing-independent parts of a plot.

mod bin_range;
mod data_stats;
mod document;
mod options_text;
pub mod plot;
mod ranged;
mod rgba8;

pub use bin_range::{BinRange, HistogramError, Slot, MAX_BINS};
pub use data_stats::DataStats;
pub use document::{document_of, histogram_document};
pub use options_text::{parse_bins, parse_range, OptionTextError};
pub use ranged::{
    channel_names, histogram_of_value_counts, integer_value_counts, luma_f32, luma_sample,
    ranged_histogram, resolve_range, HistogramOptions, RangedChannel, RangedHistogram,
    DEFAULT_BINS,
};
pub use rgba8::{ChannelStats, Histogram, ShownSelection, CHANNEL_NAMES, HISTOGRAM_BINS};
