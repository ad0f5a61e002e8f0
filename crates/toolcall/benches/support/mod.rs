//! What the `throughput` harness is built from (not a bench target of its own).

pub(crate) mod code;
pub(crate) mod readers;
pub(crate) mod report;
pub(crate) mod timing;
pub(crate) mod workload;
