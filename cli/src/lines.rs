//! Lines of a records file, each held in memory only up to a limit: a longer line is
//! skipped to its end and reported by its length, so that no input (a file of one
//! endless line, `/dev/zero`) can exhaust the process's memory.

use std::io::{self, BufRead};

/// The longest line read (bytes): 1 MiB, the largest SQS message, well above any
/// record podium takes (GM-5).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of the file, without its `\n`.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line of at most the limit.
    Text(Vec<u8>),
    /// A longer line, skipped; its length in bytes.
    TooLong(u64),
}

/// The lines of `reader`, each at most `max` bytes in memory.
pub fn bounded<R: BufRead>(reader: R, max: usize) -> Bounded<R> {
    Bounded { reader, max }
}

/// The iterator of [`bounded`].
pub struct Bounded<R> {
    reader: R,
    max: usize,
}

impl<R: BufRead> Iterator for Bounded<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut text = Vec::new();
        let (mut total, mut too_long, mut any) = (0u64, false, false);
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            };
            if available.is_empty() {
                // The end of the input: a last line without its `\n`, or nothing more.
                if !any {
                    return None;
                }
                break;
            }
            any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let part = &available[..newline.unwrap_or(available.len())];
            total += part.len() as u64;
            if !too_long {
                if text.len() + part.len() > self.max {
                    too_long = true;
                    text = Vec::new();
                } else {
                    text.extend_from_slice(part);
                }
            }
            let used = newline.map_or(part.len(), |i| i + 1);
            self.reader.consume(used);
            if newline.is_some() {
                break;
            }
        }
        Some(Ok(if too_long {
            Line::TooLong(total)
        } else {
            Line::Text(text)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        // A tiny buffer, so that lines span many reads.
        bounded(io::BufReader::with_capacity(3, input), max)
            .map(|l| l.expect("read"))
            .collect()
    }

    #[test]
    fn lines_are_split_as_split_would() {
        use Line::Text;
        assert_eq!(lines(b"ab\ncd", 10), [Text(b"ab".to_vec()), Text(b"cd".to_vec())]);
        assert_eq!(lines(b"ab\n", 10), [Text(b"ab".to_vec())]);
        assert_eq!(
            lines(b"\n\nx\n", 10),
            [Text(vec![]), Text(vec![]), Text(b"x".to_vec())]
        );
        assert_eq!(lines(b"", 10), Vec::<Line>::new());
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_whole_and_measured() {
        use Line::{Text, TooLong};
        assert_eq!(
            lines(b"abcdefghij\nok\nabcdefghijk", 10),
            [Text(b"abcdefghij".to_vec()), Text(b"ok".to_vec()), TooLong(11)]
        );
        assert_eq!(
            lines(b"0123456789abcdef\nx", 4),
            [TooLong(16), Text(b"x".to_vec())]
        );
    }

    #[test]
    fn an_endless_line_never_grows_past_the_limit() {
        // 64 MiB of input without a newline, read with a 1 KiB limit.
        let endless = io::Read::take(io::repeat(b'x'), 64 << 20);
        let mut it = bounded(io::BufReader::new(endless), 1024);
        assert_eq!(it.next().map(|l| l.expect("read")), Some(Line::TooLong(64 << 20)));
        assert!(it.next().is_none());
    }
}
