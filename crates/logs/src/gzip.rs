//! One gzip file inflated on several threads, and the thread budget every file of a run shares.
//!
//! A regular gzip file of at least [`PARALLEL_FROM`] bytes, opened while the run has threads to
//! spare, is inflated by rapidgzip's marker/window algorithm (the `rapidgzip-core` crate): decoder
//! threads inflate chunks of the file speculatively from guessed block starts, resolve their
//! references into the unknown window once the chunk before is done, and hand the chunks back in
//! order, so the reader sees the very bytes a serial inflate gives. A file of many members (`cat`
//! of gzip files, nginx's gzip logs, BGZF) is inflated member by member in parallel; once the
//! decoder has found members, it is started again with tasks of [`DENSE_MEMBER_SPAN`], which
//! gather small members. Everything else (standard input, pipes, small files, a run with no
//! thread to spare) is inflated by flate2 on the thread that reads it. The decoding tasks of
//! every file together run on at most the run's threads (one shared pool), and on fewer when the
//! caller lends fewer ([`Decoding::lend_threads`]); they work while the thread that reads the
//! file waits for their output. [`Decoding::busy_threads`] counts the tasks running, so that a
//! caller can keep its own threads and theirs to one budget.
//!
//! The decoder times a stretch of the file serially and speculatively before it hands out a
//! byte, and inflates the file serially when speculation would not pay (a busy machine, a file of
//! few chunks); the file then goes back to flate2, which inflates serially for less CPU: flate2
//! reads it again from its start and passes over the bytes already handed out.
//!
//! Damage (a file cut short, corrupt data, a bad checksum, trailing garbage) ends the reading as
//! on the serial path: every byte inflated before it is delivered, then the error. Damage before
//! the first bytes are handed out is found and named by flate2; damage the decoder's threads meet
//! further on is named by them, with the compressed offset where they met it. Corrupt data
//! inflates to garbage for a while before a decoder notices, and flate2 drops the bytes of the
//! read in which it notices, so in such a file the two paths may stop a few hundred kilobytes
//! apart; a file cut short or followed by garbage stops at the same byte on both.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::bufread::MultiGzDecoder;
use rapidgzip_core::{DecoderPath, DecoderPool, DecoderReader, ReadAt};

/// The smallest gzip file inflated in parallel, in compressed bytes. The decoder cuts a file into
/// chunks of 1 MiB of compressed input and speculates only on 16 chunks or more; a smaller file
/// would be handed back to flate2 after its first chunk was inflated twice.
pub const PARALLEL_FROM: u64 = 16 << 20;

/// The compressed span of a decoder task in a file of gzip members (nginx's `access_log ...
/// gzip` writes one member per buffer of 64 KiB). At the decoder's usual span of 1 MiB, members
/// more than 4 KiB apart are each a task and a hand-off of their own: a 4,000,000-line file of
/// 64 KiB members took 3.6 to 4.1 s to inflate on two threads, where flate2 took 1.6 to 2.2 s on
/// one.
/// At this span members up to 32 KiB apart are gathered into tasks, and such a file took 1.4 s
/// (BENCHMARKS.md, "Many small gzip members").
const DENSE_MEMBER_SPAN: usize = 8 << 20;

/// The first bytes of a gzip member.
pub(crate) const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Buffer under flate2 when it takes a file over (as for every other input).
const INPUT_BUFFER: usize = 256 * 1024;

/// How the gzip files of a run are inflated: on how many threads, shared by every file read at
/// once.
///
/// ```
/// use robots_audit_logs::Decoding;
///
/// assert_eq!(Decoding::serial().threads(), 1);
/// assert_eq!(Decoding::parallel(4).threads(), 4);
/// assert_eq!(Decoding::parallel(1).threads(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct Decoding {
    /// Decoder threads of the run; `None` inflates every file on its reading thread.
    pool: Option<(usize, DecoderPool)>,
    parallel_from: u64,
}

impl Decoding {
    /// Every file inflated on the thread that reads it.
    pub fn serial() -> Decoding {
        Decoding {
            pool: None,
            parallel_from: PARALLEL_FROM,
        }
    }

    /// Regular gzip files of at least [`PARALLEL_FROM`] bytes inflated on up to `threads`
    /// decoder threads, counted over every file inflated at once; the rest as
    /// [`Decoding::serial`]. One thread is [`Decoding::serial`].
    pub fn parallel(threads: usize) -> Decoding {
        let pool = (threads >= 2)
            .then(|| DecoderPool::builder().workers(threads).build().ok())
            .flatten();
        Decoding {
            pool: pool.map(|pool| (threads, pool)),
            parallel_from: PARALLEL_FROM,
        }
    }

    /// Inflates in parallel from `bytes` of compressed input on, instead of [`PARALLEL_FROM`]:
    /// for tests that put small files on the parallel path.
    pub fn parallel_from(mut self, bytes: u64) -> Decoding {
        self.parallel_from = bytes;
        self
    }

    /// The decoder threads one file may use.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |(threads, _)| *threads)
    }

    /// Lets the decoder threads of every file together run at most `threads` at once from now
    /// on, within 1 and [`Decoding::threads`]: a caller whose own threads are busy lends the
    /// decoders only those that wait, so that the two together keep to its budget. Tasks
    /// already running finish first.
    pub fn lend_threads(&self, threads: usize) {
        if let Some((most, pool)) = &self.pool {
            // Within 1..=most, the only limits the pool refuses are ruled out.
            let _ = pool.set_worker_limit(threads.clamp(1, *most));
        }
    }

    /// How many decoding tasks of every file together are inflating at this moment, as the
    /// pool last counted them; 0 without decoder threads. A task goes on when
    /// [`Decoding::lend_threads`] lowers the limit under it, and counts until it finishes: a
    /// caller that keeps its own threads and these to one budget waits on this count, not on
    /// the limit it set.
    pub fn busy_threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(0, |(_, pool)| pool.stats().busy_workers)
    }

    /// The parallel decoder for `file`, when it is one to inflate in parallel: a regular gzip
    /// file, big enough, with threads to use.
    pub(crate) fn open(&self, file: &File) -> io::Result<Option<ParallelGzip>> {
        if self.pool.is_none() {
            return Ok(None);
        }
        let metadata = file.metadata()?;
        if !metadata.is_file() || metadata.len() < self.parallel_from {
            return Ok(None);
        }
        // Read by position, so that the file's cursor is still at its start for a serial read.
        let mut magic = [0u8; MAGIC.len()];
        if ReadAt::read_at(file, 0, &mut magic)? < MAGIC.len() || magic != MAGIC {
            return Ok(None);
        }
        let input = Positional {
            file: Arc::new(file.try_clone()?),
            reached: Arc::new(AtomicU64::new(0)),
        };
        let stage = match self.decoder(None)?.reader(input.clone()) {
            Ok(reader) => Stage::Parallel(Box::new(reader)),
            // The first member's header is checked at once: flate2 reads the file, and says
            // what is wrong with it, as for any gzip input.
            Err(_) => Stage::Serial(Box::new(input.serial())),
        };
        Ok(Some(ParallelGzip {
            input,
            stage,
            delivered: 0,
            path_checked: false,
            decoding: self.clone(),
        }))
    }

    /// The parallel decoder on this run's threads, with tasks of `span` compressed bytes or of
    /// the decoder's usual span.
    fn decoder(&self, span: Option<usize>) -> io::Result<rapidgzip_core::Decoder> {
        let Some((threads, pool)) = &self.pool else {
            return Err(io::Error::other("no decoder threads"));
        };
        let mut builder = rapidgzip_core::Decoder::builder()
            .decoder_threads(*threads)
            .decoder_pool(pool.clone());
        if let Some(span) = span {
            builder = builder.compressed_chunk_size(span);
        }
        builder.build().map_err(io::Error::other)
    }
}

/// The compressed file, read by position from any thread; remembers how far into it reads have
/// reached (for progress and `inputs.csv`'s `bytes_read`).
#[derive(Clone)]
struct Positional {
    file: Arc<File>,
    reached: Arc<AtomicU64>,
}

impl ReadAt for Positional {
    fn len(&self) -> io::Result<u64> {
        ReadAt::len(&*self.file)
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(offset, buffer)?;
        self.reached.fetch_max(offset + n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl Positional {
    /// flate2 reading the file from its start.
    fn serial(&self) -> MultiGzDecoder<BufReader<Sequential>> {
        MultiGzDecoder::new(BufReader::with_capacity(
            INPUT_BUFFER,
            Sequential {
                input: self.clone(),
                at: 0,
            },
        ))
    }
}

/// The file read from its start through positional reads, which leave the shared cursor alone.
struct Sequential {
    input: Positional,
    at: u64,
}

impl Read for Sequential {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read_at(self.at, buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

enum Stage {
    Parallel(Box<DecoderReader>),
    /// The parallel decoder chose to inflate serially: flate2 reads the file again; the bytes the
    /// parallel decoder delivered are passed over.
    Serial(Box<MultiGzDecoder<BufReader<Sequential>>>),
}

/// A gzip file inflated on the threads of a [`Decoding`], read in order.
pub(crate) struct ParallelGzip {
    input: Positional,
    stage: Stage,
    /// Decompressed bytes handed out.
    delivered: u64,
    /// Whether the decoder's choice of path has been looked at (after its first bytes).
    path_checked: bool,
    /// The threads it was opened with, to open it again.
    decoding: Decoding,
}

impl ParallelGzip {
    /// How far into the compressed file reads have reached.
    pub(crate) fn compressed_bytes_read(&self) -> u64 {
        self.input.reached.load(Ordering::Relaxed)
    }

    /// Hands the reading over to flate2, past the `delivered` bytes already handed out.
    fn read_serially_from_here(&mut self) -> io::Result<()> {
        let mut serial = self.input.serial();
        self.pass_over_delivered(&mut serial)?;
        self.stage = Stage::Serial(Box::new(serial));
        Ok(())
    }

    /// The decoder started again with tasks of [`DENSE_MEMBER_SPAN`], past the `delivered`
    /// bytes already handed out.
    fn gathering_members(&self) -> io::Result<DecoderReader> {
        let mut gathering = self
            .decoding
            .decoder(Some(DENSE_MEMBER_SPAN))?
            .reader(self.input.clone())
            .map_err(io::Error::other)?;
        self.pass_over_delivered(&mut gathering)?;
        Ok(gathering)
    }

    /// Reads and drops the `delivered` bytes from the start of the file.
    fn pass_over_delivered(&self, from_start: &mut impl Read) -> io::Result<()> {
        let passed = io::copy(&mut from_start.take(self.delivered), &mut io::sink())?;
        if passed < self.delivered {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file was cut short while it was read",
            ));
        }
        Ok(())
    }
}

impl Read for ParallelGzip {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let reader = match &mut self.stage {
            Stage::Parallel(reader) => reader,
            Stage::Serial(decoder) => return decoder.read(buf),
        };
        let read = reader.read(buf);
        if let Ok(n) = read {
            self.delivered += n as u64;
        }
        if !self.path_checked {
            self.path_checked = true;
            let path = reader.stats().path;
            // Damage before the first bytes is flate2's to find and name, as on the serial path.
            if read.is_err() || path == DecoderPath::Sequential {
                self.read_serially_from_here()?;
                if read.is_err() {
                    return self.read(buf);
                }
            } else if path == DecoderPath::DenseMembers {
                // A decoder that cannot start again (the file changed under it) leaves the one
                // that found the members reading, which meets the change where it is.
                if let Ok(gathering) = self.gathering_members() {
                    self.stage = Stage::Parallel(Box::new(gathering));
                }
            }
        }
        read
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::sample::Index;

    use super::*;

    /// Log-like lines of hex noise: they compress about 2:1 with Huffman codes (not as stored
    /// blocks, which rapidgzip copies on a path of their own), so a file of `compressed` bytes
    /// holds the marker/window decoder's chunks.
    fn noisy_log(compressed: usize) -> Vec<u8> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut out = Vec::with_capacity(compressed * 2);
        let mut line = 0u64;
        while out.len() < compressed * 2 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            line += 1;
            writeln!(
                out,
                "192.0.2.{} - - GET /{state:016x}/{line} Bot/{}",
                line % 250,
                state % 7
            )
            .unwrap();
        }
        out
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    /// Everything `read` gives before its end or first error, and the error.
    fn drain(mut read: impl Read) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        let mut buffer = vec![0; 256 * 1024];
        loop {
            match read.read(&mut buffer) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buffer[..n]),
                Err(error) => return (out, Some(error.to_string())),
            }
        }
    }

    /// `compressed` through [`ParallelGzip`] on two threads: what it delivered, its error, the
    /// path the decoder took, and how far into the file it read.
    fn parallel(compressed: &[u8]) -> (Vec<u8>, Option<String>, DecoderPath, u64) {
        let file = tempfile::tempfile().unwrap();
        (&file).write_all(compressed).unwrap();
        let mut gzip = Decoding::parallel(2)
            .parallel_from(0)
            .open(&file)
            .unwrap()
            .expect("a regular gzip file goes to the parallel decoder");
        let reached = gzip.input.reached.clone();
        let (out, error) = drain(&mut gzip);
        // Handed over to flate2 when the decoder chose to inflate serially.
        let path = match &gzip.stage {
            Stage::Parallel(reader) => reader.stats().path,
            Stage::Serial(_) => DecoderPath::Sequential,
        };
        (out, error, path, reached.load(Ordering::Relaxed))
    }

    fn flate2(compressed: &[u8]) -> (Vec<u8>, Option<String>) {
        drain(MultiGzDecoder::new(compressed))
    }

    /// A file of 24 MiB compressed: the marker/window decoder needs 16 chunks of 1 MiB.
    fn big() -> &'static (Vec<u8>, Vec<u8>) {
        static BIG: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
        BIG.get_or_init(|| {
            let data = noisy_log(24 << 20);
            let compressed = gzip(&data);
            (data, compressed)
        })
    }

    #[test]
    fn a_big_file_is_read_whole_on_two_threads() {
        let (data, compressed) = big();
        assert!(compressed.len() > 16 << 20, "{}", compressed.len());
        let (out, error, path, reached) = parallel(compressed);
        assert_eq!(error, None);
        assert!(out == *data, "{} bytes of {}", out.len(), data.len());
        assert_eq!(reached, compressed.len() as u64);
        // The decoder times a few chunks before it chooses; on a busy machine it may choose to
        // inflate serially, which reads the same bytes.
        assert!(
            matches!(path, DecoderPath::MarkerWindow | DecoderPath::Sequential),
            "{path:?}"
        );
    }

    /// Every kind of damage, anywhere: the parallel path delivers every byte inflated before
    /// it, as flate2 does, then an error. A file cut short or followed by garbage stops at the
    /// same byte; corrupt data within a few hundred kilobytes, the bytes before agreeing.
    #[test]
    fn damage_reads_as_flate2_reads_it() {
        let (data, compressed) = big();
        let n = compressed.len();
        let corrupt = |at: usize| {
            let mut bytes = compressed.clone();
            for byte in &mut bytes[at..at + 64] {
                *byte ^= 0x55;
            }
            bytes
        };
        let (first, second) = data.split_at(data.len() / 2);
        let mut damaged_member = gzip(second);
        let middle = damaged_member.len() / 2;
        for byte in &mut damaged_member[middle..middle + 64] {
            *byte ^= 0x55;
        }
        let mut bad_crc = compressed.clone();
        bad_crc[n - 8] ^= 1;
        let cases = [
            ("cut at 70 %", compressed[..n * 7 / 10].to_vec(), true),
            ("cut in the footer", compressed[..n - 4].to_vec(), true),
            ("a bad CRC", bad_crc, true),
            (
                "trailing garbage",
                [&compressed[..], b"garbage\n"].concat(),
                true,
            ),
            (
                "a member cut in its header",
                [&compressed[..], &MAGIC].concat(),
                true,
            ),
            ("corrupt in the middle", corrupt(n / 2), false),
            ("corrupt near the start", corrupt(100_000), false),
            (
                "a damaged member in the middle",
                [gzip(first), damaged_member, gzip(b"last\n")].concat(),
                false,
            ),
        ];
        for (what, bytes, exact) in cases {
            let (serial, serial_error) = flate2(&bytes);
            let (out, error, _, _) = parallel(&bytes);
            assert!(serial_error.is_some(), "{what}: flate2 finds the damage");
            assert!(error.is_some(), "{what}: the parallel path finds it");
            let common = out.len().min(serial.len());
            assert!(out[..common] == serial[..common], "{what}");
            if exact {
                assert_eq!(out.len(), serial.len(), "{what}");
            } else {
                assert!(
                    out.len().abs_diff(serial.len()) < 1 << 20,
                    "{what}: {} and {}",
                    out.len(),
                    serial.len()
                );
            }
        }
    }

    /// `data` in gzip members of about 1 MiB compressed each, then an empty one, as `cat` of
    /// rotated pieces or a parallel compressor writing members gives: the decoder inflates the
    /// members on its threads.
    fn members(data: &[u8]) -> Vec<u8> {
        members_of(data, 2 << 20)
    }

    /// `data` in gzip members of `piece` bytes each, then an empty one.
    fn members_of(data: &[u8], piece: usize) -> Vec<u8> {
        let mut members: Vec<u8> = data.chunks(piece).flat_map(gzip).collect();
        members.extend(gzip(b""));
        members
    }

    /// `data` as BGZF (the gzip of samtools and tabix): members of at most 64 KiB, each naming
    /// its size in a `BC` extra field, and the 28-byte empty member that ends the file.
    fn bgzf(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for piece in data.chunks(0xff00) {
            let mut deflate =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
            deflate.write_all(piece).unwrap();
            let deflated = deflate.finish().unwrap();
            let size = u16::try_from(18 + deflated.len() + 8 - 1).unwrap();
            let mut crc = flate2::Crc::new();
            crc.update(piece);
            out.extend([
                0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0,
            ]);
            out.extend(size.to_le_bytes());
            out.extend(deflated);
            out.extend(crc.sum().to_le_bytes());
            out.extend(u32::try_from(piece.len()).unwrap().to_le_bytes());
        }
        out.extend([
            0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0, 0x1b, 0, 3, 0, 0, 0, 0,
            0, 0, 0, 0, 0,
        ]);
        out
    }

    /// Many members and BGZF take paths of their own that do not time anything first: they are
    /// inflated in parallel on any machine, busy or not.
    #[test]
    fn members_and_bgzf_blocks_are_inflated_in_parallel() {
        let (data, _) = big();
        for (what, compressed, path) in [
            ("members", members(data), DecoderPath::DenseMembers),
            (
                "small members",
                members_of(data, 64 << 10),
                DecoderPath::DenseMembers,
            ),
            ("BGZF", bgzf(data), DecoderPath::Bgzf),
        ] {
            assert_eq!(flate2(&compressed), (data.clone(), None), "{what}");
            let (out, error, taken, reached) = parallel(&compressed);
            assert_eq!(error, None, "{what}");
            assert!(out == *data, "{what}");
            assert_eq!(taken, path, "{what}");
            assert_eq!(reached, compressed.len() as u64, "{what}");
        }
    }

    /// A file of members is read by a decoder that gathers them into tasks of
    /// [`DENSE_MEMBER_SPAN`]: the one that found them is dropped after its first bytes, and the
    /// bytes come whole and once.
    #[test]
    fn members_are_gathered_into_tasks_after_the_first_bytes() {
        let (data, _) = big();
        let file = tempfile::tempfile().unwrap();
        (&file).write_all(&members_of(data, 64 << 10)).unwrap();
        let mut gzip = Decoding::parallel(2)
            .parallel_from(0)
            .open(&file)
            .unwrap()
            .expect("a regular gzip file goes to the parallel decoder");
        let Stage::Parallel(finding) = &gzip.stage else {
            panic!("the parallel decoder at first");
        };
        let finding = finding.handle();
        let mut out = Vec::new();
        gzip.read_to_end(&mut out).unwrap();
        assert!(out == *data, "{} bytes of {}", out.len(), data.len());
        assert!(finding.stats().consumed_bytes < data.len() as u64 / 2);
        let Stage::Parallel(gathering) = &gzip.stage else {
            panic!("the parallel decoder to the end");
        };
        assert_eq!(gathering.stats().path, DecoderPath::DenseMembers);
        assert_eq!(gathering.stats().consumed_bytes, data.len() as u64);
    }

    /// Damage met by the decoder's own threads: the members before it come whole, then the
    /// error, as flate2 reads it.
    #[test]
    fn a_damaged_member_among_many_ends_the_reading_there() {
        let (data, _) = big();
        let compressed = members(data);
        let cut = compressed.len() / 2;
        let mut corrupt = compressed.clone();
        for byte in &mut corrupt[cut..cut + 64] {
            *byte ^= 0x55;
        }
        let small = members_of(data, 64 << 10);
        let mut small_corrupt = small.clone();
        let small_cut = small.len() / 2;
        for byte in &mut small_corrupt[small_cut..small_cut + 64] {
            *byte ^= 0x55;
        }
        let mut bgzf_cut = bgzf(data);
        bgzf_cut.truncate(bgzf_cut.len() / 2);
        let cases = [
            ("a corrupt member", corrupt, false),
            ("cut short", compressed[..cut].to_vec(), true),
            (
                "garbage after",
                [&compressed[..], b"garbage\n"].concat(),
                true,
            ),
            ("BGZF cut short", bgzf_cut, true),
            ("a corrupt small member", small_corrupt, false),
            ("small members cut short", small[..small_cut].to_vec(), true),
        ];
        for (what, bytes, exact) in cases {
            let (serial, serial_error) = flate2(&bytes);
            let (out, error, _, _) = parallel(&bytes);
            assert!(serial_error.is_some() && error.is_some(), "{what}");
            let common = out.len().min(serial.len());
            assert!(out[..common] == serial[..common], "{what}");
            assert!(
                common > data.len() / 3,
                "{what}: {common} bytes before the damage"
            );
            if exact {
                assert_eq!(out.len(), serial.len(), "{what}");
            } else {
                assert!(
                    out.len().abs_diff(serial.len()) < 1 << 20,
                    "{what}: {} and {}",
                    out.len(),
                    serial.len()
                );
            }
        }
    }

    /// The same 1 MiB of lines as members of 16 KiB, as members of 256 KiB and as BGZF: files
    /// the decoder's threads inflate whatever their size, to be damaged.
    fn files_of_members() -> &'static [Vec<u8>; 3] {
        static FILES: std::sync::OnceLock<[Vec<u8>; 3]> = std::sync::OnceLock::new();
        FILES.get_or_init(|| {
            let data = noisy_log(512 << 10);
            [
                members_of(&data, 16 << 10),
                members_of(&data, 256 << 10),
                bgzf(&data),
            ]
        })
    }

    /// Damage as disks, copies and careless tools do it.
    #[derive(Debug, Clone)]
    enum Damage {
        /// Bits flipped here and there.
        Flips(Vec<(Index, u8)>),
        /// A run of bytes overwritten.
        Overwritten(Index, Vec<u8>),
        /// The file cut short.
        Cut(Index),
        /// Bytes inserted.
        Inserted(Index, Vec<u8>),
        /// A run of bytes gone.
        Deleted(Index, usize),
        /// Bytes of a member's header past its magic (flags, times, extra field, BGZF's size)
        /// overwritten: the member that starts at or after the index.
        Header(Index, Vec<(usize, u8)>),
    }

    impl Damage {
        fn strategy() -> impl Strategy<Value = Damage> {
            let index = any::<Index>;
            prop_oneof![
                vec((index(), 1..=u8::MAX), 1..8).prop_map(Damage::Flips),
                (index(), vec(any::<u8>(), 1..256))
                    .prop_map(|(at, bytes)| Damage::Overwritten(at, bytes)),
                index().prop_map(Damage::Cut),
                (index(), vec(any::<u8>(), 1..64))
                    .prop_map(|(at, bytes)| Damage::Inserted(at, bytes)),
                (index(), 1..64usize << 10).prop_map(|(at, len)| Damage::Deleted(at, len)),
                (index(), vec((3..20usize, any::<u8>()), 1..4))
                    .prop_map(|(at, bytes)| Damage::Header(at, bytes)),
            ]
        }

        fn apply(&self, file: &mut Vec<u8>) {
            let len = file.len();
            match self {
                Damage::Flips(flips) => {
                    for (at, mask) in flips {
                        file[at.index(len)] ^= mask;
                    }
                }
                Damage::Overwritten(at, bytes) => {
                    let at = at.index(len);
                    let end = (at + bytes.len()).min(len);
                    file[at..end].copy_from_slice(&bytes[..end - at]);
                }
                Damage::Cut(at) => file.truncate(at.index(len)),
                Damage::Inserted(at, bytes) => {
                    file.splice(at.index(len)..at.index(len), bytes.iter().copied());
                }
                Damage::Deleted(at, gone) => {
                    let at = at.index(len);
                    file.drain(at..(at + gone).min(len));
                }
                Damage::Header(at, bytes) => {
                    let from = at.index(len);
                    let member = file[from..]
                        .windows(3)
                        .position(|bytes| bytes == [0x1f, 0x8b, 8])
                        .map_or(0, |found| from + found);
                    for &(offset, byte) in bytes {
                        if let Some(slot) = file.get_mut(member + offset) {
                            *slot = byte;
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Damage anywhere in a file of members (the paths on which the decoder's threads meet
        /// it): the parallel path fails whenever flate2 does, delivers the bytes flate2 delivers
        /// up to where the first of the two stopped, and all of them when neither fails.
        #[test]
        fn damage_to_members_reads_as_flate2_reads_it(
            file in 0..3usize,
            damage in Damage::strategy(),
        ) {
            let mut damaged = files_of_members()[file].clone();
            damage.apply(&mut damaged);
            prop_assume!(damaged.starts_with(&MAGIC));
            let (serial, serial_error) = flate2(&damaged);
            let (out, error, _, _) = parallel(&damaged);
            let common = out.len().min(serial.len());
            prop_assert!(out[..common] == serial[..common]);
            prop_assert_eq!(
                error.is_some(),
                serial_error.is_some(),
                "{:?} and {:?}",
                error,
                serial_error
            );
            if error.is_none() {
                prop_assert_eq!(out.len(), serial.len());
            }
        }
    }

    #[test]
    fn decoders_run_on_the_threads_lent_them_within_their_own() {
        let decoding = Decoding::parallel(4);
        let limit = || {
            decoding
                .pool
                .as_ref()
                .map(|(_, pool)| pool.stats().worker_limit)
        };
        assert_eq!(limit(), Some(4));
        for (lent, runs) in [(1, 1), (3, 3), (0, 1), (9, 4), (4, 4), (2, 2)] {
            decoding.lend_threads(lent);
            assert_eq!(limit(), Some(runs), "{lent} lent");
        }
        Decoding::serial().lend_threads(2);
        assert_eq!(decoding.busy_threads(), 0, "an idle pool");
        assert_eq!(Decoding::serial().busy_threads(), 0);
    }

    #[test]
    fn the_tasks_counted_busy_keep_within_the_decoders_threads_and_end_with_the_file() {
        let (data, compressed) = big();
        let file = tempfile::tempfile().unwrap();
        (&file).write_all(compressed).unwrap();
        let decoding = Decoding::parallel(2).parallel_from(0);
        let mut gzip = decoding.open(&file).unwrap().unwrap();
        let mut buffer = vec![0; 256 * 1024];
        let mut read = 0;
        loop {
            assert!(decoding.busy_threads() <= 2, "{}", decoding.busy_threads());
            match gzip.read(&mut buffer).unwrap() {
                0 => break,
                n => read += n,
            }
        }
        assert_eq!(read, data.len());
        drop(gzip);
        // A task gives its thread back just after its last output, so allow it a moment.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while decoding.busy_threads() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(decoding.busy_threads(), 0);
    }

    #[test]
    fn small_files_pipes_and_other_compressions_are_not_for_the_parallel_decoder() {
        let small = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(small.path(), gzip(b"a\n")).unwrap();
        let file = File::open(small.path()).unwrap();
        assert!(Decoding::parallel(2).open(&file).unwrap().is_none());
        assert!(
            Decoding::serial()
                .parallel_from(0)
                .open(&file)
                .unwrap()
                .is_none()
        );
        assert!(
            Decoding::parallel(1)
                .parallel_from(0)
                .open(&file)
                .unwrap()
                .is_none()
        );
        let parallel = Decoding::parallel(2).parallel_from(0);
        assert!(parallel.open(&file).unwrap().is_some());
        std::fs::write(small.path(), zstd::encode_all(&b"a\n"[..], 1).unwrap()).unwrap();
        let file = File::open(small.path()).unwrap();
        assert!(parallel.open(&file).unwrap().is_none());
        let directory = File::open(std::env::temp_dir()).unwrap();
        assert!(parallel.open(&directory).unwrap().is_none());
    }
}
