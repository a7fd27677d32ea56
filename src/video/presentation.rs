//! Frames handed out in presentation order from a decoder that the demuxer feeds, the same
//! way for NVDEC and OpenH264: packets go in until a frame is ready, the frames a seek
//! skips are dropped, the end of the stream is sent once, and a stream that shows nothing
//! is an error.

use super::demux::{Packet, SeekStart};
use super::error::VideoError;

/// What a reader drops of the frames decoded from where [`Demuxer::seek_frame`] left it,
/// so that the first frame handed out is the one sought.
///
/// [`Demuxer::seek_frame`]: super::demux::Demuxer::seek_frame
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Skip {
    #[default]
    Nothing,
    /// Frames shown before this time.
    Before(i64),
    /// This many frames.
    First(u64),
}

impl From<SeekStart> for Skip {
    fn from(start: SeekStart) -> Self {
        match start {
            SeekStart::Pts(pts) => Skip::Before(pts),
            SeekStart::Count(n) => Skip::First(n),
        }
    }
}

impl Skip {
    /// Whether the next frame in presentation order, shown at `pts`, is dropped (counting
    /// it when counted).
    fn drops(&mut self, pts: i64) -> bool {
        match self {
            Skip::Nothing => false,
            Skip::Before(t) if pts < *t => true,
            Skip::First(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => {
                *self = Skip::Nothing;
                false
            }
        }
    }
}

/// Where a reader stands in its stream.
#[derive(Debug, Default)]
pub(super) struct Presentation {
    /// Decoded frames dropped before the one a seek asked for.
    skip: Skip,
    /// The end of the stream was sent to the decoder.
    ended: bool,
    /// A frame was shown since the reader opened (a stream with none is an error).
    shown_any: bool,
}

impl Presentation {
    /// Decoding starts again where a seek left the demuxer (`start`).
    pub(super) fn seek(&mut self, start: SeekStart) {
        self.skip = start.into();
        self.ended = false;
    }
}

/// A decoder fed packet by packet whose frames come out in presentation order.
pub(super) trait Presenting {
    type Frame;

    fn presentation(&mut self) -> &mut Presentation;

    /// The next frame ready to show and its time, if one is (`ended`: the end of the
    /// stream was sent, so every frame left is).
    fn ready(&mut self, ended: bool) -> Option<(i64, Self::Frame)>;

    /// The demuxer's next packet in decode order.
    fn packet(&mut self) -> Result<Option<Packet>, VideoError>;

    /// Gives the decoder `packet`, or (None) the end of the stream.
    fn send(&mut self, packet: Option<&Packet>) -> Result<(), VideoError>;

    /// The error of a stream that ended without showing a frame.
    fn no_frame(&self) -> VideoError;

    /// The next frame in presentation order (those a seek skips are dropped); None after
    /// the last. Each turn takes a frame, or sends a packet or the end: the demuxer's
    /// packets bound it.
    fn next_shown(&mut self) -> Result<Option<Self::Frame>, VideoError> {
        loop {
            let ended = self.presentation().ended;
            if let Some((pts, frame)) = self.ready(ended) {
                let p = self.presentation();
                if p.skip.drops(pts) {
                    continue;
                }
                p.shown_any = true;
                return Ok(Some(frame));
            }
            if ended {
                let p = self.presentation();
                if !p.shown_any && p.skip == Skip::Nothing {
                    return Err(self.no_frame());
                }
                return Ok(None);
            }
            match self.packet()? {
                Some(packet) => self.send(Some(&packet))?,
                None => {
                    self.send(None)?;
                    self.presentation().ended = true;
                }
            }
        }
    }
}
