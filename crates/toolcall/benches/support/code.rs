//! Dense code, the content every benchmark reads: one generator, deterministic, shared by the
//! `throughput` harness (`support::workload`) and the peers harness (`benches/peers`, which
//! includes this file by path), so that both measure the same bytes.

/// A small deterministic generator (xorshift64*), so the inputs are the same in every run.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

pub(crate) const IDENTS: &[&str] = &[
    "idx", "len", "buf", "key", "node", "items", "depth", "state", "offset", "limit", "value",
    "entry", "parent", "child", "count", "token", "span", "input", "output", "cursor",
];

const TYPES: &[&str] = &[
    "String", "u32", "usize", "Node", "Token", "Span", "Entry", "Value", "Item", "Key",
];

/// One line of realistic Rust or TypeScript, dense in `&&`, `<`, `>`, `&` and quotes; `a`/`b`/`c`
/// are identifiers and `T`/`U` type names.
pub(crate) fn code_line(rng: &mut Rng, out: &mut String) {
    let a = rng.pick(IDENTS);
    let b = rng.pick(IDENTS);
    let c = rng.pick(IDENTS);
    let t = rng.pick(TYPES);
    let u = rng.pick(TYPES);
    let n = rng.below(64);
    let line = match rng.below(21) {
        0 => format!("    if {a} < {b}.len() && {c}[{a}] != b'<' && !seen.contains(&{b}) {{"),
        1 => format!(
            "        let map: HashMap<{t}, Vec<Option<{u}>>> = HashMap::with_capacity({n});"
        ),
        2 => format!(
            "    for ({a}, {b}) in {c}.iter().filter(|(k, _)| k.len() > {n} && k.len() < 64 && *k != \"<id>\") {{"
        ),
        3 => format!(
            "        return Err(format!(\"expected <{{}}> or </{{}}> at {{}}\", {a}, {b}, &{c}));"
        ),
        4 => format!("    const ok = {a}.length > {n} && {b} !== null && ({c} << 2) >= {a};"),
        5 => format!(
            "    const el = <div className=\"row\">{{{a}.map((i) => <Item key={{i.{b}}} />)}}</div>;"
        ),
        6 => format!(
            "fn parse_{a}<'a, T: FromStr<Err = E>, E>(s: &'a str) -> Result<Vec<{t}>, E> {{"
        ),
        7 => format!("        {a} = ({b} & 0x{n:02x}) | (({c} >> 4) & 0x0f); // mask & shift"),
        8 => format!(
            "    }} else if {a} >= {b} && {a} <= {n} || {c}.is_empty() {{ return Ok(&{a}[..{n}]); }}"
        ),
        9 => format!(
            "    let {a}: &mut Vec<Box<{t}>> = &mut self.{b}; // 'borrowed' for \"{c}\" <-> {u}"
        ),
        10 => format!(
            "    export function {a}<T extends {t}>(x: Array<T>, f: (v: T) => boolean): Map<T, T[]> {{"
        ),
        11 => format!(
            "        while {a} > 0 && {b} < {c} && {b}.peek().map_or(false, |t| t.kind == Kind::{u}) {{"
        ),
        12 => {
            format!("    assert!({a} <= {b} && {b} < {c}, \"{{}} <= {{}} < {{}}\", {a}, {b}, {c});")
        }
        13 => format!(
            "        const url = `https://example.com/{a}?q=${{{b}}}&page={n}&sort=asc&lt=<${{{c}}}>`;"
        ),
        14 => format!("    // café: naïve {a} → {b} (non-ASCII stays) <{n}> && <{t}>"),
        15 => {
            format!("    if ({a} < {b} && {b} < {c} && {c} < {n}) || ({a} > {n} && {b} >= {c}) {{")
        }
        16 => format!(
            "        let v: Vec<(&str, Option<&[u8]>)> = {a}.iter().map(|x| (&x.{b}, x.{c}.as_deref())).collect();"
        ),
        17 => format!(
            "    template <typename T> std::vector<std::pair<T, {u}>> zip(const std::vector<T>& {a}, const {t}& {b});"
        ),
        18 => format!(
            "        {a} = ({b} << 3) & ({c} >> 1) & MASK; {b} = {a} < {c} ? {a} : {c}; ok = {b} > 0 && {b} < {n};"
        ),
        19 => format!(
            "    if (!{a} || {a}.size() < {n} && {b}->next != nullptr && *{c} > 0) {{ return &{b}; }}"
        ),
        _ => format!(
            "    }} else {{ return {a}.get(&{b}).filter(|v| v.{c} > {n} && v.{a} < {n}).map(|v| &v.{b}); }}"
        ),
    };
    out.push_str(&line);
}

/// Cuts `s` to at most `size` bytes, at a character boundary, then trims its tail of whitespace
/// (so that no value-text rule can change it).
pub(crate) fn cut(s: &mut String, size: usize) {
    let mut at = size.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    s.truncate(at);
    let kept = s.trim_end().len();
    s.truncate(kept);
}

/// Dense code of exactly `size` bytes (cut at a character boundary, then the tail trimmed of
/// whitespace so that no value-text rule can change it), starting with a comment line.
pub(crate) fn dense_code(size: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut s = String::with_capacity(size + 200);
    s.push_str("// generated by the toolcall benchmarks");
    while s.len() < size {
        s.push('\n');
        code_line(&mut rng, &mut s);
    }
    cut(&mut s, size);
    // CDATA cannot hold `]]>`; the generator never writes it, and this keeps it so.
    assert!(!s.contains("]]>"));
    s
}
