//! `--dialect auto`: the first call marker met picks the dialect (docs/FORMAT.md §9.7).
//!
//! The grammar probes prose for every dialect's call markers ([`Dialect::call_markers`]). At a
//! marker it starts, at that byte, the grammar of each dialect the marker may belong to (its
//! *candidates*: `<tool_call>` is Hermes', Qwen3-Coder's and GLM's) and lets them read on,
//! never past the next marker of any dialect. A candidate that begins a call (or reports an
//! error) is chosen: its events so far are passed on and it reads the rest of the reply alone,
//! so later markers of other dialects are its prose. A candidate that leaves the marker as prose
//! drops out; when none is left, the marker was prose and probing goes on after it. Candidates
//! never read past the next marker, so none can skip a marker of another dialect as prose and
//! pick itself on a later call.
//!
//! Every byte is probed once; each candidate reads incrementally, as it would any chunking, so
//! the whole stays linear and every chunking gives the one-shot result.
//!
//! ```text
//!  Probing ──marker──► Speculating ──a candidate reports a call──► Chosen (that dialect)
//!     ▲                    │
//!     └──every candidate leaves the marker as prose──┘
//! ```

use std::sync::LazyLock;

use crate::assemble::Assembler;
use crate::dialect::scan::Input;
use crate::dialect::{Dialect, Grammar};
use crate::event::StreamEvent;
use crate::fence::Fence;
use crate::options::ParseOptions;

/// The grammar's state.
#[derive(Debug, Default)]
enum State {
    /// Looking for the first marker.
    #[default]
    Probing,
    /// A marker at `at`: the grammars of the dialects it may belong to read on.
    Speculating(Speculation),
    /// The dialect is chosen: its grammar reads everything from here.
    Chosen(Box<dyn Grammar>),
}

/// The candidates of the marker at `at`.
#[derive(Debug)]
struct Speculation {
    at: usize,
    candidates: Vec<Candidate>,
    /// The probe as it stood at the first marker after `at`: when every candidate leaves the
    /// marker as prose, probing resumes there (the candidates may have read past it).
    resume: Option<(usize, Fence)>,
}

/// A dialect's grammar reading from a marker, and what it reported so far.
#[derive(Debug)]
struct Candidate {
    grammar: Box<dyn Grammar>,
    events: Vec<StreamEvent>,
    /// The first byte it still needs.
    keep: usize,
}

/// What the probe found.
#[derive(Debug)]
enum Scan {
    /// A marker at this absolute offset: the dialects it may belong to (bits by their index in
    /// [`Dialect::ALL`]), and whether it stands inside a Markdown fence.
    Found {
        at: usize,
        dialects: u64,
        fenced: bool,
    },
    /// The window ends where a marker (or a fence) may begin, at this offset.
    NeedMore(usize),
    /// No marker up to the window's end.
    None,
}

/// The `auto` grammar.
#[derive(Debug)]
pub(crate) struct Auto {
    /// Prose before the first marker, the driver's positions, the options the candidates get.
    asm: Assembler,
    state: State,
    /// Every dialect's call markers, with the dialect's bit ([`MARKERS`]).
    markers: &'static [(&'static str, u64)],
    /// The next byte to probe.
    scan: usize,
    fence: Fence,
}

impl Grammar for Auto {
    fn run(&mut self, w: &str, base: usize, is_final: bool, out: &mut Vec<StreamEvent>) -> usize {
        let inp = Input { w, base, is_final };
        loop {
            match std::mem::take(&mut self.state) {
                State::Chosen(mut grammar) => {
                    let keep = grammar.run(w, base, is_final, out);
                    self.state = State::Chosen(grammar);
                    return keep;
                }
                State::Probing => match self.next_marker(inp) {
                    Scan::None => {
                        self.asm.emit_prose(w, base, inp.end(), out);
                        return inp.end();
                    }
                    Scan::NeedMore(at) => {
                        self.asm.emit_prose(w, base, at, out);
                        return at;
                    }
                    Scan::Found {
                        at, fenced: true, ..
                    } if self.asm.opts.ignore_fenced_calls => self.scan = at + 1,
                    Scan::Found { at, dialects, .. } => {
                        self.asm.emit_prose(w, base, at, out);
                        self.scan = at + 1;
                        let candidates = self.candidates(at, dialects);
                        self.state = State::Speculating(Speculation {
                            at,
                            candidates,
                            resume: None,
                        });
                    }
                },
                State::Speculating(speculation) => {
                    if let Some(keep) = self.speculate(inp, speculation, out) {
                        return keep;
                    }
                }
            }
        }
    }

    fn assembler(&mut self) -> &mut Assembler {
        match &mut self.state {
            State::Chosen(grammar) => grammar.assembler(),
            _ => &mut self.asm,
        }
    }

    fn start_at(&mut self, at: usize) {
        self.scan = at;
        self.asm.prose_start = at;
    }
}

/// Every dialect's call markers, each with its dialect's bit (the dialect's index in
/// [`Dialect::ALL`]): made once per process, where a list made per parser cost 2 k instructions
/// of growing it, a third of a short reply's parse.
static MARKERS: LazyLock<Vec<(&'static str, u64)>> = LazyLock::new(|| {
    Dialect::ALL
        .iter()
        .enumerate()
        .filter(|(_, d)| **d != Dialect::Auto)
        .flat_map(|(i, d)| d.call_markers().iter().map(move |m| (*m, 1u64 << i)))
        .collect()
});

impl Auto {
    pub(crate) fn new(opts: ParseOptions, progress: bool) -> Self {
        Auto {
            asm: Assembler::new(opts, Dialect::Auto, progress),
            state: State::Probing,
            markers: &MARKERS,
            scan: 0,
            fence: Fence::default(),
        }
    }

    /// The grammars of `dialects`, each starting at the marker at `at`. They report the start of
    /// a call even in one-shot parsing, so that one is chosen as soon as its call begins.
    fn candidates(&mut self, at: usize, dialects: u64) -> Vec<Candidate> {
        Dialect::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| dialects & (1 << i) != 0)
            .map(|(_, d)| {
                let mut grammar = d.grammar(self.asm.opts.clone(), true);
                let asm = grammar.assembler();
                asm.emit_deltas = self.asm.emit_deltas;
                asm.locator = self.asm.locator.clone();
                grammar.start_at(at);
                grammar.set_fence(self.fence);
                Candidate {
                    grammar,
                    events: Vec::new(),
                    keep: at,
                }
            })
            .collect()
    }

    /// Lets the candidates read up to the next marker, repeatedly: chooses one that reports a
    /// call, drops those that leave the marker as prose, and goes back to probing when none is
    /// left. Returns the offset to keep when the window is read (`None`: go on in the new state).
    fn speculate(
        &mut self,
        inp: Input<'_>,
        speculation: Speculation,
        out: &mut Vec<StreamEvent>,
    ) -> Option<usize> {
        let Speculation {
            at,
            mut candidates,
            mut resume,
        } = speculation;
        loop {
            let scan = self.next_marker(inp);
            let (cut, cut_final) = match scan {
                Scan::Found { at: m, .. } | Scan::NeedMore(m) => (m, false),
                Scan::None => (inp.end(), inp.is_final),
            };
            if let (Scan::Found { at: m, .. }, None) = (&scan, resume) {
                resume = Some((*m, self.fence));
            }
            let window = &inp.w[..cut - inp.base];
            for c in &mut candidates {
                c.keep = c.grammar.run(window, inp.base, cut_final, &mut c.events);
            }
            // Chosen: a candidate whose first event is not prose, i.e. a call (or an error) at
            // the marker. One that read the marker as prose left it, whatever it met later in
            // the window: a later call is decided at its own marker, so that the choice never
            // depends on how far one window reached (docs/FORMAT.md §9.7).
            let reported = candidates.iter().position(|c| {
                c.events
                    .first()
                    .is_some_and(|e| !matches!(e, StreamEvent::Prose { .. }))
            });
            if let Some(i) = reported {
                let Candidate {
                    mut grammar,
                    events,
                    keep,
                } = candidates.swap_remove(i);
                let progress = self.asm.progress;
                let chosen = grammar.assembler();
                chosen.progress = progress;
                // The strings handed back for this chunk (`feed_reusing`) go to the grammar that
                // makes the events from now on.
                std::mem::swap(&mut chosen.recycled, &mut self.asm.recycled);
                out.extend(events.into_iter().filter(|e| {
                    progress
                        || !matches!(
                            e,
                            StreamEvent::CallStarted { .. }
                                | StreamEvent::ToolName { .. }
                                | StreamEvent::ArgumentDelta { .. }
                        )
                }));
                let keep = if cut == inp.end() {
                    keep
                } else {
                    grammar.run(inp.w, inp.base, inp.is_final, out)
                };
                self.state = State::Chosen(grammar);
                return Some(keep);
            }
            // A candidate that emitted prose past the marker has left it as prose (one that
            // began a call keeps its prose at the marker until the call ends).
            candidates.retain_mut(|c| c.grammar.assembler().prose_start <= at && !cut_final);
            if candidates.is_empty() {
                // The marker was prose; probing goes on at the next marker, or where it stopped.
                if let Some((m, fence)) = resume {
                    self.scan = m;
                    self.fence = fence;
                }
                self.state = State::Probing;
                return None;
            }
            match scan {
                Scan::Found { at: m, .. } => self.scan = m + 1,
                Scan::NeedMore(_) | Scan::None => {
                    for c in &mut candidates {
                        c.grammar
                            .assembler()
                            .locator
                            .move_anchor(inp.w, inp.base, at);
                    }
                    self.state = State::Speculating(Speculation {
                        at,
                        candidates,
                        resume,
                    });
                    return Some(at);
                }
            }
        }
    }

    /// Probes from `scan` for the next marker of any dialect, tracking Markdown fences as the
    /// `<tool>` grammar does (one `Fence`): a call in one is ignored with `ignore_fenced_calls`,
    /// else marked `fenced`. `scan` stops at what it found.
    fn next_marker(&mut self, inp: Input<'_>) -> Scan {
        let bytes = inp.bytes();
        loop {
            let rel = self.scan - inp.base;
            if rel >= bytes.len() {
                return Scan::None;
            }
            if !self.fence.read_line_start(&bytes[rel..], inp.is_final) {
                return Scan::NeedMore(self.scan);
            }
            let Some(i) = Fence::next_stop(&bytes[rel..]) else {
                self.scan = inp.end();
                return Scan::None;
            };
            let at = inp.base + rel + i;
            if self.fence.line_end(bytes[rel + i]) {
                self.scan = at + 1;
                continue;
            }
            let s = &bytes[rel + i..];
            let mut dialects = 0;
            let mut need_more = false;
            for (m, bit) in self.markers {
                let m = m.as_bytes();
                if s.starts_with(m) {
                    dialects |= bit;
                } else if !inp.is_final && s.len() < m.len() && m.starts_with(s) {
                    need_more = true;
                }
            }
            if need_more {
                self.scan = at;
                return Scan::NeedMore(at);
            }
            if dialects != 0 {
                self.scan = at;
                return Scan::Found {
                    at,
                    dialects,
                    fenced: self.fence.is_open(),
                };
            }
            self.scan = at + 1;
        }
    }
}
