//! Markdown code fences in prose, for grammars that leave calls inside fences as prose
//! (`ParseOptions::ignore_fenced_calls`, docs/FORMAT.md §1.1).
//!
//! A fence is a line that begins, after at most three spaces, with three or more `` ` `` or `~`;
//! it is closed by a line that begins with at least as many of the same character. Lines end at
//! LF, CR LF or a lone CR, as everywhere in the format. The tracker is fed the prose a grammar
//! scans, line start by line start, and keeps nothing of it: it works over any chunking.

use memchr::memchr3;

/// Where the prose stands with respect to fences.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fence {
    at_line_start: bool,
    /// The open fence's character and run length.
    open: Option<(u8, usize)>,
}

impl Default for Fence {
    fn default() -> Self {
        Fence {
            at_line_start: true,
            open: None,
        }
    }
}

impl Fence {
    /// Whether a fence is open: a call here is an example, prose.
    pub(crate) fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// At the start of a line, reads its fence marker at the start of `s` (the rest of the window):
    /// returns `false` when the window ends before it can be told (not `is_final`), and the
    /// caller stops there to resume with more input. Elsewhere it does nothing and returns `true`.
    pub(crate) fn read_line_start(&mut self, s: &[u8], is_final: bool) -> bool {
        if !self.at_line_start {
            return true;
        }
        match fence_marker(s, is_final) {
            FenceMarker::NeedMore => return false,
            FenceMarker::None => {}
            FenceMarker::Fence(ch, len) => {
                self.open = match self.open {
                    None => Some((ch, len)),
                    Some((open_ch, open_len)) if open_ch == ch && len >= open_len => None,
                    still_open => still_open,
                };
            }
        }
        self.at_line_start = false;
        true
    }

    /// The next byte in `s` where a prose scanner must stop: `<` (a call may begin there) or a
    /// line end (LF or CR: a fence may follow).
    pub(crate) fn next_stop(s: &[u8]) -> Option<usize> {
        memchr3(b'<', b'\n', b'\r', s)
    }

    /// Whether `b`, a byte [`Fence::next_stop`] found, ends a line; if so the next byte begins
    /// one. (CR LF is two line ends with an empty line between, which no fence rule can tell.)
    pub(crate) fn line_end(&mut self, b: u8) -> bool {
        let end = matches!(b, b'\n' | b'\r');
        if end {
            self.at_line_start = true;
        }
        end
    }
}

/// What begins a line, for Markdown fences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FenceMarker {
    /// A run of three or more backticks or tildes (the character and the run's length), after at
    /// most three spaces.
    Fence(u8, usize),
    /// No fence marker.
    None,
    /// The window ends before it can be told.
    NeedMore,
}

/// The fence marker, if any, at the start of the line `s`.
fn fence_marker(s: &[u8], is_final: bool) -> FenceMarker {
    let indent = s.iter().take(4).take_while(|&&b| b == b' ').count();
    if indent == s.len() {
        return if is_final {
            FenceMarker::None
        } else {
            FenceMarker::NeedMore
        };
    }
    if indent > 3 {
        return FenceMarker::None;
    }
    let ch = s[indent];
    if ch != b'`' && ch != b'~' {
        return FenceMarker::None;
    }
    let run = s[indent..].iter().take_while(|&&b| b == ch).count();
    if indent + run == s.len() && !is_final {
        return FenceMarker::NeedMore;
    }
    if run >= 3 {
        FenceMarker::Fence(ch, run)
    } else {
        FenceMarker::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` line start by line start, as a prose scanner does; whether a fence is open at
    /// the end.
    fn open_after(text: &str) -> bool {
        let mut f = Fence::default();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            assert!(f.read_line_start(&b[i..], true));
            match Fence::next_stop(&b[i..]) {
                Some(k) => {
                    f.line_end(b[i + k]);
                    i += k + 1;
                }
                None => break,
            }
        }
        f.is_open()
    }

    #[test]
    fn fences_open_and_close_with_any_line_end() {
        for end in ["\n", "\r\n", "\r"] {
            let t = |s: &str| s.replace('\n', end);
            assert!(open_after(&t("a\n```xml\nx\n")), "{end:?}");
            assert!(!open_after(&t("a\n```xml\nx\n```\nb")), "{end:?}");
            assert!(
                open_after(&t("~~~~\n~~~\n")),
                "{end:?}: a shorter run closes nothing"
            );
            assert!(
                !open_after(&t("    ```\n")),
                "{end:?}: four spaces are code, no fence"
            );
            assert!(!open_after(&t("``\n")), "{end:?}");
        }
    }
}
