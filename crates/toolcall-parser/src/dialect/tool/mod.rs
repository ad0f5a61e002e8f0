//! The `<tool>` grammar: prose, calls in the XML form (docs/FORMAT.md §1.2) or the legacy JSON
//! form (§1.3), and the repairs of §4.
//!
//! It is a state machine over the lexer, driven by [`crate::StreamParser`]. It reads a window of
//! the input from `pos` on and reports, through [`ToolXml::run`], the first byte it still needs:
//! while a call is open that is the call's `<tool>`, so the call's source stays available for
//! verbatim markup and for reverting tentative elements to text; in prose it is only the bytes
//! that could still begin `<tool>`.
//!
//! - `mod.rs`: the state (modes, open elements, the call being read) and the dispatcher;
//! - [`prose`]: prose between calls, where a call begins, Markdown fences;
//! - [`elements`]: the XML form: structure, values, repairs;
//! - [`legacy`]: the legacy JSON form;
//! - [`ending`]: errors and recovery, building the finished call, argument deltas.

use crate::assemble::{Arguments, Assembler, CallCore};
use crate::dialect::scan::Flow;
use crate::dialect::{Dialect, Grammar};
use crate::event::StreamEvent;
use crate::fence::Fence;
use crate::json_scan::JsonScanner;
use crate::lexer::{BareAmps, Finders, Lexer};
use crate::options::ParseOptions;
use std::sync::{Arc, LazyLock};
use xml_fallback::tree::{Element, Node};

const TOOL: &str = "tool";

/// The searches of every `<tool>` grammar's lexer: no comment may hold `<tool` or `</tool`.
static BARRED: LazyLock<Finders> = LazyLock::new(|| Finders::with_barrier("<tool", "</tool"));
const ARGUMENTS: &str = "arguments";

mod elements;
mod ending;
mod legacy;
mod prose;

#[derive(Debug, Clone, Copy)]
enum Mode {
    Prose,
    /// `<tool>` seen; the first non-blank byte decides: `<` XML, `{` JSON, anything else prose.
    AfterToolTag,
    Xml,
    /// A top-level argument's close tag at `close_at..close_end`; whitespace scanned to
    /// `scanned`. It is structural only if markup (or the end) follows.
    AfterLeafClose {
        close_at: usize,
        close_end: usize,
        scanned: usize,
    },
    Json {
        start: usize,
        scanner: JsonScanner,
    },
    AfterJson {
        start: usize,
        end: usize,
    },
    /// After an error: look for `</tool>` (or a new `<tool>`) to end the call.
    Skip,
}

/// The role of an open element in the call's structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Tool,
    ServerName,
    ToolName,
    Arguments,
    Value,
}

/// An open element.
#[derive(Debug)]
struct Frame {
    /// Its name, attributes and the children before [`text`](Self::text).
    element: Element,
    /// The text after its last child node in `element` (all its text, for a leaf of text, the
    /// usual value): kept apart, so that such a leaf is read without building a children
    /// vector ([`Frame::flush_text`] moves it into `element` before any other child joins it).
    text: String,
    role: Role,
    /// Absolute offset of its `<`.
    tag_start: usize,
    /// Absolute offset of its content.
    content_start: usize,
    /// Opened after non-blank text of its parent: may turn back into text (`Vec<String>`).
    tentative: bool,
    /// Non-blank text seen in it.
    has_text: bool,
    refs: bool,
    cdata: bool,
    /// The first close tag of no open element taken as text in it (offset, name): if it is
    /// never closed, that tag was likely its misspelt close (`</contnet>`), and the error is
    /// reported there.
    stray_close: Option<(usize, String)>,
}

impl Frame {
    fn new(name: &str, role: Role, tag_start: usize, content_start: usize) -> Self {
        // The structural elements' names are known by their role: not stored (see `name`).
        let stored = match role {
            Role::Tool | Role::ServerName | Role::ToolName | Role::Arguments => "",
            Role::Value => name,
        };
        Frame {
            element: Element::new(stored),
            text: String::new(),
            role,
            tag_start,
            content_start,
            tentative: false,
            has_text: false,
            refs: false,
            cdata: false,
            stray_close: None,
        }
    }

    /// The element's name.
    fn name(&self) -> &str {
        match self.role {
            Role::Tool => TOOL,
            Role::ServerName => "server_name",
            Role::ToolName => "tool_name",
            Role::Arguments => ARGUMENTS,
            Role::Value => &self.element.name,
        }
    }

    fn is_leaf(&self) -> bool {
        !self.element.has_child_elements()
    }

    fn push_text(&mut self, s: &str) {
        self.text.push_str(s);
    }

    /// Moves the pending text into the children, as a node of its own: before another child
    /// joins it, and before the element is used whole.
    fn flush_text(&mut self) {
        if !self.text.is_empty() {
            let text = std::mem::take(&mut self.text);
            self.element.children.push(Node::Text(text));
        }
    }

    /// Whether its last child node is a CDATA section (no text after it).
    fn ends_in_cdata(&self) -> bool {
        self.text.is_empty() && matches!(self.element.children.last(), Some(Node::CData(_)))
    }

    /// The element, its text in its children.
    fn into_element(mut self) -> Element {
        self.flush_text();
        self.element
    }

    /// Appends CDATA content to the last CDATA node, or to a new one ([`new_cdata`], out of line:
    /// a streamed byte of a CDATA section appends here on every feed). Inside a section no text
    /// is pending: the section's node, made by [`new_cdata`] (which moves pending text in first),
    /// is the last child until the section ends.
    ///
    /// [`new_cdata`]: Self::new_cdata
    #[inline(always)]
    fn push_cdata(&mut self, s: &str) {
        debug_assert!(self.text.is_empty(), "text pending inside a CDATA section");
        match self.element.children.last_mut() {
            Some(Node::CData(t)) => crate::stream::append(t, s),
            _ => self.new_cdata(s),
        }
    }

    /// A new CDATA node holding `s`.
    #[cold]
    #[inline(never)]
    fn new_cdata(&mut self, s: &str) {
        self.flush_text();
        self.element.children.push(Node::CData(s.to_owned()));
    }
}

/// A call being read: what every dialect has (`core`), and the open elements.
#[derive(Debug)]
struct CallState {
    core: CallCore,
    stack: Vec<Frame>,
    /// The `<arguments>` element once closed; while no schema is given its top-level
    /// arguments are in `members` instead (never in both).
    arguments: Option<Element>,
    /// The top-level arguments converted as each closed, when no schema is given (nothing to
    /// coerce the whole tree by).
    members: arg_types::tree::Members,
    /// The tool's schema types the open top-level argument as a string: markup inside it is
    /// delivered in deltas as written (it is kept verbatim, docs/FORMAT.md §4 rule 5).
    string_argument: bool,
    /// While the open top-level argument's deltas are its content as written: the offset up to
    /// which they are (`StreamEvent::ArgumentDecoded` reports the first delta that is not).
    verbatim_upto: Option<usize>,
}

/// How the markup a lexeme belongs to reaches the open top-level argument's deltas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeltaRegion {
    /// Not inside markup of a top-level argument (its own text is delivered as it is decoded).
    None,
    /// Inside an element opened after text (`Vec<String>`), which reverts to text unless it is
    /// closed: delivered as the revert reads it (references decoded, tags as written).
    AsText,
    /// Inside markup of a string-typed argument: delivered as written.
    Verbatim,
}

impl CallState {
    fn new(index: usize, start: usize, tag_end: usize) -> Self {
        CallState {
            core: CallCore::new(index, start, tag_end),
            stack: Vec::new(),
            arguments: None,
            members: arg_types::tree::Members::new(),
            string_argument: false,
            verbatim_upto: None,
        }
    }

    /// Where the lexeme at hand stands for deltas (docs/FORMAT.md §2, streaming).
    fn delta_region(&self) -> DeltaRegion {
        match self.stack.get(3) {
            Some(_) if self.argument().is_none() => DeltaRegion::None,
            Some(child) if child.tentative => DeltaRegion::AsText,
            Some(_) if self.string_argument => DeltaRegion::Verbatim,
            _ => DeltaRegion::None,
        }
    }

    fn top(&mut self) -> &mut Frame {
        let n = self.stack.len();
        &mut self.stack[n - 1]
    }

    /// The open top-level argument (`<tool><arguments><arg>`), if one is open.
    fn argument(&self) -> Option<&Frame> {
        match self.stack.as_slice() {
            [_, arguments, argument, ..] if arguments.role == Role::Arguments => Some(argument),
            _ => None,
        }
    }

    /// Whether the open element is a top-level argument (`<tool><arguments><arg>`).
    fn at_top_level_argument(&self) -> bool {
        self.stack.len() == 3 && self.argument().is_some()
    }

    /// The open `<arguments>` element, if the call is inside it.
    fn open_arguments(&self) -> Option<&Element> {
        match self.stack.as_slice() {
            [_, arguments, ..] if arguments.role == Role::Arguments => Some(&arguments.element),
            _ => None,
        }
    }
}

/// The `<tool>` grammar's whole state.
#[derive(Debug)]
pub(crate) struct ToolXml {
    /// What every dialect shares: options, positions, prose, the call count.
    pub(crate) asm: Assembler,
    lexer: Lexer,
    mode: Mode,
    /// Absolute offset of the next byte to read.
    pos: usize,
    /// Boxed: the grammar takes the call out and puts it back around every handler.
    call: Option<Box<CallState>>,
    /// The box of the last call ended, its stack emptied but keeping its capacity: the next
    /// call is read in it ([`ToolXml::boxed`]), not in a new allocation.
    spare: Option<Box<CallState>>,
    /// Bare `&`s found by the last text run (kept to reuse its allocation).
    bare_scratch: BareAmps,
    /// Markdown fences, tracked only when calls in fences are to be ignored.
    fence: Fence,
}
impl Grammar for ToolXml {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        // A streamed token of plain text inside an argument: appended before anything else,
        // without the general path's set-up (`run_window`, never inlined here), which is most of
        // a 1-byte feed's work otherwise.
        if !is_final && matches!(self.mode, Mode::Xml) && self.plain_feed(w, base, out) {
            return self.keep_from_call();
        }
        self.run_window(w, base, is_final, out)
    }

    fn assembler(&mut self) -> &mut Assembler {
        &mut self.asm
    }

    fn start_at(&mut self, at: usize) {
        self.pos = at;
        self.asm.prose_start = at;
    }

    fn set_fence(&mut self, fence: crate::fence::Fence) {
        self.fence = fence;
    }
}

impl ToolXml {
    /// `progress`: whether to report events that only matter while streaming (call started,
    /// tool name known, argument deltas).
    pub(crate) fn new(opts: ParseOptions, progress: bool) -> Self {
        ToolXml {
            asm: Assembler::new(opts, Dialect::Tool, progress),
            lexer: Lexer::with_finders(&BARRED),
            mode: Mode::Prose,
            pos: 0,
            call: None,
            spare: None,
            bare_scratch: BareAmps::default(),
            fence: Fence::default(),
        }
    }

    /// Reads `w` (absolute offset `base`) from where it stopped; returns the first absolute
    /// offset it still needs. With `is_final`, ends everything that is open. (Never inlined into
    /// [`Grammar::run`], whose per-feed fast path would otherwise pay its set-up.)
    #[inline(never)]
    fn run_window(
        &mut self,
        w: &str,
        base: usize,
        is_final: bool,
        out: &mut Vec<StreamEvent>,
    ) -> usize {
        loop {
            let flow = match self.mode {
                Mode::Prose => self.prose(w, base, is_final, out),
                Mode::AfterToolTag => self.after_tool_tag(w, base, is_final, out),
                Mode::Xml => self.xml(w, base, is_final, out),
                Mode::AfterLeafClose { .. } => self.after_leaf_close(w, base, is_final, out),
                Mode::Json { .. } => self.json(w, base, is_final, out),
                Mode::AfterJson { .. } => self.after_json(w, base, is_final, out),
                Mode::Skip => self.skip(w, base, is_final, out),
            };
            if let Flow::Stop = flow {
                break;
            }
        }
        if is_final {
            self.finish(w, base, out);
        }
        // Without deltas no text is kept for them: nothing to flush.
        if self.asm.emit_deltas {
            self.flush_delta(w, base, out);
        }
        self.keep_from()
    }

    /// A streamed token of plain text inside an argument ([`plain_tail`](Self::plain_tail)),
    /// its delta flushed; `false` (nothing done) when the general path must read it.
    #[inline]
    fn plain_feed(&mut self, w: &str, base: usize, out: &mut Vec<StreamEvent>) -> bool {
        let ToolXml {
            call,
            asm,
            lexer,
            pos,
            ..
        } = self;
        let Some(call) = call.as_deref_mut() else {
            return false;
        };
        Self::plain_tail(asm, lexer, pos, (w, base), call, out)
    }

    /// The first absolute offset still needed.
    fn keep_from(&self) -> usize {
        match self.mode {
            // After an error only the lexeme in progress matters; the error is already made.
            Mode::Skip => self
                .call
                .as_ref()
                .and_then(|c| c.core.snippet_at)
                .map_or(self.pos, |at| at.min(self.pos)),
            Mode::Prose => self.asm.kept_from(self.pos),
            _ => self.keep_from_call(),
        }
    }

    /// [`keep_from`](Self::keep_from) in a call's modes: its start, the position, or unsent
    /// prose, whichever is first.
    #[inline]
    fn keep_from_call(&self) -> usize {
        let from = self
            .call
            .as_ref()
            .map_or(self.pos, |c| c.core.start.min(self.pos));
        self.asm.kept_from(from)
    }

    /// Ends the input: an open call is unterminated, prose is emitted.
    fn finish(&mut self, w: &str, base: usize, out: &mut Vec<StreamEvent>) {
        let end = base + w.len();
        match self.mode {
            Mode::Prose | Mode::AfterToolTag => {
                self.call = None;
                self.pos = end;
                self.asm.emit_prose(w, base, end, out);
            }
            _ => {
                if let Some(mut call) = self.call.take() {
                    let partial = match self.mode {
                        // The legacy JSON object is complete: its arguments are.
                        Mode::AfterJson { start, end } => {
                            legacy::complete_arguments(&w[start - base..end - base])
                        }
                        _ => self.partial_arguments(w, base, &call),
                    };
                    self.asm.unterminated(
                        w,
                        base,
                        &mut call.core,
                        "the input ended before </tool> closed the call",
                        end,
                        partial,
                    );
                    self.emit_call(w, base, *call, end, out);
                }
                self.mode = Mode::Prose;
                self.pos = end;
                self.asm.prose_start = end;
            }
        }
    }

    /// Takes the open call out for a handler; without one (a mode left behind by an ended call)
    /// the grammar is back in prose.
    fn take_call(&mut self) -> Option<Box<CallState>> {
        let call = self.call.take();
        if call.is_none() {
            self.mode = Mode::Prose;
        }
        call
    }

    /// Returns the call taken out for a handler, unless the handler ended it (back in prose) or
    /// replaced it with a new one.
    fn put_back(&mut self, call: Box<CallState>) {
        if self.call.is_none() && !matches!(self.mode, Mode::Prose) {
            self.call = Some(call);
        } else {
            self.spare = Some(call);
        }
    }

    /// Whether a call's top-level arguments are converted as each closes (`CallState::members`)
    /// rather than kept as the tree of `<arguments>`: when no schema is given, there is no
    /// coercion to read the whole tree.
    fn converts_as_arguments_close(&self) -> bool {
        self.asm.opts.schemas.is_none()
    }

    /// `state` in a box: the spare one when there is one (its stack's capacity kept).
    fn boxed(&mut self, state: CallState) -> Box<CallState> {
        match self.spare.take() {
            Some(mut spare) => {
                let mut stack = std::mem::take(&mut spare.stack);
                stack.clear();
                *spare = CallState { stack, ..state };
                spare
            }
            None => Box::new(state),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::assemble::NAME_PROBES;
    use crate::{Dialect, Limits, ParseOptions, ToolSchemas};

    /// Issue 14 item 4: work in the number of argument names is linear. Every lookup of an
    /// argument or a repair entry by name is counted (entries examined); with `n` distinct names,
    /// each with repairs, a stray close tag, a nested element and schema typing, the count stays
    /// under a constant per name at every doubling, in every dialect that reads names.
    #[test]
    fn name_lookups_are_constant_per_name() {
        let xml = |n: usize| {
            let mut s = String::from("<tool><tool_name>w</tool_name><arguments>");
            for i in 0..n {
                s.push_str(&format!("<a{i}>x &amp y < z </q> <b>t</b></a{i}>"));
            }
            s + "</arguments></tool>"
        };
        let qwen = |n: usize| {
            let mut s = String::from("<tool_call>\n<function=w>\n");
            for i in 0..n {
                s.push_str(&format!(
                    "<parameter=a{i}>\n{i}\n</parameter>\n<parameter=a{i}>\nx\n</parameter>\n"
                ));
            }
            s + "</function>\n</tool_call>"
        };
        type Make<'a> = &'a dyn Fn(usize) -> String;
        let cases: [(&str, Make<'_>, Dialect, &str); 3] = [
            ("tool", &xml, Dialect::Tool, "string"),
            ("tool, typed as integers", &xml, Dialect::Tool, "integer"),
            ("qwen3-coder", &qwen, Dialect::Qwen3Coder, "integer"),
        ];
        for (what, make, dialect, ty) in cases {
            for n in [250, 500, 1_000, 2_000] {
                let properties: serde_json::Map<_, _> = (0..n)
                    .map(|i| (format!("a{i}"), serde_json::json!({ "type": ty })))
                    .collect();
                let mut schemas = ToolSchemas::default();
                schemas.insert(
                    "w",
                    serde_json::json!({"type": "object", "properties": properties}),
                );
                let opts = ParseOptions::new()
                    .with_dialect(dialect)
                    .with_schemas(schemas)
                    .with_limits(Limits::default().with_max_elements(usize::MAX));
                let text = make(n);
                NAME_PROBES.with(|c| c.set(0));
                let r = crate::parse_with(&text, &opts);
                let probes = NAME_PROBES.with(|c| c.get());
                assert_eq!(r.calls().len() + r.errors().len(), 1, "{what}");
                assert!(
                    probes <= 16 * n,
                    "{what}: {probes} name probes for {n} names"
                );
            }
        }
    }
}
