//! Call assembly, written once for every dialect.
//!
//! A dialect's grammar knows where a call begins, what its name and arguments are and where it
//! ends. Everything else is here: the options and limits, positions, prose between calls, the
//! call index and the call limit, repairs and errors (with their snippets), argument deltas, the
//! partial arguments of a truncated call, and turning a call's parts into a typed [`ToolCall`]
//! (schema coercion of an element tree, typing of raw text, or JSON as it is).
//!
//! The grammar owns an [`Assembler`] and one [`CallCore`] per open call; it never builds a
//! `ToolCall` or a `ParseError` itself, so every dialect reports alike.

use crate::call::{ArgumentEncoding, Encoding, Repair, RepairKind, ToolCall};
use crate::dialect::Dialect;
use crate::error::{ErrorKind, Limit, ParseError};
use crate::event::StreamEvent;
use crate::locate::Locator;
use crate::names::{invalid_name_message, is_valid_name};
use crate::options::ParseOptions;
use crate::recycle::{Recycled, SharedNames};
use arg_types::json_schema::PreparedSchema;
use arg_types::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use xml_fallback::name_index::NameIndex;
use xml_fallback::tree::Element;

#[cfg(test)]
thread_local! {
    /// Entries examined to find an argument (or a repair entry) by name, in tests: the
    /// deterministic measure that holds name lookups to a constant per argument, whatever the
    /// number of names (issue 14 item 4).
    pub(crate) static NAME_PROBES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `n` entries examined by a lookup by name (in tests; nothing otherwise).
#[inline]
pub(crate) fn name_probes(n: usize) {
    #[cfg(test)]
    NAME_PROBES.with(|c| c.set(c.get() + n));
    crate::work::add(n);
}

/// What every dialect shares while it reads: options, positions, prose, the call count.
#[derive(Debug)]
pub(crate) struct Assembler {
    pub(crate) opts: ParseOptions,
    pub(crate) locator: Locator,
    pub(crate) dialect: Dialect,
    /// Whether to report argument deltas.
    pub(crate) emit_deltas: bool,
    /// Whether to report `CallStarted` and `ToolName`; one-shot parsing folds them away.
    pub(crate) progress: bool,
    /// Absolute offset of prose not yet emitted.
    pub(crate) prose_start: usize,
    /// Calls begun so far.
    calls: usize,
    call_limit_reported: bool,
    /// Elements of the calls finished so far, for `max_input_elements`.
    input_elements: usize,
    /// Strings of events handed back by the caller, for the text of the next ones.
    pub(crate) recycled: Recycled,
    /// Argument names shared by their events, kept for the next calls.
    pub(crate) names: SharedNames,
}

/// The parts of one call that do not depend on the dialect.
#[derive(Debug, Default)]
pub(crate) struct CallCore {
    pub(crate) index: usize,
    /// Absolute offset of the call's first byte (its opening marker).
    pub(crate) start: usize,
    /// Absolute offset after the opening marker.
    pub(crate) tag_end: usize,
    pub(crate) server_name: Option<String>,
    pub(crate) tool_name: Option<String>,
    /// The call stands inside a Markdown code fence.
    pub(crate) fenced: bool,
    pub(crate) repairs: Vec<Repair>,
    pub(crate) encodings: Vec<ArgumentEncoding>,
    pub(crate) error: Option<ParseError>,
    /// Where the error's snippet starts, until the snippet is filled in.
    pub(crate) snippet_at: Option<usize>,
    /// Decoded bytes of the argument being read.
    pub(crate) argument_bytes: usize,
    /// Elements (or arguments) read in the call, for `max_elements`.
    pub(crate) elements: usize,
    /// Argument text decoded since the last delta event, and the name of the argument it belongs
    /// to (made once per argument, shared by its deltas).
    pub(crate) delta: String,
    pub(crate) delta_argument: Option<Arc<str>>,
    /// The top-level argument names in order of first appearance, each with its first start:
    /// the offset of its start tag and the offset after it.
    /// (The names are ranges of `first_names`, which holds them one after another: one
    /// allocation for a call's names, not one each.)
    first_starts: Vec<(std::ops::Range<usize>, usize, usize)>,
    first_names: String,
    /// The position of each name in `first_starts`: lookups stay O(1) with many names.
    names: NameIndex,
    /// Where the last top-level argument began.
    last_start: Option<usize>,
    /// The argument being read (its name's position in `first_starts`), between
    /// `argument_started` and `argument_ended`: repairs made meanwhile are counted under it.
    open_argument: Option<usize>,
    /// Where each (kind, argument) entry is in `repairs`: aggregation stays O(1) per repair.
    repair_index: HashMap<(RepairKind, Option<usize>), usize>,
}

/// The bytes first reserved for a call's argument names (`CallCore::first_names`).
const FIRST_NAMES_ROOM: usize = 64;

impl CallCore {
    pub(crate) fn new(index: usize, start: usize, tag_end: usize) -> Self {
        CallCore {
            index,
            start,
            tag_end,
            ..CallCore::default()
        }
    }

    /// Records that a top-level argument `name` begins at `at` (its start tag ends at `end`).
    pub(crate) fn argument_started(&mut self, name: &str, at: usize, end: usize) {
        let (starts, names) = (&self.first_starts, &self.first_names);
        let first = match (self.names).get_or_insert(name, |i| probed(&names[starts[i].0.clone()]))
        {
            Ok(i) => i,
            Err(i) => {
                let from = self.first_names.len();
                if from == 0 {
                    // Room for a call's usual names at once, rather than a doubling series.
                    self.first_names.reserve(name.len().max(FIRST_NAMES_ROOM));
                }
                self.first_names.push_str(name);
                (self.first_starts).push((from..self.first_names.len(), at, end));
                i
            }
        };
        self.last_start = Some(at);
        self.argument_bytes = 0;
        self.open_argument = Some(first);
    }

    /// The position of the argument `name` in `first_starts`.
    fn argument_index(&self, name: &str) -> Option<usize> {
        (self.names).get(name, |i| probed(self.first_name(i)))
    }

    /// The name of the argument at position `i` in `first_starts`.
    fn first_name(&self, i: usize) -> &str {
        &self.first_names[self.first_starts[i].0.clone()]
    }

    /// Records that the argument being read is complete: later repairs are not its.
    pub(crate) fn argument_ended(&mut self) {
        self.open_argument = None;
    }

    /// Where the argument `name` first began: its start tag's offset and the offset after it.
    pub(crate) fn argument_start(&self, name: &str) -> Option<(usize, usize)> {
        let (_, at, end) = self.first_starts[self.argument_index(name)?];
        Some((at, end))
    }

    /// Where the last argument began.
    pub(crate) fn last_argument_start(&self) -> Option<usize> {
        self.last_start
    }

    /// Whether an argument of this name was already begun.
    pub(crate) fn has_argument(&self, name: &str) -> bool {
        self.argument_index(name).is_some()
    }

    /// Records how a raw-text argument that closed was written and gives it back, for the
    /// call's arguments. A name given again is dropped when it opens
    /// ([`Assembler::open_raw_argument`] says `duplicate`), so a name kept here is new to the
    /// call: no lookup is needed.
    #[inline]
    pub(crate) fn keep_argument(
        &mut self,
        name: String,
        text: String,
        encoding: Encoding,
    ) -> RawArgument {
        self.encodings.push(ArgumentEncoding {
            argument: name.clone(),
            encoding,
        });
        RawArgument { name, text }
    }
}

/// A name compared in a lookup of an argument by name, counted ([`name_probes`]).
#[inline]
fn probed(name: &str) -> &str {
    name_probes(1);
    name
}

/// A finished call's arguments, as its dialect read them.
#[derive(Debug)]
pub(crate) enum Arguments {
    /// Elements (`<tool>`'s `<arguments>`): typed by the schema, else by inference.
    Tree(Element),
    /// Elements converted by inference as each closed (`<tool>`'s `<arguments>` when no schema
    /// is given: the same map as [`Arguments::Tree`] gives then, without the tree).
    Converted(Map),
    /// Raw text per argument (the Qwen3-Coder family): typed by the schema, else kept as text.
    Raw(Vec<RawArgument>),
    /// JSON as written (the legacy `<tool>{…}</tool>` form, Hermes).
    Json(Map),
    /// Raw text per argument, in order, some of them typed by the dialect itself (DeepSeek
    /// DSML's `string` attribute, Kimi-K3's `type`): those keep the dialect's value, the others
    /// are typed as [`Arguments::Raw`]'s are.
    Typed(Vec<(RawArgument, Option<Value>)>),
    /// Elements whose leaves are raw text (MiniMax-M3): structure and leaves typed by the
    /// schema, else leaves kept as text.
    RawTree(Element),
}

/// One argument written as raw text.
#[derive(Debug, Clone)]
pub(crate) struct RawArgument {
    pub(crate) name: String,
    pub(crate) text: String,
}

impl Assembler {
    pub(crate) fn new(opts: ParseOptions, dialect: Dialect, progress: bool) -> Self {
        Assembler {
            opts,
            locator: Locator::default(),
            dialect,
            emit_deltas: progress,
            progress,
            prose_start: 0,
            calls: 0,
            call_limit_reported: false,
            input_elements: 0,
            recycled: Recycled::default(),
            names: SharedNames::default(),
        }
    }

    // ----- prose and the call count -----------------------------------------------------------

    /// Emits the prose from the last emitted byte up to absolute offset `upto`.
    pub(crate) fn emit_prose(
        &mut self,
        w: &str,
        base: usize,
        upto: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        if upto > self.prose_start {
            let prose = &w[self.prose_start - base..upto - base];
            if !crate::recycle::fill_text_slot(out, false, prose) {
                out.push(StreamEvent::Prose {
                    text: self.recycled.text(prose),
                });
            }
            self.prose_start = upto;
        }
    }

    /// The index the next call will get.
    pub(crate) fn next_index(&self) -> usize {
        self.calls
    }

    /// Whether another call may begin. When not, the first refusal emits the prose before `at`
    /// and one `limit_exceeded` error; the caller leaves the call as prose.
    pub(crate) fn may_begin_call(
        &mut self,
        w: &str,
        base: usize,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) -> bool {
        let limits = &self.opts.limits;
        let (limit, message) = if self.calls >= limits.max_calls {
            let message = format!(
                "more than {} calls in one response; the rest are left as prose",
                limits.max_calls
            );
            (Limit::MaxCalls, message)
        } else if self.input_elements >= limits.max_input_elements {
            let message = format!(
                "the calls of one response hold more than {} elements, attributes and CDATA \
                 sections; the rest are left as prose",
                limits.max_input_elements
            );
            (Limit::MaxInputElements, message)
        } else {
            return true;
        };
        if !self.call_limit_reported {
            self.call_limit_reported = true;
            self.emit_prose(w, base, at, out);
            let p = self.locator.locate(w, base, at);
            out.push(StreamEvent::Error {
                error: Box::new(
                    ParseError::new(ErrorKind::LimitExceeded, message, p)
                        .in_dialect(self.dialect)
                        .with_span(at..at)
                        .with_limit(limit),
                ),
            });
        }
        false
    }

    /// Counts `n` more elements (attributes, CDATA sections) in the call; `false`, with the
    /// call's `limit_exceeded` error at `at`, when that is more than `max_elements` or than what
    /// `max_input_elements` leaves.
    pub(crate) fn count_elements(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        n: usize,
        at: usize,
    ) -> bool {
        core.elements = core.elements.saturating_add(n);
        let limits = &self.opts.limits;
        let (limit, message) = if core.elements > limits.max_elements {
            let message = format!(
                "the call has more than {} elements, attributes and CDATA sections",
                limits.max_elements
            );
            (Limit::MaxElements, message)
        } else if self.input_elements.saturating_add(core.elements) > limits.max_input_elements {
            let message = format!(
                "the calls of one response hold more than {} elements, attributes and CDATA \
                 sections",
                limits.max_input_elements
            );
            (Limit::MaxInputElements, message)
        } else {
            return true;
        };
        self.limit_error(w, base, core, limit, message, at);
        false
    }

    /// The first absolute offset a grammar keeps when its state still needs the input from
    /// `from` on (a call's source from its start, for snippets and positions): never past the
    /// prose not emitted yet. Every grammar's `keep_from` ends here.
    #[inline(always)]
    pub(crate) fn kept_from(&self, from: usize) -> usize {
        from.min(self.prose_start)
    }

    /// A call begins for certain: the prose before it is emitted, `CallStarted` reported.
    pub(crate) fn begin_call(
        &mut self,
        w: &str,
        base: usize,
        core: &CallCore,
        out: &mut Vec<StreamEvent>,
    ) {
        self.emit_prose(w, base, core.start, out);
        self.prose_start = core.start;
        self.calls += 1;
        if self.progress {
            out.push(StreamEvent::CallStarted {
                index: core.index,
                dialect: self.dialect,
            });
        }
    }

    /// A call that begins as an error of `kind` at `at` (its name left out, its call tag not
    /// well formed): begun, so that it is reported and its grammar skips it to its end, never
    /// read as prose (docs/FORMAT.md §9.1 rule 5, §9.5 rule 1, §9.7 rule 1), and failed.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn begin_failed_call(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        kind: ErrorKind,
        message: String,
        at: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        self.begin_call(w, base, core, out);
        self.error(w, base, core, kind, message, at);
    }

    /// The tool a call's complete `name` stands for: itself, or the listed tool a qualified
    /// name the schemas do not list names by its ending (`functions.exec_command` for a listed
    /// `exec_command`: [`ToolSchemas::unqualified`]). Only a valid name (docs/FORMAT.md §3.4) is
    /// read so; what is not valid stays as written, to be refused.
    ///
    /// [`ToolSchemas::unqualified`]: crate::ToolSchemas::unqualified
    pub(crate) fn listed_name<'n>(&self, name: &'n str) -> &'n str {
        match &self.opts.schemas {
            Some(schemas) if is_valid_name(name) => schemas.unqualified(name).unwrap_or(name),
            _ => name,
        }
    }

    /// Names the call `name`, as [`listed_name`](Self::listed_name) reads it: a dropped
    /// qualifier is a `qualified_tool_name` repair at absolute offset `at` (docs/FORMAT.md §9.8).
    pub(crate) fn set_tool_name(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        name: &str,
        at: usize,
    ) {
        let listed = self.listed_name(name);
        if listed.len() != name.len() {
            self.repair(w, base, core, RepairKind::QualifiedToolName, at);
        }
        core.tool_name = Some(listed.to_owned());
    }

    /// Reports the tool's name once it is complete.
    pub(crate) fn tool_name_known(&self, core: &CallCore, out: &mut Vec<StreamEvent>) {
        if self.progress
            && let Some(name) = &core.tool_name
        {
            out.push(StreamEvent::ToolName {
                index: core.index,
                tool_name: name.clone(),
            });
        }
    }

    // ----- repairs and errors -----------------------------------------------------------------

    /// Records a repair at absolute offset `at`, in the argument being read (if any).
    pub(crate) fn repair(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        kind: RepairKind,
        at: usize,
    ) {
        let argument = core.open_argument;
        self.record_repair(w, base, core, kind, at, argument);
    }

    /// Opens the top-level argument `name` of a raw-text dialect, whose tag spans `at..end`:
    /// counts it against `max_elements` (past it, the call's error and `None`), records a name
    /// given again (`duplicate_argument`), and starts its deltas, announced by
    /// [`StreamEvent::ArgumentStarted`] (not for a name given again: its first value was
    /// announced). `noun` names arguments in the limit's message (`arguments`, `parameters`);
    /// `string` is the type the dialect declares, if it does (see the event).
    /// Returns the name, owned (the arguments' key, when the value closes), and whether it was
    /// given before; the deltas' shared name is made only when deltas are on. One definition
    /// for every raw-text grammar.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open_raw_argument<'n>(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        name: impl Into<Cow<'n, str>>,
        noun: &str,
        (at, end): (usize, usize),
        string: Option<bool>,
        out: &mut Vec<StreamEvent>,
    ) -> Option<(String, bool)> {
        let name = name.into();
        core.elements += 1;
        if core.elements > self.opts.limits.max_elements {
            let msg = format!(
                "the call has more than {} {noun}",
                self.opts.limits.max_elements
            );
            self.limit_error(w, base, core, Limit::MaxElements, msg, at);
            return None;
        }
        let duplicate = core.has_argument(&name);
        core.argument_started(&name, at, end);
        if duplicate {
            // A repair of the argument given again, made once it is open: it names it
            // (docs/FORMAT.md §4).
            self.repair(w, base, core, RepairKind::DuplicateArgument, at);
        }
        // A name given again sends no deltas: what was streamed of the first value stays true.
        core.delta_argument = None;
        if self.emit_deltas && !duplicate {
            let shared = self.names.get(&name);
            out.push(StreamEvent::ArgumentStarted {
                index: core.index,
                argument: Arc::clone(&shared),
                string,
            });
            core.delta_argument = Some(shared);
        }
        Some((name.into_owned(), duplicate))
    }

    /// Reports the value of a top-level argument that the dialect typed itself
    /// ([`StreamEvent::ArgumentValue`]), when events of progress are wanted.
    pub(crate) fn argument_value(
        &self,
        core: &CallCore,
        name: &Arc<str>,
        value: &Value,
        out: &mut Vec<StreamEvent>,
    ) {
        if self.emit_deltas {
            out.push(StreamEvent::ArgumentValue {
                index: core.index,
                argument: Arc::clone(name),
                value: Box::new(value.clone()),
            });
        }
    }

    /// Records a repair at absolute offset `at` in the argument `name`.
    pub(crate) fn repair_in(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        kind: RepairKind,
        at: usize,
        name: &str,
    ) {
        let argument = core.argument_index(name);
        self.record_repair(w, base, core, kind, at, argument);
    }

    /// Adds `n` occurrences, not located, to the entry of `kind` in the argument being read,
    /// which the caller has just recorded (so it exists, and lists its positions).
    pub(crate) fn repair_more(&mut self, core: &mut CallCore, kind: RepairKind, n: usize) {
        let key = (kind, core.open_argument);
        if let Some(&i) = core.repair_index.get(&key) {
            core.repairs[i].count += n;
        }
    }

    /// Adds one occurrence to the (kind, argument) entry, or begins it. Only the first
    /// [`MAX_REPAIR_POSITIONS`](crate::MAX_REPAIR_POSITIONS) occurrences are located; later ones
    /// are counted, so repairs cost no memory per occurrence (docs/FORMAT.md §4).
    fn record_repair(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        kind: RepairKind,
        at: usize,
        argument: Option<usize>,
    ) {
        name_probes(1);
        let entry = core.repair_index.get(&(kind, argument)).copied();
        if let Some(i) = entry
            && core.repairs[i].is_full()
        {
            core.repairs[i].count += 1;
            return;
        }
        let p = self.locator.locate(w, base, at);
        #[cfg(feature = "tracing")]
        tracing::debug!(
            kind = kind.as_str(),
            line = p.line,
            column = p.column,
            "tool call repair"
        );
        match entry {
            Some(i) => {
                let r = &mut core.repairs[i];
                r.count += 1;
                r.positions.push(p);
            }
            None => {
                core.repair_index
                    .insert((kind, argument), core.repairs.len());
                let name = argument.map(|i| core.first_name(i).to_owned());
                core.repairs.push(Repair::new(kind, p, name));
            }
        }
    }

    /// Records the call's first error, at absolute offset `at`. Its snippet is filled in by
    /// [`complete_snippet`] once its text is in the window, so errors do not depend on how the
    /// input was split.
    pub(crate) fn error(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        kind: ErrorKind,
        message: String,
        at: usize,
    ) {
        if core.error.is_some() {
            return;
        }
        // Nothing past the call's limit is read as the call's: an error found there (by a
        // grammar that read a whole lexeme across the limit) is the call running too long,
        // as it is when the input arrives in pieces that end at the limit (docs/FORMAT.md §7).
        if kind != ErrorKind::LimitExceeded && self.call_too_long(core, at) {
            self.fail_too_long(w, base, core);
            return;
        }
        let p = self.locator.locate(w, base, at);
        core.snippet_at = Some(at);
        let mut e = ParseError::new(kind, message, p)
            .in_dialect(self.dialect)
            .with_span(at..at);
        e.tool_name = core.tool_name.clone();
        #[cfg(feature = "tracing")]
        tracing::debug!(
            kind = kind.as_str(),
            line = p.line,
            column = p.column,
            "tool call error"
        );
        core.error = Some(e);
    }

    /// Marks the call unterminated (the input ended, or a new call began, at `end`), with the
    /// arguments it had completed.
    pub(crate) fn unterminated(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        message: &str,
        end: usize,
        partial: Option<serde_json::Value>,
    ) {
        if core.error.is_some() {
            return;
        }
        // Bytes read past the call's limit make it too long however the input ended: a
        // streamed window may have read (blanks, say) past the limit and met the check there,
        // where the whole input ends inside the same blanks (docs/FORMAT.md §7).
        if self.call_too_long(core, end) {
            self.fail_too_long(w, base, core);
            return;
        }
        let p = self.locator.locate(w, base, core.start);
        let mut e = ParseError::new(ErrorKind::UnterminatedCall, message, p)
            .in_dialect(self.dialect)
            .with_span(core.start..end)
            .with_snippet(&w[core.start - base..end - base]);
        e.tool_name = core.tool_name.clone();
        e.partial = partial;
        core.error = Some(e);
    }

    /// Adds `n` decoded bytes to the argument being read; records a `limit_exceeded` error (at the
    /// argument's start, which does not depend on chunking) and returns `false` past the limit.
    #[inline]
    pub(crate) fn count_argument_bytes(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        n: usize,
        at: usize,
    ) -> bool {
        core.argument_bytes = core.argument_bytes.saturating_add(n);
        if core.argument_bytes <= self.opts.limits.max_argument_bytes {
            return true;
        }
        self.argument_too_long(w, base, core, at);
        false
    }

    /// The error of [`count_argument_bytes`](Self::count_argument_bytes) past the limit, out of
    /// its inlined path (a streamed byte of a value is counted on every feed).
    #[cold]
    #[inline(never)]
    fn argument_too_long(&mut self, w: &str, base: usize, core: &mut CallCore, at: usize) {
        let msg = format!(
            "an argument is longer than {} bytes",
            self.opts.limits.max_argument_bytes
        );
        let start = core.last_argument_start().unwrap_or(at);
        self.limit_error(w, base, core, Limit::MaxArgumentBytes, msg, start);
    }

    /// Reads a value's run of `n` bytes of plain text at absolute offset `pos` (in `w`, which
    /// starts at `base`), as every raw-text grammar does: the run is cut at the call's limit and
    /// counted against the argument's, so that both limits are met at the same byte however the
    /// input was split. `Ok(k)`: append the run's first `k` bytes. `Err(resume)`: the call failed
    /// on a limit, and its skip starts at `resume` (just after the character that crossed the
    /// argument's limit, or at `pos` when the call's limit came first).
    pub(crate) fn value_run(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        pos: usize,
        n: usize,
    ) -> Result<usize, usize> {
        let Some(k) = self.run_within_call(core, w, base, pos, n) else {
            self.fail_too_long(w, base, core);
            return Err(pos);
        };
        if k > 0 && !self.count_argument_bytes(w, base, core, k, pos) {
            return Err(self.argument_limit_crossed(core, w, base, pos, k));
        }
        Ok(k)
    }

    /// After [`count_argument_bytes`](Self::count_argument_bytes) failed for a run of `n` raw
    /// bytes at absolute offset `pos` (in `w`, which starts at `base`): the offset just after
    /// the character in which the argument crossed its limit. How a run was split depends on
    /// the chunking, the byte that crosses the limit does not: the skip after the error starts
    /// there, so that every chunking ends the call at the same place.
    fn argument_limit_crossed(
        &self,
        core: &CallCore,
        w: &str,
        base: usize,
        pos: usize,
        n: usize,
    ) -> usize {
        let before = core.argument_bytes.saturating_sub(n);
        // The run's bytes up to and including the first one past the limit.
        let k = (self.opts.limits.max_argument_bytes + 1)
            .saturating_sub(before)
            .clamp(1, n);
        let mut end = pos - base + k;
        while !w.is_char_boundary(end) {
            end += 1;
        }
        base + end
    }

    /// Whether the call has run past `max_call_bytes` at absolute offset `pos`.
    pub(crate) fn call_too_long(&self, core: &CallCore, pos: usize) -> bool {
        pos - core.start > self.opts.limits.max_call_bytes
    }

    /// The first absolute offset past `max_call_bytes` of a call that starts at `start`: nothing from there on is read
    /// as part of the call. Saturating, so `usize::MAX` is no limit rather than an overflow.
    pub(crate) fn call_cap(&self, start: usize) -> usize {
        start
            .saturating_add(self.opts.limits.max_call_bytes)
            .saturating_add(1)
    }

    /// How much of a value's run of `n` bytes at absolute offset `pos` (in `w`, which starts at
    /// `base`) to read: the run stops at the call's limit, at a character boundary, so that
    /// the call limit and the argument limit are met at the same byte however the input was
    /// split (a run read whole could cross both, and which one it reported depended on where
    /// the window ended). Past the cut, the caller's next check finds the call too long.
    /// `None` when not even the run's first character fits: the call is too long now.
    pub(crate) fn run_within_call(
        &self,
        core: &CallCore,
        w: &str,
        base: usize,
        pos: usize,
        n: usize,
    ) -> Option<usize> {
        let room = self.call_cap(core.start).saturating_sub(pos);
        if n <= room {
            return Some(n);
        }
        let rel = pos - base;
        let mut k = room;
        while k > 0 && !w.is_char_boundary(rel + k) {
            k -= 1;
        }
        (k > 0).then_some(k)
    }

    /// Records a `limit_exceeded` error for a call longer than `max_call_bytes`.
    pub(crate) fn fail_too_long(&mut self, w: &str, base: usize, core: &mut CallCore) {
        let msg = format!(
            "the call is longer than {} bytes",
            self.opts.limits.max_call_bytes
        );
        let at = core.start;
        self.limit_error(w, base, core, Limit::MaxCallBytes, msg, at);
    }

    /// Records a `limit_exceeded` error naming `limit`, at absolute offset `at`.
    pub(crate) fn limit_error(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        limit: Limit,
        message: String,
        at: usize,
    ) {
        if core.error.is_some() {
            return;
        }
        // Another limit met past the call's limit: the call's limit came first (see `error`).
        if limit != Limit::MaxCallBytes && self.call_too_long(core, at) {
            self.fail_too_long(w, base, core);
            return;
        }
        self.error(w, base, core, ErrorKind::LimitExceeded, message, at);
        if let Some(e) = core.error.as_mut() {
            e.limit = Some(limit);
        }
    }

    /// A call's arguments read as one JSON object (Hermes, Kimi-K3's `json` block), the object
    /// at absolute `at`: `None`, the call being that limit's error, when an argument's strings
    /// hold more than `max_argument_bytes` (docs/FORMAT.md §7); else the arguments, the names
    /// given again (`dropped`, their first value standing) recorded as `duplicate_argument`
    /// repairs and every argument's encoding JSON.
    pub(crate) fn json_arguments(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        arguments: Map,
        dropped: usize,
        at: usize,
    ) -> Option<Map> {
        let max = self.opts.limits.max_argument_bytes;
        if arguments
            .values()
            .any(|v| crate::json_scan::string_bytes(v) > max)
        {
            let msg = format!("an argument is longer than {max} bytes");
            self.limit_error(w, base, core, Limit::MaxArgumentBytes, msg, at);
            return None;
        }
        if dropped > 0 {
            self.repair(w, base, core, RepairKind::DuplicateArgument, at);
            self.repair_more(core, RepairKind::DuplicateArgument, dropped - 1);
        }
        core.encodings = (arguments.keys())
            .map(|k| ArgumentEncoding {
                argument: k.clone(),
                encoding: Encoding::Json,
            })
            .collect();
        Some(arguments)
    }

    // ----- argument deltas --------------------------------------------------------------------

    /// The input schema of `tool` as read once for its calls, if the tool has one. Its
    /// argument lookups follow docs/FORMAT.md §5.3 ("An argument's schema"): an own property,
    /// else the one its root's branches declare, the branches walked once per tool however
    /// many names are asked for (a raw-text value asks at every parameter tag inside it).
    fn prepared(&self, tool: &str) -> Option<&PreparedSchema> {
        self.opts.schemas.as_ref()?.prepared(tool)
    }

    /// Whether a parameter tag naming `name` inside a raw-text value of `core`'s call may begin
    /// the next argument (docs/FORMAT.md §9.1 rule 3): always, unless the call's tool has a
    /// schema and that schema gives no argument of the name. Qwen3-Coder's and the invoke
    /// family's test.
    pub(crate) fn may_name_argument(&self, core: &CallCore, name: &str) -> bool {
        match core.tool_name.as_deref().and_then(|t| self.prepared(t)) {
            Some(schema) => schema.has_property(name),
            None => true,
        }
    }

    /// Whether the schema of `tool` types its argument `name` as a string (`"type": "string"`,
    /// or a list of types that are `string` and `null`): markup inside it is its text, kept as
    /// written, and its deltas carry it as written.
    pub(crate) fn argument_is_string(&self, tool: Option<&str>, name: &str) -> bool {
        tool.and_then(|t| self.prepared(t))
            .is_some_and(|schema| schema.is_string(name))
    }

    /// Whether a value of the JSON Schema type `ty` that the dialect declares for argument `name`
    /// may stand: the tool's schema lets that property be one
    /// ([`arg_types::json_schema::accepts`]), or has no such property (or there is no schema).
    /// Where it may not, the schema types the text, as in every raw-text dialect (DSML's
    /// `string`, Kimi-K3's `type`: docs/FORMAT.md §9.5 rule 6, §9.6 rule 5).
    pub(crate) fn declared_fits(&self, core: &CallCore, name: &str, ty: &str) -> bool {
        let property = (core.tool_name.as_deref())
            .and_then(|tool| self.prepared(tool))
            .and_then(|schema| schema.property(name));
        property.is_none_or(|p| arg_types::json_schema::accepts(&p, ty))
    }

    /// Pushes the text decoded since the last delta, if any, as an event of argument `name`:
    /// written over the slot a handed-back delta left (`feed_reusing`) when there is one, which
    /// is the streamed value's every feed, so that much is inlined where the grammar calls it.
    #[inline(always)]
    pub(crate) fn push_delta(
        &mut self,
        core: &mut CallCore,
        name: &str,
        out: &mut Vec<StreamEvent>,
    ) {
        if core.delta.is_empty()
            || crate::recycle::fill_delta_slot(
                out,
                core.index,
                core.delta_argument.as_ref(),
                name,
                &mut core.delta,
            )
        {
            return;
        }
        self.push_delta_event(core, name, out);
    }

    /// [`push_delta`](Self::push_delta) without a slot: a new event.
    #[inline(never)]
    fn push_delta_event(&mut self, core: &mut CallCore, name: &str, out: &mut Vec<StreamEvent>) {
        let (argument, text) = match (&core.delta_argument, self.recycled.is_empty()) {
            (Some(a), false) => {
                let text = self.recycled.swap_out(&mut core.delta).unwrap_or_default();
                (self.recycled.argument(a), text)
            }
            (a, _) => (
                a.as_ref().map_or_else(|| Arc::from(name), Arc::clone),
                take_delta(&mut core.delta),
            ),
        };
        debug_assert_eq!(*argument, *name);
        out.push(StreamEvent::ArgumentDelta {
            index: core.index,
            argument,
            text,
        });
    }

    // ----- finishing --------------------------------------------------------------------------

    /// Emits the finished call at absolute offset `end`: the error it had, or the call built
    /// from its parts.
    pub(crate) fn finish_call(
        &mut self,
        w: &str,
        base: usize,
        mut core: CallCore,
        arguments: Arguments,
        end: usize,
        out: &mut Vec<StreamEvent>,
    ) {
        // A call's last lexeme is read whole, so it may end past the limit (`</tool>` begun
        // within it): such a call is too long too, however the input was split (docs/FORMAT.md
        // §7).
        if self.call_too_long(&core, end) {
            self.fail_too_long(w, base, &mut core);
        }
        complete_snippet(w, base, &mut core, end, Some(end));
        // Arguments read as JSON count their values, as `max_elements` counts them, when the
        // dialect did not count them itself.
        let elements = match &arguments {
            Arguments::Json(map) if core.elements == 0 => json_nodes(map),
            _ => core.elements,
        };
        self.input_elements = self.input_elements.saturating_add(elements);
        let index = core.index;
        let result = match core.error.take() {
            Some(e) => Err(Box::new(e)),
            None => self.build_call(w, base, core, arguments, end).map(Box::new),
        };
        out.push(StreamEvent::CallFinished { index, result });
    }

    fn missing_tool_name(
        &mut self,
        w: &str,
        base: usize,
        core: &CallCore,
        end: usize,
    ) -> ParseError {
        let p = self.locator.locate(w, base, core.start);
        let message = match self.dialect {
            Dialect::Tool => "the call has no <tool_name>, or it is empty",
            _ => "the call names no tool, or an empty one",
        };
        ParseError::new(ErrorKind::MissingToolName, message, p)
            .in_dialect(self.dialect)
            .with_snippet(&w[core.start - base..end - base])
    }

    /// An error for an argument that does not fit the schema, at the argument's start tag.
    fn invalid_argument(
        &mut self,
        w: &str,
        base: usize,
        core: &CallCore,
        tool_name: String,
        path: &str,
        message: String,
    ) -> Box<ParseError> {
        let first = path.split(['.', '[']).next().unwrap_or_default();
        let (at, tag_end) = core
            .argument_start(first)
            .unwrap_or((core.start, core.tag_end));
        let p = self.locator.locate(w, base, at);
        let mut err = ParseError::new(ErrorKind::InvalidArgument, message, p)
            .in_dialect(self.dialect)
            .with_span(at..tag_end)
            .with_snippet(&w[at - base..tag_end - base]);
        err.tool_name = Some(tool_name);
        Box::new(err)
    }

    /// The finished call from its parts, or why it cannot be one.
    fn build_call(
        &mut self,
        w: &str,
        base: usize,
        mut core: CallCore,
        arguments: Arguments,
        end: usize,
    ) -> Result<ToolCall, Box<ParseError>> {
        let Some(tool_name) = core
            .tool_name
            .take()
            .map(trim_name)
            .filter(|t| !t.is_empty())
        else {
            return Err(Box::new(self.missing_tool_name(w, base, &core, end)));
        };
        // Every dialect's names obey the one rule (docs/FORMAT.md §3.4), whatever form they came
        // in (the legacy JSON form's are checked only here).
        let server = core.server_name.take().map(trim_name);
        for (name, tool) in [(Some(&tool_name), true), (server.as_ref(), false)] {
            if let Some(name) = name.filter(|n| !n.is_empty() && !is_valid_name(n)) {
                let p = self.locator.locate(w, base, core.start);
                let e = ParseError::new(
                    ErrorKind::InvalidToolName,
                    invalid_name_message(name, tool),
                    p,
                )
                .in_dialect(self.dialect)
                .with_snippet(&w[core.start - base..end - base]);
                return Err(Box::new(e));
            }
        }
        core.server_name = server;
        // The schemas are shared (an `Arc`): held here by a count, not copied per call.
        let schemas = self.opts.schemas.clone();
        let prepared = schemas.as_deref().and_then(|s| s.prepared(&tool_name));
        let schema = prepared.map(PreparedSchema::root);
        let source = &w[core.start - base..end - base];
        let mut legacy_json = false;
        let arguments = match arguments {
            Arguments::Json(map) => {
                legacy_json = self.dialect == Dialect::Tool;
                map
            }
            Arguments::Converted(map) => map,
            Arguments::Tree(args) => match prepared {
                None => arg_types::tree::arguments_from_element_owned(args, Some(source)),
                Some(prepared) => {
                    let map = match prepared.coerce_arguments(&args, Some(source)) {
                        Ok(map) => map,
                        Err(e) => {
                            let path = e.path.clone();
                            let mut err = self.invalid_argument(
                                w,
                                base,
                                &core,
                                tool_name,
                                &path,
                                e.to_string(),
                            );
                            err.cause = Some(crate::error::Cause(Arc::new(e)));
                            return Err(err);
                        }
                    };
                    for child in args.child_elements() {
                        if child.has_child_elements()
                            && matches!(map.get(&child.name), Some(Value::String(_)))
                        {
                            let at = core
                                .argument_start(&child.name)
                                .map_or(core.start, |(at, _)| at);
                            let kind = RepairKind::MarkupAsString;
                            self.repair_in(w, base, &mut core, kind, at, &child.name);
                        }
                    }
                    map
                }
            },
            Arguments::Raw(raw) => self.type_raw(w, base, &mut core, raw, prepared),
            Arguments::Typed(args) => self.type_mixed(w, base, &mut core, args, prepared),
            Arguments::RawTree(args) => {
                self.type_raw_tree(w, base, &mut core, &args, source, schema)
            }
        };
        Ok(ToolCall {
            server_name: server_name(core.server_name.take()),
            tool_name,
            arguments,
            repairs: core.repairs,
            encodings: core.encodings,
            legacy_json,
            span: core.start..end,
            fenced: core.fenced,
        })
    }

    /// The arguments a truncated call had completed, typed as the finished call would be, as
    /// JSON.
    pub(crate) fn partial_raw(&self, core: &CallCore, args: &[RawArgument]) -> serde_json::Value {
        let typed = type_raw_arguments(
            args.iter().map(|a| (a.name.as_str(), a.text.as_str())),
            core.tool_name.as_deref().and_then(|t| self.prepared(t)),
        );
        serde_json::Value::from(Value::Object(typed.arguments))
    }

    /// [`Assembler::partial_raw`] for arguments some of which the dialect typed itself.
    pub(crate) fn partial_typed(
        &self,
        core: &CallCore,
        args: &[(RawArgument, Option<Value>)],
    ) -> serde_json::Value {
        let untyped: Vec<RawArgument> = args
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(a, _)| a.clone())
            .collect();
        let serde_json::Value::Object(mut by_schema) = self.partial_raw(core, &untyped) else {
            return serde_json::Value::Object(Default::default());
        };
        let mut map = serde_json::Map::new();
        for (a, v) in args {
            let v = match v {
                Some(v) => Some(serde_json::Value::from(v.clone())),
                None => by_schema.remove(&a.name),
            };
            if let Some(v) = v {
                map.insert(a.name.clone(), v);
            }
        }
        serde_json::Value::Object(map)
    }

    /// Arguments some of which the dialect typed itself: those keep their values, the rest are
    /// typed by [`Assembler::type_raw`]; the order is the order written.
    fn type_mixed(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        mut args: Vec<(RawArgument, Option<Value>)>,
        schema: Option<&PreparedSchema>,
    ) -> Map {
        let mut untyped = Vec::new();
        for (a, v) in &mut args {
            if v.is_none() {
                untyped.push(RawArgument {
                    name: a.name.clone(),
                    text: std::mem::take(&mut a.text),
                });
            }
        }
        let mut by_schema = self.type_raw(w, base, core, untyped, schema);
        let mut map = Map::with_capacity(args.len());
        for (a, v) in args {
            if let Some(v) = v.or_else(|| by_schema.shift_remove(&a.name)) {
                map.insert(a.name, v);
            }
        }
        map
    }

    /// The arguments a truncated call had completed, written as elements with raw-text leaves,
    /// typed as the finished call would be, as JSON.
    pub(crate) fn partial_raw_tree(&self, core: &CallCore, args: &Element) -> serde_json::Value {
        let schema = core
            .tool_name
            .as_deref()
            .and_then(|t| self.opts.schemas.as_ref()?.get(t));
        let typed = arg_types::raw::type_raw_tree(args, schema, None);
        serde_json::Value::from(Value::Object(typed.arguments))
    }

    /// Types arguments written as elements with raw-text leaves by the tool's schema; what fits
    /// no type stays text, with a repair recorded, and a string argument written as elements is
    /// their markup, with a repair.
    fn type_raw_tree(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        args: &Element,
        source: &str,
        schema: Option<&serde_json::Value>,
    ) -> Map {
        let typed = arg_types::raw::type_raw_tree(args, schema, Some(source));
        for mismatch in &typed.mismatches {
            // The top-level argument the path (`a.b[0]`) is in: repairs are counted per argument.
            let name = args
                .child_elements()
                .map(|c| c.name.as_str())
                .find(|n| {
                    mismatch.name.strip_prefix(n).is_some_and(|rest| {
                        rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')
                    })
                })
                .unwrap_or(&mismatch.name);
            let at = core.argument_start(name).map_or(core.start, |(at, _)| at);
            self.repair_in(w, base, core, RepairKind::ValueAsString, at, name);
        }
        for child in args.child_elements() {
            if child.has_child_elements()
                && matches!(typed.arguments.get(&child.name), Some(Value::String(_)))
            {
                let at = core
                    .argument_start(&child.name)
                    .map_or(core.start, |(at, _)| at);
                self.repair_in(w, base, core, RepairKind::MarkupAsString, at, &child.name);
            }
        }
        typed.arguments
    }

    /// Types arguments written as raw text by the tool's schema; a value that fits none of its
    /// types stays a string, with a repair recorded (one bad value never drops a call).
    fn type_raw(
        &mut self,
        w: &str,
        base: usize,
        core: &mut CallCore,
        raw: Vec<RawArgument>,
        schema: Option<&PreparedSchema>,
    ) -> Map {
        let typed = type_raw_arguments(raw.into_iter().map(|a| (a.name, a.text)), schema);
        for mismatch in &typed.mismatches {
            let at = core
                .argument_start(&mismatch.name)
                .map_or(core.start, |(at, _)| at);
            let kind = RepairKind::ValueAsString;
            self.repair_in(w, base, core, kind, at, &mismatch.name);
        }
        typed.arguments
    }
}

/// A call's raw-text arguments typed by its tool's prepared schema, or as strings when the
/// tool has none ([`arg_types::raw::type_raw_arguments`]).
fn type_raw_arguments<N, T>(
    args: impl IntoIterator<Item = (N, T)>,
    schema: Option<&PreparedSchema>,
) -> arg_types::raw::TypedArguments
where
    N: AsRef<str> + Into<String>,
    T: AsRef<str> + Into<String>,
{
    match schema {
        Some(s) => s.type_raw_arguments(args),
        None => arg_types::raw::type_raw_arguments(args, None),
    }
}

/// Objects, arrays and members or items of JSON arguments: the values `max_elements` counts.
fn json_nodes(map: &Map) -> usize {
    fn nodes(v: &Value) -> usize {
        match v {
            Value::Array(items) => 1 + items.iter().map(nodes).sum::<usize>(),
            Value::Object(m) => 1 + m.values().map(nodes).sum::<usize>(),
            _ => 1,
        }
    }
    map.values().map(nodes).sum()
}

/// The delta's text. A short one (a streamed chunk's few bytes) is copied into a string of its
/// own size and the buffer kept for the next chunk, which costs less than growing a fresh
/// string; a long one is moved out, so a large chunk is never held twice.
fn take_delta(delta: &mut String) -> String {
    if delta.len() > 64 {
        return std::mem::take(delta);
    }
    let text = crate::stream::owned(delta);
    delta.clear();
    text
}

/// Fills in the snippet of the call's error once its text is read: 60 characters, or up to the
/// call's `end`, whichever comes first. Only text already lexed (before `pos`) counts: text
/// beyond it may still turn out to follow the call's end.
pub(crate) fn complete_snippet(
    w: &str,
    base: usize,
    core: &mut CallCore,
    pos: usize,
    end: Option<usize>,
) {
    let Some(at) = core.snippet_at else { return };
    let available = &w[at - base..end.unwrap_or(pos) - base];
    if end.is_some() || available.chars().nth(crate::error::SNIPPET_CHARS).is_some() {
        if let Some(e) = core.error.as_mut() {
            e.snippet = crate::error::snippet(available);
            let quoted = available
                .char_indices()
                .nth(crate::error::SNIPPET_CHARS)
                .map_or(available.len(), |(i, _)| i);
            e.span = at..at + quoted;
        }
        core.snippet_at = None;
    }
}

/// A name without the blanks around it.
fn trim_name(name: String) -> String {
    let trimmed = name.trim_matches([' ', '\t', '\n', '\r']);
    if trimmed.len() == name.len() {
        name
    } else {
        trimmed.to_owned()
    }
}

/// The server name a call gets: `local` when it names none.
fn server_name(s: Option<String>) -> String {
    s.filter(|s| !s.is_empty())
        .unwrap_or_else(|| "local".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name index is the same below, at and above the size where it turns into a map: each
    /// name's first start is found, a repeated name keeps its first start, an unknown name is
    /// absent, and no lookup examines more than `NameIndex::FEW` entries.
    #[test]
    fn first_starts_are_found_at_every_count_of_names() {
        for n in [
            0,
            1,
            NameIndex::FEW - 1,
            NameIndex::FEW,
            NameIndex::FEW + 1,
            40,
        ] {
            let mut core = CallCore::new(0, 0, 6);
            let name = |k: usize| format!("a{k}");
            for k in 0..n {
                core.argument_started(&name(k), 10 * k, 10 * k + 4);
            }
            // Repeats (an array argument) keep the first start.
            for k in 0..n {
                core.argument_started(&name(k), 1000 + k, 1004 + k);
            }
            for k in 0..n {
                NAME_PROBES.with(|c| c.set(0));
                assert_eq!(
                    core.argument_start(&name(k)),
                    Some((10 * k, 10 * k + 4)),
                    "{n} names"
                );
                assert!(core.has_argument(&name(k)));
                let probes = NAME_PROBES.with(std::cell::Cell::get);
                assert!(probes <= 2 * NameIndex::FEW, "{probes} probes, {n} names");
            }
            assert_eq!(core.argument_start("absent"), None);
            assert!(!core.has_argument("absent"));
            assert_eq!(
                core.last_argument_start(),
                n.checked_sub(1).map(|k| 1000 + k)
            );
        }
    }
}
