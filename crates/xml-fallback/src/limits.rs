//! Limits on what the parser accepts, so that no input can make it use unbounded resources.

/// Bounds on the input. The defaults are far above any tool call and far below harm.
///
/// ```
/// use xml_fallback::{parse_document_with, Limits, XmlErrorKind};
/// let limits = Limits { max_depth: 2, ..Limits::default() };
/// assert!(parse_document_with("<a><b/></a>", &limits).is_ok());
/// let err = parse_document_with("<a><b><c/></b></a>", &limits).unwrap_err();
/// assert_eq!(err.kind, XmlErrorKind::TooDeep);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// The longest input accepted, in bytes (default 16 MiB). The repaired copy may be longer:
    /// each repair adds four bytes.
    pub max_input_bytes: usize,
    /// The deepest nesting of elements accepted; the root element is at depth 1 (default 128).
    ///
    /// The tree and typed decoding recurse once per level, so keep this in the hundreds.
    pub max_depth: usize,
    /// The most elements and attributes accepted, together (default 100,000). It bounds memory
    /// where bytes cannot: `<b/>` is 4 bytes of input and an element of the tree.
    pub max_elements: usize,
}

impl Limits {
    /// The default for [`max_input_bytes`](Self::max_input_bytes): 16 MiB.
    pub const DEFAULT_MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
    /// The default for [`max_depth`](Self::max_depth): 128.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
    /// The default for [`max_elements`](Self::max_elements): 100,000.
    pub const DEFAULT_MAX_ELEMENTS: usize = 100_000;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: Self::DEFAULT_MAX_INPUT_BYTES,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_elements: Self::DEFAULT_MAX_ELEMENTS,
        }
    }
}
