//! One module per subcommand; each returns the process exit status.

pub(crate) mod parse;
pub(crate) mod prompt;
pub(crate) mod shared;
pub(crate) mod stream;
pub(crate) mod thread;
