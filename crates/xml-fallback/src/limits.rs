//! Limits on what the parser accepts, so that no input can make it use unbounded resources.

/// Bounds on the input. The defaults are far above any tool call and far below harm.
///
/// Built from [`Limits::default()`] with one `with_` method per limit, and read with one getter
/// per limit; the fields are private, so that a limit can be added without breaking callers.
///
/// ```
/// use xml_fallback::{parse_document_with, Limits, XmlErrorKind};
/// let limits = Limits::default().with_max_depth(2);
/// assert_eq!(limits.max_depth(), 2);
/// assert!(parse_document_with("<a><b/></a>", &limits).is_ok());
/// let err = parse_document_with("<a><b><c/></b></a>", &limits).unwrap_err();
/// assert_eq!(err.kind, XmlErrorKind::TooDeep);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    pub(crate) max_input_bytes: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_elements: usize,
}

impl Limits {
    /// The default for [`max_input_bytes`](Self::max_input_bytes): 16 MiB.
    pub const DEFAULT_MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
    /// The default for [`max_depth`](Self::max_depth): 128.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
    /// The default for [`max_elements`](Self::max_elements): 100,000.
    pub const DEFAULT_MAX_ELEMENTS: usize = 100_000;

    /// The longest input accepted, in bytes (default 16 MiB). The repaired copy may be longer:
    /// each repair adds four bytes.
    ///
    /// ```
    /// use xml_fallback::{parse_document_with, Limits, XmlErrorKind};
    /// let limits = Limits::default().with_max_input_bytes(8);
    /// assert_eq!(limits.max_input_bytes(), 8);
    /// let err = parse_document_with("<a>too long</a>", &limits).unwrap_err();
    /// assert_eq!(err.kind, XmlErrorKind::TooLarge);
    /// ```
    pub fn max_input_bytes(&self) -> usize {
        self.max_input_bytes
    }

    /// The same limits with [`max_input_bytes`](Self::max_input_bytes) set to `n`.
    pub fn with_max_input_bytes(mut self, n: usize) -> Self {
        self.max_input_bytes = n;
        self
    }

    /// The deepest nesting of elements accepted; the root element is at depth 1 (default 128).
    ///
    /// The tree and typed decoding recurse once per level, so keep this in the hundreds.
    ///
    /// ```
    /// let limits = xml_fallback::Limits::default().with_max_depth(3);
    /// assert_eq!(limits.max_depth(), 3);
    /// ```
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The same limits with [`max_depth`](Self::max_depth) set to `n`.
    pub fn with_max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// The most elements and attributes accepted, together (default 100,000). It bounds memory
    /// where bytes cannot: `<b/>` is 4 bytes of input and an element of the tree.
    ///
    /// ```
    /// use xml_fallback::{parse_document_with, Limits, XmlErrorKind};
    /// let limits = Limits::default().with_max_elements(2);
    /// assert_eq!(limits.max_elements(), 2);
    /// let err = parse_document_with("<a><b/><c/></a>", &limits).unwrap_err();
    /// assert_eq!(err.kind, XmlErrorKind::TooManyElements);
    /// ```
    pub fn max_elements(&self) -> usize {
        self.max_elements
    }

    /// The same limits with [`max_elements`](Self::max_elements) set to `n`.
    pub fn with_max_elements(mut self, n: usize) -> Self {
        self.max_elements = n;
        self
    }
}

impl Default for Limits {
    /// The defaults: [`DEFAULT_MAX_INPUT_BYTES`](Self::DEFAULT_MAX_INPUT_BYTES),
    /// [`DEFAULT_MAX_DEPTH`](Self::DEFAULT_MAX_DEPTH) and
    /// [`DEFAULT_MAX_ELEMENTS`](Self::DEFAULT_MAX_ELEMENTS).
    ///
    /// ```
    /// use xml_fallback::Limits;
    /// let limits = Limits::default();
    /// assert_eq!(limits.max_input_bytes(), Limits::DEFAULT_MAX_INPUT_BYTES);
    /// assert_eq!(limits.max_depth(), 128);
    /// assert_eq!(limits.max_elements(), 100_000);
    /// ```
    fn default() -> Self {
        Limits {
            max_input_bytes: Self::DEFAULT_MAX_INPUT_BYTES,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_elements: Self::DEFAULT_MAX_ELEMENTS,
        }
    }
}
