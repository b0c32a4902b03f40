//! Opening a fetched file for a parser: decompression and archive members.
//!
//! Compressed files are decompressed as a stream while parsing, never written out: the parsed
//! binary cache is what later runs read, so a decompressed copy would only cost disk. A member
//! of a zip or tar archive is read into memory (the archives' readers borrow the archive, and
//! the papers' members are at most a few hundred megabytes).

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use super::error::{DataError, Result};
use super::registry::{Compression, FileEntry, TarCompression};

const BUFFER_SIZE: usize = 1 << 16;

/// An opened data stream and the name its errors use (`archive/member` for members).
pub(crate) struct Source {
    pub reader: Box<dyn BufRead>,
    pub origin: PathBuf,
}

/// Opens `path` (the fetched copy of `file`) decompressed, or its archive member.
pub(crate) fn open(path: &Path, file: &FileEntry) -> Result<Source> {
    open_as(path, file.compression(), file.member.as_deref())
}

/// A user's data file opened for reading lines, decompressed by its name's suffix; an archive
/// (zip, tar) is refused: the data file inside must be extracted first.
pub(crate) fn open_text(path: &Path) -> Result<Box<dyn BufRead>> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let compression = Compression::of_file_name(name);
    if compression.is_archive() {
        return Err(DataError::Parse {
            path: path.to_path_buf(),
            line: 0,
            problem: "an archive (zip, tar): extract the data file first".into(),
        });
    }
    let mut reader = open_as(path, compression, None)?.reader;
    skip_bom(&mut reader).map_err(|e| DataError::io("cannot read", path, e))?;
    Ok(reader)
}

/// The UTF-8 byte order mark some editors write is not part of the first column's name.
fn skip_bom(reader: &mut dyn BufRead) -> std::io::Result<()> {
    if reader.fill_buf()?.starts_with(BOM.as_bytes()) {
        reader.consume(BOM.len());
    }
    Ok(())
}

/// The UTF-8 byte order mark.
pub(crate) const BOM: &str = "\u{feff}";

pub(crate) fn open_as(
    path: &Path,
    compression: Compression,
    member: Option<&str>,
) -> Result<Source> {
    let input = File::open(path).map_err(|e| DataError::io("cannot open", path, e))?;
    let origin = path.to_path_buf();
    let reader: Box<dyn BufRead> = match compression {
        Compression::None => Box::new(BufReader::with_capacity(BUFFER_SIZE, input)),
        Compression::Gzip => buffered(flate2::read::MultiGzDecoder::new(BufReader::new(input))),
        Compression::Bzip2 => buffered(bzip2::read::MultiBzDecoder::new(BufReader::new(input))),
        Compression::Xz => buffered(liblzma::read::XzDecoder::new_multi_decoder(BufReader::new(
            input,
        ))),
        Compression::Zip => {
            let member = member_name(path, member)?;
            let bytes = read_zip_member(input, path, member)?;
            return Ok(Source {
                reader: Box::new(Cursor::new(bytes)),
                origin: path.join(member),
            });
        }
        Compression::Tar(inner) => {
            let member = member_name(path, member)?;
            let input = BufReader::new(input);
            let stream: Box<dyn Read> = match inner {
                TarCompression::None => Box::new(input),
                TarCompression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(input)),
                TarCompression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(input)),
                TarCompression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(input)),
            };
            let bytes = read_tar_member(stream, path, member)?;
            return Ok(Source {
                reader: Box::new(Cursor::new(bytes)),
                origin: path.join(member),
            });
        }
    };
    Ok(Source { reader, origin })
}

fn buffered(r: impl Read + 'static) -> Box<dyn BufRead> {
    Box::new(BufReader::with_capacity(BUFFER_SIZE, r))
}

fn member_name<'a>(path: &Path, member: Option<&'a str>) -> Result<&'a str> {
    member.ok_or_else(|| DataError::Archive {
        path: path.to_path_buf(),
        problem: "an archive needs a member name to read".into(),
    })
}

fn read_zip_member(input: File, path: &Path, member: &str) -> Result<Vec<u8>> {
    let archive_error = |problem: String| DataError::Archive {
        path: path.to_path_buf(),
        problem,
    };
    let mut archive = zip::ZipArchive::new(BufReader::new(input))
        .map_err(|e| archive_error(format!("not a readable zip archive: {e}")))?;
    let names: Vec<String> = archive.file_names().map(str::to_string).collect();
    let mut entry = archive.by_name(member).map_err(|_| {
        archive_error(format!(
            "no member '{member}'; the archive holds: {}",
            names.join(", ")
        ))
    })?;
    let mut bytes = Vec::with_capacity(entry.size().min(1 << 32) as usize);
    entry
        .read_to_end(&mut bytes)
        .map_err(|e| DataError::io("cannot read zip member", path.join(member), e))?;
    Ok(bytes)
}

fn read_tar_member(stream: Box<dyn Read>, path: &Path, member: &str) -> Result<Vec<u8>> {
    let read_error = |e| DataError::io("cannot read tar archive", path, e);
    let mut archive = tar::Archive::new(stream);
    let mut names = Vec::new();
    for entry in archive.entries().map_err(read_error)? {
        let mut entry = entry.map_err(read_error)?;
        let name = entry
            .path()
            .map_err(read_error)?
            .to_string_lossy()
            .into_owned();
        if name.trim_start_matches("./") == member {
            let mut bytes = Vec::with_capacity(entry.size().min(1 << 32) as usize);
            entry
                .read_to_end(&mut bytes)
                .map_err(|e| DataError::io("cannot read tar member", path.join(member), e))?;
            return Ok(bytes);
        }
        names.push(name);
    }
    Err(DataError::Archive {
        path: path.to_path_buf(),
        problem: format!(
            "no member '{member}'; the archive holds: {}",
            names.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"+1 1:1\n-1 2:2\n";

    fn read_all(mut s: Source) -> Vec<u8> {
        let mut out = Vec::new();
        s.reader.read_to_end(&mut out).unwrap();
        out
    }

    fn write_compressed(path: &Path, data: &[u8]) {
        let file = File::create(path).unwrap();
        match Compression::of_file_name(&path.to_string_lossy()) {
            Compression::Gzip => {
                let mut w = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
                w.write_all(data).unwrap();
                w.finish().unwrap();
            }
            Compression::Bzip2 => {
                let mut w = bzip2::write::BzEncoder::new(file, bzip2::Compression::fast());
                w.write_all(data).unwrap();
                w.finish().unwrap();
            }
            Compression::Xz => {
                let mut w = liblzma::write::XzEncoder::new(file, 1);
                w.write_all(data).unwrap();
                w.finish().unwrap();
            }
            other => panic!("not a stream compression: {other:?}"),
        }
    }

    #[test]
    fn stream_compressions_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["d.gz", "d.bz2", "d.xz"] {
            let path = dir.path().join(name);
            write_compressed(&path, TEXT);
            let got = read_all(open_as(&path, Compression::of_file_name(name), None).unwrap());
            assert_eq!(got, TEXT, "{name}");
        }
    }

    #[test]
    fn zip_and_tar_members_are_selected_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let zip_path = dir.path().join("a.zip");
        let mut z = zip::ZipWriter::new(File::create(&zip_path).unwrap());
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.start_file("other.txt", opts).unwrap();
        z.write_all(b"nope").unwrap();
        z.start_file("data.csv", opts).unwrap();
        z.write_all(TEXT).unwrap();
        z.finish().unwrap();
        let s = open_as(&zip_path, Compression::Zip, Some("data.csv")).unwrap();
        assert_eq!(s.origin, zip_path.join("data.csv"));
        assert_eq!(read_all(s), TEXT);
        let Err(err) = open_as(&zip_path, Compression::Zip, Some("missing.csv")) else {
            panic!("a missing member must be an error")
        };
        let msg = err.to_string();
        assert!(
            msg.contains("missing.csv") && msg.contains("other.txt"),
            "{msg}"
        );

        let tar_path = dir.path().join("a.tar.gz");
        let gz = flate2::write::GzEncoder::new(
            File::create(&tar_path).unwrap(),
            flate2::Compression::fast(),
        );
        let mut t = tar::Builder::new(gz);
        for (name, body) in [("dir/x.bin", &b"xx"[..]), ("dir/y.bin", TEXT)] {
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            t.append_data(&mut header, name, body).unwrap();
        }
        t.into_inner().unwrap().finish().unwrap();
        let kind = Compression::of_file_name("a.tar.gz");
        assert_eq!(
            read_all(open_as(&tar_path, kind, Some("dir/y.bin")).unwrap()),
            TEXT
        );
        assert!(open_as(&tar_path, kind, Some("dir/z.bin")).is_err());
    }

    #[test]
    fn corrupt_compressed_data_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.gz");
        std::fs::write(&path, b"\x1f\x8b\x08\x00garbage-garbage").unwrap();
        let mut s = open_as(&path, Compression::Gzip, None).unwrap();
        let mut out = Vec::new();
        assert!(s.reader.read_to_end(&mut out).is_err());
        let zip_path = dir.path().join("bad.zip");
        std::fs::write(&zip_path, b"PK not really").unwrap();
        assert!(open_as(&zip_path, Compression::Zip, Some("x")).is_err());
    }
}
