//! A cost oracle: parsing `prefix + repeat×4n + suffix` may cost about four times what
//! `prefix + repeat×n + suffix` costs, not sixteen. Fuzzers check answers, not cost; this target
//! turns "quadratic in some input shape" into an assertion libFuzzer can find.
//!
//! Input: byte 0 chooses the streaming chunk size (`1 + (b & 15)` bytes), whether argument
//! deltas are on (`b & 16 == 0`) and the size of the 4n text (`b & 32`: about 64 KiB, else
//! 16 KiB; see [`BUDGETS`]); the rest is `prefix 0xFF repeat 0xFF suffix` (0xFF is never
//! in UTF-8, so any text can be written; each part is decoded lossily; with one 0xFF the suffix
//! is empty, with none the whole rest is the repeated part). In the repeated part, byte 0xFE
//! (never in UTF-8 either) stands for the copy's number, 0, 1, 2…, so that copies can differ:
//! `<a\xFE>1</a\xFE>` makes many distinct argument names. `n` is the largest count that keeps
//! the 4n text within about that size.
//!
//! Both texts are parsed one-shot (`toolcall_parser::parse`) and streamed through a
//! `StreamParser` in small chunks (events cleared after each chunk, as a consumer that handles
//! them would). Each of the four runs is measured, deterministically, by a counting global
//! allocator: peak bytes live above what was live before, and [`work_units`]. The target fails
//! when the 4n run's peak or work exceeds [`RATIO`] times the n run's plus a constant slack, or
//! when the 4n run's peak exceeds [`BYTES_PER_BYTE`] times its text's length plus a slack: a
//! cost per repetition that is constant but large (kilobytes for a few bytes of input) is linear,
//! so the growth check cannot see it, and it multiplies what an input limit allows.
//!
//! Why [`RATIO`] is 10, not 16: cost linear in `n` grows 4× from n to 4n (at worst about 8×
//! when a buffer's doubling lands just past a size at n and just short at 4n); quadratic cost
//! grows 16×, so a 16× bound would only catch worse than quadratic. 10× lies between: it fails
//! once the quadratic part is about as large as the linear part at n. The quadratic part's share
//! grows with n, hence the larger of [`BUDGETS`]; the smaller one runs about four times as many
//! inputs per second.
//!
//! Work is counted by the parser itself ([`work_units`]): quadratic *time* that allocates nothing
//! (rescanning a buffer for a terminator on every lexeme or every chunk) is caught too.
//!
//! Why a hand-written allocator and `unsafe`: the `cap` crate (in the workspace's dependencies)
//! wraps the allocator safely, but its peak (`max_allocated`) cannot be reset, and libFuzzer runs
//! millions of inputs in one process, so after the first large input the peak would say nothing;
//! nor does it count allocator calls. [`Counting`] forwards every call unchanged to
//! [`System`] and only adds to atomic counters; the `unsafe` is the `GlobalAlloc` contract itself
//! (an `unsafe impl` with `unsafe fn`s), confined to this harness. The library crates keep
//! `#![forbid(unsafe_code)]`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use toolcall_parser::{StreamParser, chunks, parse};

/// Largest 4n text, in bytes: quick, and sensitive.
const BUDGETS: [usize; 2] = [16 << 10, 64 << 10];
/// Fewest copies at n: below it, the constant parts of the cost dominate and say nothing.
const MIN_N: usize = 2;
/// Allowed growth of peak and work from n to 4n copies (see the module documentation).
const RATIO: u64 = 10;
/// Constant slack: buffers and tables whose size steps with the input, and the first
/// allocations of a structure at 4n that was not needed at n.
const PEAK_SLACK: u64 = 16 << 10;
const WORK_SLACK: u64 = 32 << 10;
/// Most bytes of peak memory per byte of text. The largest ratios measured when this target was
/// written were about 70 (`<a>1</a>` repeated as arguments: a map entry, a name and a value per
/// 8 bytes) and 55 (`<b/>` repeated inside an argument: a tree node per 4 bytes).
const BYTES_PER_BYTE: u64 = 256;
/// Growth past [`RATIO`] is a finding only when the 4n run also costs more than this many bytes
/// (peak) or work units per byte of its text. The parser changes how it reads at its size bounds
/// (a tag or comment whose end is not within 16 KiB of its `<` is text, `lexer::MAX_TAG_BYTES`):
/// when the n text lies below such a bound and the 4n text above it, the 4n run reads the input
/// differently (an unclosed `<!--` of 64 KiB becomes the value's text and is held as such), a
/// step, not growth: found by this target, `<a><!--` + `x -`×n, peak 4 KB at 16 KB of text and
/// 70 KB at 64 KB (1.1 bytes per byte). Real superlinear cost at 64 KiB is far above these
/// floors (cost quadratic in 21,000 copies is hundreds of megabytes), so they hide nothing that
/// matters.
const GROWTH_FLOOR_PEAK_PER_BYTE: u64 = 4;
const GROWTH_FLOOR_WORK_PER_BYTE: u64 = 8;
const AMPLIFICATION_SLACK: u64 = 64 << 10;

/// Counts what passes through Rust's allocator: bytes live, the peak of those since the last
/// [`measure`], bytes requested in all, and calls that allocated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static REQUESTED: AtomicU64 = AtomicU64::new(0);
static CALLS: AtomicU64 = AtomicU64::new(0);

fn allocated(size: usize) {
    CALLS.fetch_add(1, Relaxed);
    REQUESTED.fetch_add(size as u64, Relaxed);
    let live = LIVE.fetch_add(size, Relaxed) + size;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY (for each method): the call is forwarded to `System` with the caller's arguments
// unchanged, so the caller's guarantees are exactly those `System` needs; the counters are
// atomics and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            allocated(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            allocated(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    /// A reallocation counts as a new block of the new size (it may copy the old one).
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            allocated(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Units of work done so far in this process; only differences mean anything.
///
/// Today: allocator calls plus bytes requested, a proxy that sees copying and building but not
/// scanning.
///
/// Deterministic work: the parser's own counter (`toolcall_parser::work_units`, feature
/// `work-counter`: bytes its searches examined ahead, names probed, lexemes made) plus the
/// allocator's calls and bytes requested. The parser's counter catches quadratic scanning that
/// allocates nothing (a terminator searched for to the end of the input again and again), which
/// the allocation proxy alone could not see.
fn work_units() -> u64 {
    toolcall_parser::work_units() + CALLS.load(Relaxed) + REQUESTED.load(Relaxed)
}

/// What one parse cost.
#[derive(Debug, Clone, Copy)]
struct Cost {
    /// Most bytes live at once above what was live before.
    peak: u64,
    /// [`work_units`] spent.
    work: u64,
}

/// Runs `f` and measures it; whatever `f` keeps is dropped inside, so its output counts in the
/// peak.
fn measure(f: impl FnOnce()) -> Cost {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let work = work_units();
    f();
    Cost {
        peak: (PEAK.load(Relaxed) - base) as u64,
        work: work_units() - work,
    }
}

fn one_shot(text: &str) -> Cost {
    measure(|| {
        let r = parse(text);
        std::hint::black_box(&r);
    })
}

fn streamed(text: &str, chunk: usize, deltas: bool) -> Cost {
    measure(|| {
        let mut p = StreamParser::new().argument_deltas(deltas);
        let mut events = Vec::new();
        for c in chunks(text, chunk) {
            p.feed_into(c, &mut events);
            std::hint::black_box(&events);
            events.clear();
        }
        events.extend(p.finish());
        std::hint::black_box(&events);
    })
}

/// `prefix`, then `n` copies of the repeated part (its pieces joined by the copy's number),
/// then `suffix`.
fn build(prefix: &str, pieces: &[String], n: usize, suffix: &str) -> String {
    let mut s = String::new();
    s.push_str(prefix);
    for i in 0..n {
        for (k, piece) in pieces.iter().enumerate() {
            if k > 0 {
                s.push_str(&i.to_string());
            }
            s.push_str(piece);
        }
    }
    s.push_str(suffix);
    s
}

/// At most `max` characters of `s`, for messages.
fn shown(s: &str, max: usize) -> String {
    let mut t: String = s.chars().take(max).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let chunk = 1 + usize::from(control & 15);
    let deltas = control & 16 == 0;
    let budget = BUDGETS[usize::from(control & 32 != 0)];
    let mut parts = rest.splitn(3, |&b| b == 0xFF);
    let (first, second, third) = (parts.next(), parts.next(), parts.next());
    let (prefix, repeat, suffix) = match (first, second, third) {
        (Some(p), Some(r), Some(s)) => (p, r, s),
        (Some(p), Some(r), None) => (p, r, &[][..]),
        (Some(r), None, _) => (&[][..], r, &[][..]),
        _ => return,
    };
    let prefix = String::from_utf8_lossy(prefix);
    let suffix = String::from_utf8_lossy(suffix);
    let pieces: Vec<String> = repeat
        .split(|&b| b == 0xFE)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    // A copy's length, counting up to 5 digits per number.
    let copy = pieces.iter().map(String::len).sum::<usize>() + 5 * (pieces.len() - 1);
    if copy == 0 {
        return;
    }
    let fixed = prefix.len() + suffix.len();
    let n = budget.saturating_sub(fixed) / (4 * copy);
    if n < MIN_N {
        return;
    }
    let small = build(&prefix, &pieces, n, &suffix);
    let large = build(&prefix, &pieces, 4 * n, &suffix);
    // For messages: the copy number written `{i}`.
    let repeat = pieces.join("{i}");

    let runs = [
        ("one-shot", one_shot(&small), one_shot(&large)),
        (
            "streamed",
            streamed(&small, chunk, deltas),
            streamed(&large, chunk, deltas),
        ),
    ];
    for (how, at_n, at_4n) in runs {
        let case = || {
            format!(
                "{how} (chunks of {chunk} bytes, argument deltas {deltas}), n = {n}: \
                 prefix {:?}, repeat {:?}, suffix {:?}; at n {at_n:?}, at 4n {at_4n:?}",
                shown(&prefix, 80),
                shown(&repeat, 80),
                shown(&suffix, 80),
            )
        };
        let len = large.len() as u64;
        assert!(
            at_4n.peak <= (RATIO * at_n.peak + PEAK_SLACK).max(GROWTH_FLOOR_PEAK_PER_BYTE * len),
            "peak memory grew {:.1}x from n to 4n copies: {}",
            at_4n.peak as f64 / at_n.peak.max(1) as f64,
            case()
        );
        assert!(
            at_4n.peak <= BYTES_PER_BYTE * large.len() as u64 + AMPLIFICATION_SLACK,
            "peak memory of {} bytes for {} bytes of text ({:.0} per byte): {}",
            at_4n.peak,
            large.len(),
            at_4n.peak as f64 / large.len() as f64,
            case()
        );
        assert!(
            at_4n.work <= (RATIO * at_n.work + WORK_SLACK).max(GROWTH_FLOOR_WORK_PER_BYTE * len),
            "work grew {:.1}x from n to 4n copies: {}",
            at_4n.work as f64 / at_n.work.max(1) as f64,
            case()
        );
    }
});
