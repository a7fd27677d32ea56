//! Opening an input exactly once: a regular file is read through a buffer (seekable), any
//! other readable thing (a pipe, `/dev/stdin`, a FIFO, a character device) is read into
//! memory once, after its first bytes have named an image format. Opening never blocks:
//! a FIFO nobody writes to reads as empty instead of hanging.

use super::admission::LoadError;
use std::io::{BufRead, BufReader, Cursor, Read, Seek};
use std::path::Path;

/// Anything the decoders can read.
pub trait BufReadSeek: BufRead + Seek {}
impl<T: BufRead + Seek> BufReadSeek for T {}

/// Largest input read from a pipe or device (bytes of the file, not of the image).
pub const MAX_STREAM_BYTES: u64 = 4 << 30;

/// An opened input with the format its first bytes name.
pub struct Input {
    pub reader: Box<dyn BufReadSeek>,
    pub format: image::ImageFormat,
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> LoadError + '_ {
    move |source| LoadError::from_io(path, source)
}

fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    #[cfg(unix)]
    super::posix::clear_nonblocking(&file)?;
    Ok(file)
}

/// Reads until `buf` is full or the input ends; returns how many bytes were read.
fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match reader.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

fn format_of(path: &Path, head: &[u8]) -> Result<image::ImageFormat, LoadError> {
    if head.is_empty() {
        return Err(LoadError::NoData {
            path: path.to_path_buf(),
        });
    }
    // BigTIFF (version 43), which the image crate does not name.
    if head.starts_with(b"II\x2b\x00") || head.starts_with(b"MM\x00\x2b") {
        return Ok(image::ImageFormat::Tiff);
    }
    image::guess_format(head).map_err(|_| LoadError::UnknownFormat {
        path: path.to_path_buf(),
    })
}

/// Opens `path` once and names its format from its content (never from its extension).
pub fn open_input(path: &Path) -> Result<Input, LoadError> {
    let file = open_nonblocking(path).map_err(io_error(path))?;
    let meta = file.metadata().map_err(io_error(path))?;
    if meta.is_dir() {
        return Err(LoadError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let mut head = [0u8; 64];
    if meta.is_file() {
        let mut reader = BufReader::new(file);
        let n = read_up_to(&mut reader, &mut head).map_err(io_error(path))?;
        let format = format_of(path, &head[..n])?;
        reader.rewind().map_err(io_error(path))?;
        return Ok(Input {
            reader: Box::new(reader),
            format,
        });
    }
    // A stream: the first bytes decide before anything else is read (so /dev/zero or a
    // text pipe fails at once), then the rest is read into memory, once.
    let mut file = file;
    let n = read_up_to(&mut file, &mut head).map_err(io_error(path))?;
    let format = format_of(path, &head[..n])?;
    let mut bytes = head[..n].to_vec();
    file.take(MAX_STREAM_BYTES)
        .read_to_end(&mut bytes)
        .map_err(io_error(path))?;
    if bytes.len() as u64 >= MAX_STREAM_BYTES {
        return Err(LoadError::Decode {
            path: path.to_path_buf(),
            reason: format!("stream longer than {} GiB", MAX_STREAM_BYTES >> 30),
        });
    }
    Ok(Input {
        reader: Box::new(Cursor::new(bytes)),
        format,
    })
}

/// An input already in memory.
pub fn input_from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Input, LoadError> {
    let format = format_of(path, &bytes[..bytes.len().min(64)])?;
    Ok(Input {
        reader: Box::new(Cursor::new(bytes)),
        format,
    })
}
