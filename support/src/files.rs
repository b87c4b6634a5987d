//! Reading the files a user names (configs, records, registrations,
//! checkpoints, table files), bounded.
//!
//! `std::fs::read` reads until the end of the file, and some files have
//! none: `net:/dev/zero` used to read until memory ran out. Here text is
//! read up to `TEXT_LIMIT` bytes, from any kind of file (a pipe such as
//! `--config <(...)` works), and binary data only from regular files, up to
//! `DATA_LIMIT` bytes; beyond either, the read fails with an error that
//! says so. The crates above the engine read user files, stdin and the UCC
//! referee's lines through these functions.

use std::io::{self, BufRead, Read};
use std::path::Path;

/// The largest text file read: far above any config, record or
/// registration the lab writes (a 1,000-ply game record measured 7.2 kB).
pub const TEXT_LIMIT: u64 = 64 << 20;
/// The largest binary file read: far above any checkpoint or table file
/// the lab writes (the largest network preset, `ataraxos`, has 14.7 million
/// parameters: 59 MB of f32 weights).
pub const DATA_LIMIT: u64 = 4 << 30;

/// Whether a failed read of a file the lab wrote says the file is damaged
/// (gone, cut short, not the file it should be: a directory where a file
/// was, a file where a directory was, bytes that do not decode or exceed
/// the limit) rather than that the machine refused it (permissions, a full
/// or failing disk), which no other copy of the file would fix. A resume
/// passes over a damaged checkpoint for an older one and stops at a refused
/// one.
pub fn is_damage(error: &io::Error) -> bool {
    use io::ErrorKind::{InvalidData, InvalidInput, IsADirectory, NotADirectory, NotFound, UnexpectedEof};
    matches!(error.kind(), NotFound | NotADirectory | IsADirectory | InvalidInput | InvalidData | UnexpectedEof)
}

/// Reads at most `limit` bytes; more is an error.
fn read_bounded(file: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("longer than {} MiB, the limit", limit >> 20)));
    }
    Ok(bytes)
}

/// A text file's contents: UTF-8, at most `TEXT_LIMIT` bytes.
pub fn read_text(path: &Path) -> io::Result<String> {
    read_text_from(std::fs::File::open(path)?)
}

/// The text of a stream (stdin for `-`): UTF-8, at most `TEXT_LIMIT` bytes.
pub fn read_text_from(input: impl Read) -> io::Result<String> {
    let bytes = read_bounded(input, TEXT_LIMIT)?;
    String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The longest line read from a conversation (the UCC referee's): a board
/// row or a move is a few dozen bytes.
pub const LINE_LIMIT: u64 = 1 << 20;

/// One line of a conversation, newline included (empty at the end of the
/// stream), at most `LINE_LIMIT` bytes.
pub fn read_line_from(input: &mut impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    input.take(LINE_LIMIT + 1).read_line(&mut line)?;
    if line.len() as u64 > LINE_LIMIT {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("a line longer than {} MiB", LINE_LIMIT >> 20)));
    }
    Ok(line)
}

/// A binary file's contents: a regular file (not a device, a pipe or a
/// directory) of at most `DATA_LIMIT` bytes.
pub fn read_data(path: &Path) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "is a directory"));
    }
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > DATA_LIMIT {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("longer than {} MiB, the limit", DATA_LIMIT >> 20),
        ));
    }
    read_bounded(file, DATA_LIMIT)
}

/// Writes `bytes` to `path` through `<path>.partial` in the same directory,
/// synced, then renamed: readers see the old file or the new one, never a
/// part of it. A stale file or link under the temporary name (an
/// interrupted write's leftover, or planted) is removed, never written
/// through, and the temporary file is created exclusively, so a link
/// planted between the two makes the creation fail instead of redirecting
/// the write. On failure the temporary file is removed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    let result = (|| {
        match std::fs::remove_file(&partial) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&partial)?;
        io::Write::write_all(&mut file, bytes)?;
        file.sync_all()?;
        std::fs::rename(&partial, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// Puts the `__metadata__` entries of a safetensors file's header in key
/// order, in place. The safetensors crate (and burn's store through it)
/// writes them in the order of a `HashMap`, which differs from run to run,
/// so two identical runs wrote files that differed byte for byte. The
/// reordered header has the same length (the same keys and values, printed
/// the same way), so the data offsets stand; bytes that are not such a
/// header, or whose header would change length, are left alone.
pub fn sort_safetensors_metadata(bytes: &mut [u8]) {
    let Some(len) = bytes.get(..8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize) else {
        return;
    };
    let Some(header) = bytes.get(8..8usize.saturating_add(len)) else { return };
    let Ok(text) = std::str::from_utf8(header) else { return };
    // safetensors pads the header with spaces to a multiple of 8 bytes.
    let json = text.trim_end_matches(' ');
    // serde_json's maps are ordered by key (no `preserve_order` here).
    let Ok(value) = serde_json::from_str::<serde_json::Value>(json) else { return };
    let Ok(sorted) = serde_json::to_string(&value) else { return };
    if sorted.len() == json.len() {
        bytes[8..8 + sorted.len()].copy_from_slice(sorted.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the reads themselves report: a missing file, a directory read
    /// as a file and a file over the limit are damage; a refusal is not.
    #[test]
    fn damage_is_told_from_the_machines_refusal() {
        let dir = std::env::temp_dir().join(format!("support-damage-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = read_data(&dir.join("absent")).unwrap_err();
        let a_directory = read_data(&dir).unwrap_err();
        let too_long = read_bounded(&[0u8; 9][..], 8).unwrap_err();
        for error in [&missing, &a_directory, &too_long] {
            assert!(is_damage(error), "{error:?}");
        }
        for kind in [io::ErrorKind::PermissionDenied, io::ErrorKind::StorageFull, io::ErrorKind::Other] {
            assert!(!is_damage(&io::Error::from(kind)), "{kind:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn safetensors_metadata_comes_out_in_key_order() {
        let header =
            r#"{"__metadata__":{"step":"3","format":"x"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
        let padded = format!("{header}{}", " ".repeat((8 - header.len() % 8) % 8));
        let mut bytes = (padded.len() as u64).to_le_bytes().to_vec();
        bytes.extend(padded.as_bytes());
        bytes.extend([0u8, 0, 128, 63]);
        let before = bytes.clone();
        sort_safetensors_metadata(&mut bytes);
        assert_eq!(bytes.len(), before.len());
        let text = std::str::from_utf8(&bytes[8..8 + padded.len()]).unwrap();
        assert!(text.starts_with(r#"{"__metadata__":{"format":"x","step":"3"},"a":"#), "{text}");
        assert_eq!(bytes[bytes.len() - 4..], before[before.len() - 4..], "the data is untouched");
        // Not a safetensors file: left alone.
        let mut junk = b"hello".to_vec();
        sort_safetensors_metadata(&mut junk);
        assert_eq!(junk, b"hello");
    }

    #[test]
    fn reads_stop_at_their_limits() {
        assert_eq!(read_bounded(&b"abc"[..], 3).unwrap(), b"abc");
        let err = read_bounded(io::repeat(0), 1 << 20).unwrap_err();
        assert!(err.to_string().contains("longer than 1 MiB"), "{err}");
    }

    #[test]
    fn lines_stop_at_their_limit() {
        let mut two = &b"one\ntwo"[..];
        assert_eq!(read_line_from(&mut two).unwrap(), "one\n");
        assert_eq!(read_line_from(&mut two).unwrap(), "two");
        assert_eq!(read_line_from(&mut two).unwrap(), "");
        let mut endless = io::BufReader::new(io::repeat(b'x'));
        assert!(read_line_from(&mut endless).unwrap_err().to_string().contains("longer than 1 MiB"));
    }

    #[test]
    fn files_without_end_and_non_files_are_refused() {
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            assert!(read_data(zero).unwrap_err().to_string().contains("not a regular file"));
            assert!(read_text(zero).unwrap_err().to_string().contains("longer than 64 MiB"));
        }
        let dir = std::env::temp_dir();
        assert!(read_data(&dir).unwrap_err().to_string().contains("is a directory"));
        let path = dir.join(format!("files-test-{}.txt", std::process::id()));
        std::fs::write(&path, "rules\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "rules\n");
        assert_eq!(read_data(&path).unwrap(), b"rules\n");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        assert!(read_text(&path).unwrap_err().to_string().contains("not UTF-8"));
        std::fs::remove_file(&path).unwrap();
    }
}
