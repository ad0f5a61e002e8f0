//! SPEC-01: agent events serialized as a `<thread>` XML document.
//!
//! ```
//! assert_eq!(thread_serializer::THREAD_ROOT, "thread");
//! ```

#![forbid(unsafe_code)]

/// The root element's name.
pub const THREAD_ROOT: &str = "thread";
