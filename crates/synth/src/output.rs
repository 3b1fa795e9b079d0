//! Compressed file output on a second thread, so that compression overlaps generation.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::SynthCompression;

/// Size of the blocks handed to the writer thread.
pub(crate) const CHUNK: usize = 1 << 20;

/// The zstd level: the fastest ones already shrink access logs about tenfold.
const ZSTD_LEVEL: i32 = 1;

enum Encoder {
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
    Plain(BufWriter<File>),
}

impl Encoder {
    fn create(path: &Path, compression: SynthCompression) -> io::Result<Encoder> {
        let file = BufWriter::with_capacity(1 << 16, File::create(path)?);
        Ok(match compression {
            // The gzip header carries no name and a zero mtime: same seed, same bytes.
            SynthCompression::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::fast(),
            )),
            SynthCompression::Zstd => {
                Encoder::Zstd(zstd::stream::write::Encoder::new(file, ZSTD_LEVEL)?)
            }
            SynthCompression::Plain => Encoder::Plain(file),
        })
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Encoder::Gzip(e) => e.write_all(data),
            Encoder::Zstd(e) => e.write_all(data),
            Encoder::Plain(e) => e.write_all(data),
        }
    }

    fn finish(self) -> io::Result<()> {
        let mut file = match self {
            Encoder::Gzip(e) => e.finish()?,
            Encoder::Zstd(e) => e.finish()?,
            Encoder::Plain(e) => e,
        };
        file.flush()
    }
}

/// Writes one file from blocks that `fill` produces: `fill` appends to the buffer it is given
/// and returns `false` once it has appended its last data. Memory stays bounded: at most a few
/// blocks are in flight, and their buffers are reused. Returns the uncompressed byte count.
pub(crate) fn write_file(
    path: &Path,
    compression: SynthCompression,
    mut fill: impl FnMut(&mut Vec<u8>) -> bool,
) -> io::Result<u64> {
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = sync_channel::<Vec<u8>>(2);
        let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(4);
        let writer = scope.spawn(move || write_blocks(path, compression, &full_rx, &empty_tx));
        let mut total = 0u64;
        loop {
            let mut buffer = empty_rx
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(CHUNK + (CHUNK >> 3)));
            let more = fill(&mut buffer);
            total += buffer.len() as u64;
            // A send fails only when the writer stopped on an error, which `join` reports.
            if !buffer.is_empty() && full_tx.send(buffer).is_err() {
                break;
            }
            if !more {
                break;
            }
        }
        drop(full_tx);
        match writer.join() {
            Ok(result) => result.map(|()| total),
            Err(_) => Err(io::Error::other("the log writer thread panicked")),
        }
    })
}

fn write_blocks(
    path: &Path,
    compression: SynthCompression,
    full: &Receiver<Vec<u8>>,
    empty: &SyncSender<Vec<u8>>,
) -> io::Result<()> {
    let mut encoder = Encoder::create(path, compression)?;
    for mut block in full {
        encoder.write_all(&block)?;
        block.clear();
        // A full return queue just means the buffer is dropped; the generator allocates anew.
        let _ = empty.try_send(block);
    }
    encoder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn round_trip(compression: SynthCompression) -> (Vec<u8>, u64) {
        let dir = tempfile::tempdir().ok();
        let dir = dir.as_ref().map(|d| d.path()).unwrap_or(Path::new("."));
        let path = dir.join("out.bin");
        let mut block = 0;
        let written = write_file(&path, compression, |buf| {
            buf.extend(std::iter::repeat_n(b'a' + block, 1000));
            block += 1;
            block < 5
        })
        .unwrap_or(0);
        let raw = std::fs::read(&path).unwrap_or_default();
        let mut plain = Vec::new();
        let result = match compression {
            SynthCompression::Gzip => {
                flate2::read::GzDecoder::new(&raw[..]).read_to_end(&mut plain)
            }
            SynthCompression::Zstd => zstd::stream::read::Decoder::new(&raw[..])
                .and_then(|mut d| d.read_to_end(&mut plain)),
            SynthCompression::Plain => {
                plain = raw;
                Ok(0)
            }
        };
        assert!(result.is_ok());
        (plain, written)
    }

    #[test]
    fn every_compression_round_trips() {
        for compression in [
            SynthCompression::Gzip,
            SynthCompression::Zstd,
            SynthCompression::Plain,
        ] {
            let (plain, written) = round_trip(compression);
            assert_eq!(written, 5000);
            assert_eq!(plain.len(), 5000);
            assert!(plain[..1000].iter().all(|&b| b == b'a'));
            assert!(plain[4000..].iter().all(|&b| b == b'e'));
        }
    }

    #[test]
    fn unwritable_path_is_an_error() {
        let result = write_file(
            Path::new("/nonexistent-dir/for/sure/x.log"),
            SynthCompression::Plain,
            |buf| {
                buf.push(b'x');
                true
            },
        );
        assert!(result.is_err());
    }
}
