//! Opening an input: a file or standard input, decompressed by what its first bytes say, and
//! fingerprinted by what it holds once decompressed.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Chain, Cursor, Read};
use std::path::PathBuf;

use flate2::bufread::MultiGzDecoder;
use twox_hash::XxHash3_128;

use crate::gzip::{self, Decoding, ParallelGzip};

/// Where a log comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// A file on disk.
    Path(PathBuf),
    /// Standard input (`-` on the command line).
    Stdin,
}

impl Source {
    /// The source a command-line argument names: `-` is standard input, anything else a path.
    ///
    /// ```
    /// use robots_audit_logs::Source;
    ///
    /// assert_eq!(Source::from_arg("-".as_ref()), Source::Stdin);
    /// assert_eq!(Source::from_arg("a.log".as_ref()), Source::Path("a.log".into()));
    /// ```
    pub fn from_arg(arg: &std::ffi::OsStr) -> Source {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::Path(PathBuf::from(arg))
        }
    }
}

impl fmt::Display for Source {
    /// The path as given (lossy for non-UTF-8 names), or `-` for standard input, as reports
    /// name the file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Path(path) => write!(f, "{}", path.display()),
            Source::Stdin => f.write_str("-"),
        }
    }
}

/// How an input is compressed, as its magic bytes say (never its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// gzip (`1f 8b`), including multi-member files (`cat a.gz b.gz`, pigz).
    Gzip,
    /// Zstandard (`28 b5 2f fd`, or a skippable frame first as pzstd writes), including several
    /// concatenated frames.
    Zstd,
    /// xz (`fd 37 7a 58 5a 00`), including several concatenated streams (`cat a.xz b.xz`,
    /// `xz -T0`'s blocks are one stream).
    Xz,
    /// bzip2 (`BZh` and a block-size digit), including several concatenated streams as
    /// `pbzip2` and `cat a.bz2 b.bz2` write.
    Bzip2,
    /// Anything else: read as it is.
    Plain,
}

impl Compression {
    /// The compression whose magic bytes start `prefix`.
    ///
    /// ```
    /// use robots_audit_logs::Compression;
    ///
    /// assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
    /// assert_eq!(Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd]), Compression::Zstd);
    /// assert_eq!(Compression::sniff(&[0xfd, b'7', b'z', b'X', b'Z', 0]), Compression::Xz);
    /// assert_eq!(Compression::sniff(b"BZh9"), Compression::Bzip2);
    /// assert_eq!(Compression::sniff(b"127.0.0.1 - -"), Compression::Plain);
    /// ```
    pub fn sniff(prefix: &[u8]) -> Compression {
        if prefix.starts_with(&gzip::MAGIC) {
            Compression::Gzip
        } else if prefix.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if matches!(prefix, [b'B', b'Z', b'h', b'1'..=b'9', ..]) {
            Compression::Bzip2
        } else if prefix.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            || matches!(prefix, [0x50..=0x5f, 0x2a, 0x4d, 0x18, ..])
        {
            Compression::Zstd
        } else {
            Compression::Plain
        }
    }

    /// `gzip`, `zstd`, `xz`, `bzip2` or `plain`, as `inputs.csv` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
            Compression::Plain => "plain",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Counts the bytes read through it, so that progress can be reported in compressed bytes.
pub(crate) struct Counting<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// The raw input with the magic bytes that were read to sniff it put back in front.
pub(crate) type Raw = Chain<Cursor<Vec<u8>>, Counting<Box<dyn Read + Send>>>;

/// Buffer size for reading compressed input: large enough that a read is one system call per
/// several hundred lines.
const INPUT_BUFFER: usize = 256 * 1024;

/// The longest magic sniffed: xz's six bytes.
const MAGIC_LEN: usize = 6;

/// The most memory the xz decoder may take: a dictionary of up to 128 MiB, as much as zstd's
/// default window limit allows (`xz -9` writes 64 MiB), and room for the decoder's own state.
/// A stream's header names its dictionary, up to 4 GiB, and liblzma fills all of it as it
/// decodes: a 450 KB file of 3 GB of lines held 3 GB of memory. A bigger stream is damage.
const XZ_MEMORY_LIMIT: u64 = (128 << 20) + (1 << 20);

/// The decompressor of one input.
enum Stream {
    Plain(Raw),
    Gzip(Box<MultiGzDecoder<BufReader<Raw>>>),
    ParallelGzip(Box<ParallelGzip>),
    Zstd(Box<zstd::stream::read::Decoder<'static, BufReader<Raw>>>),
    Xz(Box<liblzma::bufread::XzDecoder<BufReader<Raw>>>),
    Bzip2(Box<bzip2::bufread::MultiBzDecoder<BufReader<Raw>>>),
}

/// The decompressing reader of one input, which fingerprints what it decompresses: XXH3-128 of
/// the decompressed bytes, so that merged reports recognise an input they hold twice however it
/// was compressed (`a.log` and `a.log.gz` are one input). The bytes are hashed as they are read,
/// in order, while they are in the cache.
pub(crate) struct Decoder {
    stream: Stream,
    fingerprint: Box<XxHash3_128>,
}

impl Decoder {
    /// Opens `source` and sniffs its compression; a gzip file `decoding` puts on several threads
    /// is inflated there.
    pub(crate) fn open(source: &Source, decoding: &Decoding) -> io::Result<Decoder> {
        match source {
            Source::Path(path) => {
                let file = File::open(path)?;
                match decoding.open(&file)? {
                    Some(gzip) => Ok(Decoder::with_stream(Stream::ParallelGzip(Box::new(gzip)))),
                    None => Decoder::new(Box::new(file)),
                }
            }
            Source::Stdin => Decoder::new(Box::new(io::stdin())),
        }
    }

    fn with_stream(stream: Stream) -> Decoder {
        Decoder {
            stream,
            fingerprint: Box::new(XxHash3_128::new()),
        }
    }

    /// Sniffs the compression of `input` from its first bytes.
    pub(crate) fn new(input: Box<dyn Read + Send>) -> io::Result<Decoder> {
        let mut counting = Counting {
            inner: input,
            count: 0,
        };
        let mut magic = Vec::with_capacity(MAGIC_LEN);
        // A pipe may hand over fewer bytes than asked for, so the magic is read until it is
        // complete or the input ends.
        (&mut counting)
            .take(MAGIC_LEN as u64)
            .read_to_end(&mut magic)?;
        let compression = Compression::sniff(&magic);
        let raw = Cursor::new(magic).chain(counting);
        Ok(Decoder::with_stream(match compression {
            Compression::Plain => Stream::Plain(raw),
            Compression::Gzip => Stream::Gzip(Box::new(MultiGzDecoder::new(
                BufReader::with_capacity(INPUT_BUFFER, raw),
            ))),
            Compression::Zstd => Stream::Zstd(Box::new(zstd::stream::read::Decoder::with_buffer(
                BufReader::with_capacity(INPUT_BUFFER, raw),
            )?)),
            Compression::Xz => {
                let limited = liblzma::stream::Stream::new_stream_decoder(
                    XZ_MEMORY_LIMIT,
                    liblzma::stream::CONCATENATED,
                )?;
                Stream::Xz(Box::new(liblzma::bufread::XzDecoder::new_stream(
                    BufReader::with_capacity(INPUT_BUFFER, raw),
                    limited,
                )))
            }
            Compression::Bzip2 => Stream::Bzip2(Box::new(bzip2::bufread::MultiBzDecoder::new(
                BufReader::with_capacity(INPUT_BUFFER, raw),
            ))),
        }))
    }

    pub(crate) fn compression(&self) -> Compression {
        match &self.stream {
            Stream::Plain(_) => Compression::Plain,
            Stream::Gzip(_) | Stream::ParallelGzip(_) => Compression::Gzip,
            Stream::Zstd(_) => Compression::Zstd,
            Stream::Xz(_) => Compression::Xz,
            Stream::Bzip2(_) => Compression::Bzip2,
        }
    }

    /// Bytes read from the input so far (compressed bytes for compressed inputs).
    pub(crate) fn compressed_bytes_read(&self) -> u64 {
        let raw = match &self.stream {
            Stream::ParallelGzip(gzip) => return gzip.compressed_bytes_read(),
            Stream::Plain(raw) => raw,
            Stream::Gzip(decoder) => decoder.get_ref().get_ref(),
            Stream::Zstd(decoder) => decoder.get_ref().get_ref(),
            Stream::Xz(decoder) => decoder.get_ref().get_ref(),
            Stream::Bzip2(decoder) => decoder.get_ref().get_ref(),
        };
        raw.get_ref().1.count
    }

    /// The content fingerprint of the decompressed bytes read so far: of the whole content once
    /// the input has been read to its end.
    pub(crate) fn fingerprint(&self) -> u128 {
        self.fingerprint.finish_128()
    }
}

impl Read for Decoder {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match &mut self.stream {
            Stream::Plain(raw) => raw.read(buf),
            Stream::Gzip(decoder) => decoder.read(buf),
            Stream::ParallelGzip(decoder) => decoder.read(buf),
            Stream::Zstd(decoder) => decoder.read(buf),
            Stream::Xz(decoder) => decoder.read(buf),
            Stream::Bzip2(decoder) => decoder.read(buf),
        }?;
        if let Some(read) = buf.get(..n) {
            self.fingerprint.write(read);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8]) -> (Compression, Vec<u8>, u64) {
        let mut decoder = Decoder::new(Box::new(Cursor::new(input.to_vec()))).unwrap();
        let mut out = Vec::new();
        decoder.read_to_end(&mut out).unwrap();
        (decoder.compression(), out, decoder.compressed_bytes_read())
    }

    #[test]
    fn short_and_empty_inputs_are_plain() {
        for input in [&b""[..], b"a", b"\x1f", b"abc\n"] {
            assert_eq!(
                read_all(input),
                (Compression::Plain, input.to_vec(), input.len() as u64)
            );
        }
    }

    #[test]
    fn a_lone_gzip_magic_is_an_error_not_a_panic() {
        let mut decoder = Decoder::new(Box::new(Cursor::new(vec![0x1f, 0x8b]))).unwrap();
        assert_eq!(decoder.compression(), Compression::Gzip);
        let mut out = Vec::new();
        assert!(decoder.read_to_end(&mut out).is_err());
    }

    #[test]
    fn a_leading_skippable_frame_is_zstd() {
        let mut input = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
        input.extend(zstd::encode_all(&b"a\n"[..], 1).unwrap());
        assert_eq!(read_all(&input).0, Compression::Zstd);
        assert_eq!(read_all(&input).1, b"a\n");
        assert_eq!(
            Compression::sniff(&[0x5f, 0x2a, 0x4d, 0x18]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::sniff(&[0x60, 0x2a, 0x4d, 0x18]),
            Compression::Plain
        );
    }

    #[test]
    fn the_fingerprint_is_of_the_content_whatever_the_compression() {
        let content = b"line\n".repeat(1000);
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gzip, &content).unwrap();
        let (first, second) = content.split_at(1234);
        let inputs = [
            content.clone(),
            gzip.finish().unwrap(),
            zstd::encode_all(&content[..], 3).unwrap(),
            [
                zstd::encode_all(first, 1).unwrap(),
                zstd::encode_all(second, 19).unwrap(),
            ]
            .concat(),
            xz(&content),
            bzip2(&content),
        ];
        for input in inputs {
            let mut decoder = Decoder::new(Box::new(Cursor::new(input))).unwrap();
            let mut out = Vec::new();
            decoder.read_to_end(&mut out).unwrap();
            assert_eq!(
                decoder.fingerprint(),
                xxhash_rust::xxh3::xxh3_128(&content),
                "{}",
                decoder.compression()
            );
        }
        let mut other = Decoder::new(Box::new(Cursor::new(b"a\nb\n".to_vec()))).unwrap();
        let mut byte = [0u8; 1];
        while other.read(&mut byte).unwrap() > 0 {}
        assert_eq!(other.fingerprint(), xxhash_rust::xxh3::xxh3_128(b"a\nb\n"));
    }

    /// Long inputs take the vectorised path chosen at run time; the digest is the reference
    /// XXH3-128's whatever the size of the reads.
    #[test]
    fn the_fingerprint_of_a_long_input_is_the_reference_xxh3() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let bytes: Vec<u8> = (0..3_000_017)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()[0]
            })
            .collect();
        for read_size in [1usize, 7, 4096, 65_536, 1 << 20] {
            let mut plain = Decoder::new(Box::new(Cursor::new(bytes.clone()))).unwrap();
            let mut buf = vec![0u8; read_size];
            while plain.read(&mut buf).unwrap() > 0 {}
            assert_eq!(
                plain.fingerprint(),
                xxhash_rust::xxh3::xxh3_128(&bytes),
                "reads of {read_size}"
            );
        }
    }

    #[test]
    fn counts_compressed_bytes() {
        let compressed = zstd::encode_all(&b"line\n".repeat(1000)[..], 3).unwrap();
        let (compression, out, read) = read_all(&compressed);
        assert_eq!(compression, Compression::Zstd);
        assert_eq!(out.len(), 5000);
        assert_eq!(read, compressed.len() as u64);
    }

    fn xz(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        liblzma::read::XzEncoder::new(data, 6)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn bzip2(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        bzip2::read::BzEncoder::new(data, bzip2::Compression::best())
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    /// `xz(data)` with the dictionary its block header names changed to the LZMA2 code
    /// `code` (28 is 64 MiB, 32 is 256 MiB, 40 is 4 GiB), as a hostile file can name it: a
    /// decoder takes the dictionary the header names, whatever the data needs.
    fn xz_with_dictionary(data: &[u8], code: u8) -> Vec<u8> {
        let mut file = xz(data);
        // The stream header is 12 bytes; the block header follows, sized by its first byte,
        // holding one filter (LZMA2: id 0x21, one byte of properties) and ending in its CRC32.
        let size = (usize::from(file[12]) + 1) * 4;
        let header = &mut file[12..12 + size];
        assert_eq!(header[2..4], [0x21, 1], "one LZMA2 filter");
        header[4] = code;
        let mut crc = flate2::Crc::new();
        crc.update(&header[..size - 4]);
        header[size - 4..].copy_from_slice(&crc.sum().to_le_bytes());
        file
    }

    #[test]
    fn an_xz_dictionary_past_the_limit_is_damage_not_memory() {
        let (_, out, _) = read_all(&xz_with_dictionary(b"a\n", 28));
        assert_eq!(out, b"a\n");
        for code in [32, 40] {
            let input = xz_with_dictionary(b"a\n", code);
            let mut decoder = Decoder::new(Box::new(Cursor::new(input))).unwrap();
            let error = decoder.read_to_end(&mut Vec::new()).unwrap_err();
            assert!(
                error.to_string().contains("memory"),
                "dictionary code {code}: {error}"
            );
        }
    }

    #[test]
    fn xz_and_bzip2_by_their_magic_with_several_streams() {
        type Compress = fn(&[u8]) -> Vec<u8>;
        let cases: [(Compression, Compress); 2] =
            [(Compression::Xz, xz), (Compression::Bzip2, bzip2)];
        for (compression, compress) in cases {
            let mut input = compress(b"first\nsecond\n");
            input.extend(compress(b"third\n"));
            let (got, out, read) = read_all(&input);
            assert_eq!(got, compression);
            assert_eq!(out, b"first\nsecond\nthird\n", "{compression}");
            assert_eq!(read, input.len() as u64);
        }
        assert_eq!(Compression::sniff(b"BZh"), Compression::Plain);
        assert_eq!(Compression::sniff(b"BZhx"), Compression::Plain);
        assert_eq!(
            Compression::sniff(&[0xfd, b'7', b'z', b'X', b'Z']),
            Compression::Plain
        );
        assert_eq!(Compression::Bzip2.to_string(), "bzip2");
        assert_eq!(Compression::Xz.to_string(), "xz");
    }

    #[test]
    fn source_names() {
        assert_eq!(Source::Stdin.to_string(), "-");
        assert_eq!(Source::Path("logs/a.gz".into()).to_string(), "logs/a.gz");
        assert_eq!(Compression::Zstd.to_string(), "zstd");
    }
}
